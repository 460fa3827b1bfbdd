/**
 * An upstream MCP tool as a Guardtrace tool: its JSON Schema becomes the schema guard, its
 * annotations the flags the policy reads, the config adds roots, preconditions and locks, and
 * `execute` forwards the call to the upstream server. What the upstream answers with an error
 * (an `isError: true` result, or a JSON-RPC error) is thrown as an error the SDK classifies.
 */
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { type CallToolResult, ErrorCode, McpError, type Progress, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { FeedbackRequired, type Guard, GuardViolation, type ToolFlags, type ToolSpec, pointersTo, predicate, resourceLock, toPointer } from '@guardtrace/sdk';
import { pathCandidates, pathNotFoundFeedback, resolveInside } from '@guardtrace/sdk/guards/files';
import { ATTR_RPC_RESPONSE_STATUS_CODE } from '@guardtrace/semconv/mcp';
import type { ProxyConfig, ToolConfig } from './config.ts';
import { compileInputSchema } from './json-schema.ts';

/** `_meta` key that carries the idempotency key of a side-effecting call to the upstream server. */
export const META_IDEMPOTENCY_KEY = 'guardtrace/idempotencyKey';

/**
 * What a client's `tools/call` request brings for the upstream server besides the arguments
 * (the SDK hands it to `execute` as `ctx.meta`): the request's `_meta` without its progress
 * token, and the relay of the upstream's progress to the client's token.
 */
export interface ClientRequest {
  meta?: Record<string, unknown>;
  onprogress?: (progress: Progress) => void;
}

/**
 * Flags from MCP tool annotations, with the spec's defaults for missing hints: not read-only,
 * destructive (unless read-only), not idempotent, open world. The config overrides any of them.
 */
export function flagsOf(tool: Tool, override: ToolFlags = {}): ToolFlags {
  const a = tool.annotations ?? {};
  const readOnly = a.readOnlyHint ?? false;
  return {
    readOnly,
    destructive: readOnly ? false : (a.destructiveHint ?? true),
    idempotent: readOnly || (a.idempotentHint ?? false),
    external: a.openWorldHint ?? true,
    ...override,
  };
}

/** A tool's answer with `isError: true`, as an error whose code or class the SDK classifies. */
export function toolError(result: CallToolResult): Error {
  const text = result.content
    .filter((c): c is { type: 'text'; text: string } => c.type === 'text')
    .map((c) => c.text)
    .join('\n')
    .trim() || 'the tool reported an error without text';
  // file-system answers keep their errno meaning: missing -> replan with candidates, denied -> guard violation
  if (/\bENOENT\b|no such file|not found|does not exist/i.test(text)) return Object.assign(new Error(text), { code: 'ENOENT' });
  if (/\bE(ACCES|PERM)\b|access denied|permission denied|outside (the )?allowed/i.test(text)) return Object.assign(new Error(text), { code: 'EACCES' });
  // anything else is the tool telling the model what went wrong: MCP means it for self-correction
  return new FeedbackRequired(text);
}

/** A JSON-RPC error from the upstream server, as an error the SDK classifies by its meaning. */
export function rpcError(err: McpError): Error {
  switch (err.code) {
    case ErrorCode.RequestTimeout:
      return Object.assign(new Error(err.message), { code: 'ETIMEDOUT' });
    case ErrorCode.ConnectionClosed:
      return Object.assign(new Error(err.message), { code: 'ECONNRESET' });
    case ErrorCode.InternalError:
      // the server failed mid-request: it may or may not have acted (the SDK decides by the flags)
      return Object.assign(new Error(err.message), { status: 502 });
    default:
      return new GuardViolation(err.message);
  }
}

function argumentNames(tool: Tool): Set<string> {
  return new Set(Object.keys((tool.inputSchema.properties as Record<string, unknown> | undefined) ?? {}));
}

function valuesOf(args: Record<string, unknown>, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const v = args[n];
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const x of v) if (typeof x === 'string') out.push(x);
  }
  return out;
}

/** Path arguments stay inside one of the workspace roots (`..`, absolute paths elsewhere, symlinks out). */
function insideRoots(roots: readonly string[], names: readonly string[]): Guard<Record<string, unknown>> {
  return {
    name: 'path_inside_roots',
    check(args) {
      for (const p of valuesOf(args, names)) {
        if (p.includes('\0') || !roots.some((r) => resolveInside(r, p) !== undefined)) {
          return {
            pass: false,
            reason: `Path is outside the workspace roots: ${p}`,
            feedback: `TOOL CALL REJECTED: Path "${p}" is outside the allowed workspace. Allowed roots:\n${roots.map((r) => `- ${r}`).join('\n')}`,
            failureClass: 'guard_violation',
            candidates: [...roots],
            pointers: pointersTo(args, p),
          };
        }
      }
      return { pass: true };
    },
  };
}

/**
 * A missing path inside a root: the feedback lists the closest existing paths (same file name
 * anywhere under the root, else similar names), as the SDK's fileExists guard does, so the
 * model's next call can pick one instead of guessing again.
 */
async function withCandidates(err: Error, args: Record<string, unknown>, roots: readonly string[], pathArgs: readonly string[]): Promise<Error> {
  if ((err as { code?: unknown }).code !== 'ENOENT' || roots.length === 0) return err;
  for (const p of valuesOf(args, pathArgs)) {
    const root = roots.find((r) => resolveInside(r, p) !== undefined);
    if (!root) continue;
    const rel = path.relative(root, path.resolve(root, p));
    if (!err.message.includes(path.basename(rel))) continue;
    const { pattern, paths } = await pathCandidates(root, rel);
    const absolute = paths.map((c) => (path.isAbsolute(p) ? path.join(root, c) : c));
    return Object.assign(new Error(pathNotFoundFeedback(p, pattern, absolute)), { code: 'ENOENT' });
  }
  return err;
}

function guardsOf(tool: Tool, config: ProxyConfig, own: ToolConfig | undefined): Guard<Record<string, unknown>>[] {
  const guards: Guard<Record<string, unknown>>[] = [];
  const names = argumentNames(tool);
  const pathArgs = config.pathArguments.filter((n) => names.has(n));
  if (config.roots && config.roots.length > 0 && pathArgs.length > 0) guards.push(insideRoots(config.roots, pathArgs));
  for (const p of own?.preconditions ?? []) {
    const matches = p.matches === undefined ? undefined : new RegExp(p.matches);
    const notMatches = p.notMatches === undefined ? undefined : new RegExp(p.notMatches);
    guards.push(
      predicate<Record<string, unknown>>({
        name: p.name,
        test: (args) => valuesOf(args, [p.argument]).every((v) => (!matches || matches.test(v)) && !notMatches?.test(v)),
        message: p.message,
        pointers: [toPointer([p.argument])],
      }),
    );
  }
  if (own?.locks && own.locks.length > 0) {
    const lockArgs = own.locks;
    // a path is locked by its absolute form, so `a.txt` and `./a.txt` are one resource
    const normal = (v: string) => (pathArgs.includes(v) || v.includes('/') ? path.resolve(v) : v);
    guards.push(resourceLock<Record<string, unknown>>({ name: 'resource_lock', resource: (args) => valuesOf(args, lockArgs).map(normal) }));
  }
  return guards;
}

export interface UpstreamTools {
  client: Client;
}

/** The Guardtrace tool spec of one upstream tool. */
export function toolSpec(tool: Tool, config: ProxyConfig, upstream: UpstreamTools): { spec: ToolSpec; warning?: string } {
  const own = config.tools[tool.name];
  const compiled = compileInputSchema(tool.inputSchema as Record<string, unknown>, { unknownArguments: config.unknownArguments });
  const flags = flagsOf(tool, own?.flags);
  const sideEffect = !(flags.readOnly || flags.idempotent);
  const names = argumentNames(tool);
  const pathArgs = config.pathArguments.filter((n) => names.has(n));
  const spec: ToolSpec = {
    name: tool.name,
    description: tool.description ?? tool.title ?? tool.name,
    schema: compiled.zod,
    flags,
    guards: guardsOf(tool, config, own),
    execute: async (args, ctx) => {
      const params: Parameters<Client['callTool']>[0] = { name: tool.name, arguments: (args ?? {}) as Record<string, unknown> };
      const req = (ctx.meta ?? {}) as ClientRequest;
      // the client's _meta goes on; for a side effect the proxy's idempotency key is added (and wins)
      const meta = sideEffect ? { ...req.meta, [META_IDEMPOTENCY_KEY]: ctx.idempotencyKey } : req.meta;
      if (meta && Object.keys(meta).length > 0) params._meta = meta;
      const options: RequestOptions = { signal: ctx.signal };
      // the MCP client gives the upstream a progress token of its own and calls this with each report
      if (req.onprogress) Object.assign(options, { onprogress: req.onprogress, resetTimeoutOnProgress: true });
      let result: CallToolResult;
      try {
        result = (await upstream.client.callTool(params, undefined, options)) as CallToolResult;
      } catch (err) {
        if (err instanceof McpError) {
          // what the upstream answered, on this attempt's span
          ctx.setAttributes({ [ATTR_RPC_RESPONSE_STATUS_CODE]: String(err.code) });
          throw rpcError(err);
        }
        throw err;
      }
      if (result.isError) throw await withCandidates(toolError(result), (args ?? {}) as Record<string, unknown>, config.roots ?? [], pathArgs);
      return result;
    },
  };
  if (own?.timeoutMs !== undefined) spec.timeoutMs = own.timeoutMs;
  if (own?.maxAttempts !== undefined) spec.maxAttempts = own.maxAttempts;
  if (own?.policy) spec.policy = own.policy;
  if (own?.autoRepair !== undefined) spec.autoRepair = own.autoRepair;
  const out: { spec: ToolSpec; warning?: string } = { spec };
  if (compiled.compileError) out.warning = `tool ${tool.name}: its inputSchema does not compile (${compiled.compileError}); arguments go to the upstream server unchecked`;
  return out;
}
