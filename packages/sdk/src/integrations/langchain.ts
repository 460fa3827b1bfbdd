/**
 * LangChain.js integration: LangChain tools (`tool()`, `DynamicStructuredTool`, any
 * `StructuredTool`) become tools whose every call runs through a Guardtrace session: schema
 * guard from the tool's zod or JSON schema, the tool's guards, policy and budgets. A call
 * made with a tool call (what agents and `bindTools` loops pass) answers with a `ToolMessage`,
 * `status: "error"` and the sanitized feedback when it fails; an escalation throws
 * {@link GuardtraceEscalation}. With `createAgent`, add `middleware` too: it routes a tool
 * name the model made up through the session (valid names back, the correction continues
 * the same call) and lets an escalation end the run.
 *
 * ```ts
 * const guarded = guardLangChainTools(gt, [getWeather], { agentName: 'weather' });
 * const agent = createAgent({ model, tools: guarded.tools, middleware: [guarded.middleware] });
 * await agent.invoke({ messages }, { configurable: { thread_id: 't1' } });
 * await guarded.sessions.end('t1');
 * ```
 *
 * Session: `configurable.thread_id`, else the `session` option, else one session per
 * guardLangChainTools call; user: `configurable.user_id` unless `userId` says otherwise.
 */

import { ATTR_GUARDTRACE_RECORDED_AS, ATTR_GUARDTRACE_RECORDED_TOOL, OP_EXECUTE_TOOL } from '@guardtrace/semconv';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { createMiddleware } from 'langchain';
import { z } from 'zod';
import type { Guardtrace } from '../guardtrace.ts';
import type { CallFailure, CallResult, ModelCall } from '../types.ts';
import { escalateOrReturn, GuardtraceEscalation, InvocationScope, type SessionKey, SessionMap, specOf, type ToolMeta } from './adapter.ts';
import { modelText } from './model-text.ts';

export type { SessionKey, ToolMeta };
export { GuardtraceEscalation, SessionMap };

export interface GuardLangChainToolsOptions {
  /** `gen_ai.agent.name` of the sessions. */
  agentName: string;
  /** Flags, guards, reconcile hooks and policy per tool name. */
  meta?: Record<string, ToolMeta>;
  /** The session of a call without `configurable.thread_id` (default: one per guardLangChainTools call). */
  session?: (config: RunnableConfig) => SessionKey | undefined;
  /** The user a call is for (default: `configurable.user_id` when it is a string). */
  userId?: (config: RunnableConfig) => string | undefined;
}

export interface GuardedLangChainTools {
  /** Guarded tools with the originals' names, descriptions and schemas. */
  tools: StructuredTool[];
  /**
   * `createAgent({ middleware: [...] })`: unknown tool names through the guards, escalations
   * end the run, and each model call is recorded (a turn after a failed call as its repair).
   */
  middleware: ReturnType<typeof createMiddleware>;
  /** The Guardtrace sessions opened by calls; `end()` them when the thread is over. */
  sessions: SessionMap;
}

/** The zod 4 schema the schema guard validates with: the tool's own, or one made from its JSON schema. */
function zodOf(t: StructuredToolInterface): z.ZodType {
  const schema: unknown = t.schema;
  if (schema instanceof z.ZodType) return schema;
  if (schema && typeof schema === 'object' && !('_def' in schema) && !('_zod' in schema)) {
    try {
      return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (e) {
      throw new Error(`guardtrace: LangChain tool "${t.name}" has a JSON schema zod cannot read: ${(e as Error).message}`);
    }
  }
  throw new Error(`guardtrace: LangChain tool "${t.name}" needs a zod 4 or JSON schema (zod 3 schemas are not supported)`);
}

/** The request's model name: its `model` / `modelName` field, else its class's LangChain name. */
function modelNameOf(model: unknown): string {
  const m = model as { model?: unknown; modelName?: unknown; getName?: () => string };
  if (typeof m.model === 'string') return m.model;
  if (typeof m.modelName === 'string') return m.modelName;
  return typeof m.getName === 'function' ? m.getName() : 'unknown';
}

function isToolCall(input: unknown): input is ToolCall {
  return typeof input === 'object' && input !== null && (input as { type?: unknown }).type === 'tool_call' && 'args' in input;
}

/** Runs one call of a tool (by name) through the session of `config`. */
type Route = (name: string, args: unknown, callId: string | undefined, config: RunnableConfig) => Promise<CallResult>;

/** A tool whose invoke runs through the session; the original runs inside as the registered execute. */
class GuardedTool extends StructuredTool {
  name: string;
  description: string;
  schema: StructuredToolInterface['schema'];
  readonly #route: Route;

  constructor(inner: Pick<StructuredToolInterface, 'name' | 'description' | 'schema' | 'returnDirect'>, route: Route) {
    super();
    this.name = inner.name;
    this.description = inner.description;
    this.schema = inner.schema;
    this.returnDirect = inner.returnDirect;
    this.#route = route;
  }

  // biome-ignore lint/suspicious/noExplicitAny: StructuredTool's own invoke signature is generic over its schema
  override async invoke(input: any, config?: RunnableConfig): Promise<any> {
    const call = isToolCall(input) ? input : undefined;
    const r = await this.#route(this.name, call ? call.args : input, call?.id, config ?? {});
    const content = modelText(r);
    if (!call?.id) return content;
    return new ToolMessage({ content, tool_call_id: call.id, name: this.name, status: r.ok ? 'success' : 'error' });
  }

  protected _call(): Promise<never> {
    return Promise.reject(new Error(`guardtrace: guarded tool "${this.name}" runs through invoke()`));
  }
}

/**
 * Registers the tools with Guardtrace and returns their guarded versions, plus the
 * `createAgent` middleware for unknown tool names and escalations.
 */
export function guardLangChainTools(gt: Guardtrace, tools: StructuredToolInterface[], opts: GuardLangChainToolsOptions): GuardedLangChainTools {
  // per session: the first failed call since the last model call, which the next one repairs
  const toRepair = new Map<string, CallFailure>();
  const sessions = new SessionMap(gt, opts.agentName, (session) => toRepair.delete(session.id));
  const scope = new InvocationScope<RunnableConfig>();
  const fallbackId = `lc_${crypto.randomUUID()}`;

  const keyOf = (config: RunnableConfig): SessionKey => {
    const configurable = config.configurable ?? {};
    const userId = opts.userId ? opts.userId(config) : typeof configurable.user_id === 'string' ? configurable.user_id : undefined;
    const thread = configurable.thread_id;
    if (typeof thread === 'string' || typeof thread === 'number') return { id: String(thread), userId };
    const own = opts.session?.(config);
    if (own) return own.userId === undefined && userId !== undefined ? { ...own, userId } : own;
    return { id: fallbackId, userId };
  };

  const route: Route = async (name, args, callId, config) => {
    const session = sessions.get(keyOf(config));
    const r = await scope.run(config, () => session.callTool(name, args, callId !== undefined ? { callId } : {}));
    if (!r.ok && !toRepair.has(session.id)) toRepair.set(session.id, r);
    return escalateOrReturn(r);
  };

  const guarded = tools.map((inner) => {
    const schema = zodOf(inner);
    const run = scope.execute(inner.name, async (args, _ctx, config) => {
      // the original runs with the caller's callbacks and configurable, as a plain call; its run's
      // metadata says Guardtrace records this execution (its attempt span), so a tracer of the
      // caller's callbacks that exports run metadata (OpenInference's `metadata`) marks its tool
      // span and the collector counts the call once, as it does the AI SDK's ai.toolCall
      const { toolCall: _drop, ...rest } = config as RunnableConfig & { toolCall?: unknown };
      const metadata = { ...rest.metadata, [ATTR_GUARDTRACE_RECORDED_AS]: OP_EXECUTE_TOOL, [ATTR_GUARDTRACE_RECORDED_TOOL]: inner.name };
      const out: unknown = await inner.invoke(args as never, { ...rest, metadata });
      return out instanceof ToolMessage ? out.content : out;
    });
    gt.tool(specOf(inner.name, inner.description, schema, run, opts.meta?.[inner.name]));
    return new GuardedTool(inner, route);
  });

  const middleware = createMiddleware({
    name: 'guardtrace',
    wrapToolCall: async (request, handler) => {
      if (request.tool !== undefined) return handler(request);
      // a name the model made up: run it as a guarded tool of that name, so the session
      // rejects it with the valid names (the model's correction continues the call) and an
      // escalation leaves the run the way a tool's error does
      const made = new GuardedTool({ name: request.toolCall.name, description: 'not a tool', schema: z.object({}), returnDirect: false }, route);
      return handler({ ...request, tool: made });
    },
    wrapModelCall: async (request, handler) => {
      const startTime = Date.now();
      const response = await handler(request);
      if (AIMessage.isInstance(response)) {
        const session = sessions.get(keyOf({ configurable: request.runtime.configurable ?? {} }));
        const meta = response.response_metadata as { model_name?: unknown; model_provider?: unknown } | undefined;
        const call: ModelCall = {
          model: typeof meta?.model_name === 'string' ? meta.model_name : modelNameOf(request.model),
          inputTokens: response.usage_metadata?.input_tokens ?? 0,
          outputTokens: response.usage_metadata?.output_tokens ?? 0,
          startTime,
        };
        // LangChain's input_tokens is the sum of every input token type; cache reads are one of them.
        const cached = response.usage_metadata?.input_token_details?.cache_read;
        if (cached) call.cachedInputTokens = cached;
        if (typeof meta?.model_provider === 'string') call.provider = meta.model_provider;
        const repairs = toRepair.get(session.id);
        if (repairs) call.repairs = repairs;
        toRepair.delete(session.id);
        session.recordModelCall(call);
      }
      return response;
    },
  });

  return { tools: guarded, middleware, sessions };
}
