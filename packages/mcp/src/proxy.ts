/**
 * The guard proxy: one upstream MCP server (a child process over stdio), its tools registered
 * with one Guardtrace runtime (so locks, circuit breakers and the idempotency store are shared
 * by every client), and an MCP server per client connection, each with a Guardtrace session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  LATEST_PROTOCOL_VERSION,
  ListToolsRequestSchema,
  type ServerNotification,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type Attributes, SpanKind, SpanStatusCode, trace, context as otelContext } from '@opentelemetry/api';
import { type CallOptions, type CallResult, type CallSpanOptions, correctionNote, Guardtrace, redactSecrets, type Session } from '@guardtrace/sdk';
import { ATTR_ERROR_TYPE, ATTR_GEN_AI_CONVERSATION_ID } from '@guardtrace/semconv';
import {
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_TRANSPORT,
  type NetworkTransport,
} from '@guardtrace/semconv/mcp';
import type { ProxyConfig } from './config.ts';
import type { ProxyTelemetry } from './telemetry.ts';
import { type ClientRequest, toolSpec } from './tools.ts';
import { VERSION } from './version.ts';

const TOOLS_CALL = 'tools/call';

/** `_meta` key a client may set on `tools/call` to scope the idempotency key to an intent of its own. */
export const META_INTENT_ID = 'guardtrace/intentId';

export interface Upstream {
  client: Client;
  tools: Tool[];
  close(): Promise<void>;
}

/** Starts the upstream server and reads its whole tool list (every page). */
export async function connectUpstream(command: string, args: string[]): Promise<Upstream> {
  const client = new Client({ name: 'guardtrace-mcp', version: VERSION });
  // the upstream inherits the proxy's environment and stderr, as if the client had started it
  const transport = new StdioClientTransport({ command, args, env: process.env as Record<string, string>, stderr: 'inherit' });
  await client.connect(transport);
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { client, tools, close: () => client.close() };
}

export interface GuardProxy {
  gt: Guardtrace;
  upstream: Upstream;
  config: ProxyConfig;
  telemetry: ProxyTelemetry;
  /** Warnings found while registering the tools (schemas that do not compile). */
  warnings: string[];
}

/** Registers the upstream's tools; a config entry for a tool the upstream does not have is an error. */
export function createProxy(upstream: Upstream, config: ProxyConfig, telemetry: ProxyTelemetry): GuardProxy {
  const opts: ConstructorParameters<typeof Guardtrace>[0] = telemetry.tracer ? { tracer: telemetry.tracer } : { tracing: false };
  if (config.policy) opts.policy = config.policy;
  if (config.autoRepair !== undefined) opts.autoRepair = config.autoRepair;
  // a connection is one session that serves many tasks with no boundary between them: the
  // rejection budget counts per logical call (a call and its corrections) unless the config says `task`
  opts.budgets = { rejectionsScope: 'call', ...config.budgets };
  const gt = new Guardtrace(opts);
  const names = new Set(upstream.tools.map((t) => t.name));
  const unknown = Object.keys(config.tools).filter((n) => !names.has(n));
  if (unknown.length > 0) {
    throw new Error(`guardtrace-mcp: config tools.${unknown[0]}: the upstream server has no such tool (it has: ${[...names].join(', ')})`);
  }
  const warnings: string[] = [];
  for (const tool of upstream.tools) {
    const { spec, warning } = toolSpec(tool, config, { client: upstream.client });
    gt.tool(spec);
    if (warning) warnings.push(warning);
  }
  return { gt, upstream, config, telemetry, warnings };
}

const toolsCallName = (tool: string): string => `${TOOLS_CALL} ${tool}`;

/**
 * The spans of one `tools/call` request, as the MCP conventions' server span: `SERVER`, named
 * `tools/call {gen_ai.tool.name}` (also after the model corrects an unknown tool name), with
 * the session's and the request's keys; the SDK adds `gen_ai.operation.name` (`execute_tool`)
 * and `gen_ai.tool.name`. Each attempt the request makes carries its JSON-RPC request id (a
 * correction is a new request that continues the same call, so its attempts carry its own id).
 */
function toolsCallSpan(session: Attributes, requestId: string): CallSpanOptions {
  return {
    name: toolsCallName,
    kind: SpanKind.SERVER,
    attributes: { ...session, [ATTR_MCP_METHOD_NAME]: TOOLS_CALL, [ATTR_JSONRPC_REQUEST_ID]: requestId },
    attemptAttributes: { [ATTR_JSONRPC_REQUEST_ID]: requestId },
  };
}

/**
 * A result after an auto-repair: what was corrected comes first, as a text content item (the
 * model reads it before the result) and as `_meta["guardtrace/corrections"]`.
 */
function corrected(value: CallToolResult, r: Extract<CallResult, { ok: true }>): CallToolResult {
  const note = correctionNote(r);
  if (note === undefined) return value;
  return {
    ...value,
    content: [{ type: 'text', text: note }, ...(value.content ?? [])],
    _meta: { ...value._meta, 'guardtrace/corrections': r.corrections?.map((c) => ({ kind: c.kind, from: c.from, to: c.to })) },
  };
}

/** The answer a client gets for a call the guards or the policy stopped. */
export function failureResult(r: Extract<CallResult, { ok: false }>): CallToolResult {
  const meta: Record<string, unknown> = { 'guardtrace/failureClass': r.failureClass, 'guardtrace/decision': r.decision };
  if (r.candidates) meta['guardtrace/candidates'] = r.candidates;
  if (r.idempotencyKey) meta['guardtrace/idempotencyKey'] = r.idempotencyKey;
  return { content: [{ type: 'text', text: r.feedback }], isError: true, _meta: meta };
}

/**
 * The client's request `_meta` for the upstream: every key but the progress token, which the
 * proxy's own client replaces with one of its own; each progress report the upstream sends is
 * relayed to the client under the client's token.
 */
function clientRequest(meta: Record<string, unknown> | undefined, notify: (n: ServerNotification) => Promise<void>): ClientRequest {
  const out: ClientRequest = {};
  if (!meta) return out;
  const { progressToken, ...rest } = meta;
  if (Object.keys(rest).length > 0) out.meta = rest;
  if (typeof progressToken === 'string' || typeof progressToken === 'number') {
    out.onprogress = (p) => {
      // a client that went away misses its progress; the call itself goes on
      notify({ method: 'notifications/progress', params: { ...p, progressToken } }).catch(() => undefined);
    };
  }
  return out;
}

export interface ConnectionInfo {
  transport: NetworkTransport;
  /** The MCP session id (Streamable HTTP); it is also the Guardtrace session id. */
  mcpSessionId?: () => string | undefined;
  /** Called when the connection closes (before the session ends). */
  onClose?: () => void;
}

/**
 * Serves the proxy on one client connection. The Guardtrace session starts with the first
 * request after `initialize` (the client's name is the default agent name) and ends when the
 * connection closes.
 */
export function serveConnection(proxy: GuardProxy, transport: Transport, info: ConnectionInfo): { server: Server; start(): Promise<void>; end(): Promise<void> } {
  const server = new Server({ name: 'guardtrace-mcp', version: VERSION }, { capabilities: { tools: {} } });
  const { enricher, tracer } = proxy.telemetry;
  let protocolVersion: string | undefined;
  let session: Session | undefined;

  const sessionAttrs = (): Attributes => {
    const attrs: Attributes = { [ATTR_NETWORK_TRANSPORT]: info.transport };
    const sid = info.mcpSessionId?.();
    if (sid) attrs[ATTR_MCP_SESSION_ID] = sid;
    if (protocolVersion) attrs[ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
    return attrs;
  };
  const ensureSession = (): Session => {
    if (session) return session;
    const sid = info.mcpSessionId?.();
    const id = sid ? `mcp_${sid}` : `sess_${crypto.randomUUID()}`;
    enricher.openSession(id, sessionAttrs());
    const cfg = proxy.config.session;
    const opts: Parameters<Guardtrace['session']>[0] = { id, agentName: cfg.agentName ?? server.getClientVersion()?.name ?? 'mcp-client' };
    if (cfg.agentId) opts.agentId = cfg.agentId;
    if (cfg.userId) opts.userId = cfg.userId;
    session = proxy.gt.session(opts);
    return session;
  };

  /** A request other than tools/call: a SERVER span under the session's root. */
  const requestSpan = async <T>(method: string, requestId: string | number, fn: () => Promise<T>): Promise<T> => {
    const s = ensureSession();
    const root = enricher.rootOf(s.id);
    if (!tracer || !root) return fn();
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { ...sessionAttrs(), [ATTR_MCP_METHOD_NAME]: method, [ATTR_JSONRPC_REQUEST_ID]: String(requestId), [ATTR_GEN_AI_CONVERSATION_ID]: s.id } },
      trace.setSpanContext(otelContext.active(), root),
    );
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.setAttribute(ATTR_ERROR_TYPE, err instanceof Error ? err.name : 'error');
      throw err;
    } finally {
      span.end();
    }
  };

  // tools/list passes through unchanged: the upstream's JSON Schemas and annotations reach the client as they are
  server.setRequestHandler(ListToolsRequestSchema, (req, extra) =>
    requestSpan('tools/list', extra.requestId, () => proxy.upstream.client.listTools(req.params)),
  );

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const s = ensureSession();
    const callId = String(extra.requestId);
    const intent = req.params._meta?.[META_INTENT_ID];
    const opts: CallOptions = { callId, span: toolsCallSpan(sessionAttrs(), callId), meta: clientRequest(req.params._meta, extra.sendNotification) };
    if (typeof intent === 'string') opts.intentId = intent;
    const r = await s.callTool(req.params.name, req.params.arguments ?? {}, opts);
    if (!r.ok) return failureResult(r);
    // the client (the model) gets the result redacted of secrets, as from the SDK's integrations;
    // the span's gen_ai.tool.call.result is sanitized by the SDK itself
    const value = corrected(redactSecrets(r.value as CallToolResult), r);
    if (!r.deduplicated) return value;
    // answered from the idempotency store: the tool did not run again, and the client is told so
    return { ...value, _meta: { ...value._meta, 'guardtrace/deduplicated': true, 'guardtrace/idempotencyKey': r.idempotencyKey } };
  });

  let ended: Promise<void> | undefined;
  const end = (): Promise<void> => {
    ended ??= (async () => {
      if (session) {
        await session.end();
        enricher.closeSession(session.id);
      }
    })();
    return ended;
  };

  return {
    server,
    end,
    async start() {
      server.onclose = () => {
        info.onClose?.();
        void end();
      };
      await server.connect(transport);
      // the negotiated protocol version, for mcp.protocol.version: the SDK's server answers
      // `initialize` itself, by the same rule as here (the client's version when supported)
      const inner = transport.onmessage;
      transport.onmessage = (msg, extra) => {
        if ('method' in msg && msg.method === 'initialize') {
          const asked = (msg.params as { protocolVersion?: unknown } | undefined)?.protocolVersion;
          protocolVersion = typeof asked === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
        }
        inner?.(msg, extra);
      };
    },
  };
}
