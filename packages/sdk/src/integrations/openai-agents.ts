/**
 * OpenAI Agents SDK (`@openai/agents`) integration: tool definitions (what you pass to its
 * `tool()`) become function tools whose every call runs through a Guardtrace session: schema
 * guard from the zod `parameters`, the tool's guards, policy and budgets. Rejections go back
 * to the model as the tool's output (sanitized feedback); an unknown tool name comes back with
 * the valid names; an escalation fails `run()` with {@link GuardtraceEscalation} (as the
 * `.error` of the SDK's `ToolCallError` when a tool call escalates).
 *
 * ```ts
 * const guarded = guardAgentsTools(gt, [getWeatherDef], { agentName: 'weather' });
 * const agent = new Agent({ name: 'weather', tools: guarded.tools });
 * await run(agent, 'Weather in Paris?', guarded.runOptions);
 * await guarded.sessions.end();
 * ```
 *
 * Session: the run's trace group id (a conversation), else its trace id, else one session per
 * run; `session` picks your own.
 */
import { type CallModelInputFilter, type FunctionTool, getCurrentTrace, type RunContext, type ToolErrorFormatter, tool } from '@openai/agents';
import { z } from 'zod';
import type { Guardtrace } from '../guardtrace.ts';
import type { CallOptions, Session } from '../session.ts';
import type { CallFailure, ModelCall } from '../types.ts';
import { escalateOrReturn, GuardtraceEscalation, InvocationScope, type SessionKey, SessionMap, specOf, type ToolMeta } from './adapter.ts';
import { modelText } from './model-text.ts';

export type { SessionKey, ToolMeta };
export { GuardtraceEscalation, SessionMap };

/** Per-call details the SDK passes to a tool (the model's function call, abort signal). */
export type ToolCallDetails = Parameters<FunctionTool['invoke']>[2];

/** A tool definition as `tool()` takes it, with a zod object as `parameters`. */
export type AgentsToolDef<TContext = unknown> = Omit<Parameters<typeof tool<z.ZodObject, TContext>>[0], 'name' | 'parameters' | 'execute'> & {
  name: string;
  parameters: z.ZodObject;
  // biome-ignore lint/suspicious/noExplicitAny: mirrors the Agents SDK's own loosely typed execute
  execute: (input: any, runContext?: RunContext<TContext>, details?: ToolCallDetails) => unknown;
};

export interface GuardAgentsToolsOptions<TContext = unknown> {
  /** `gen_ai.agent.name` of the sessions. */
  agentName: string;
  /** Flags, guards, reconcile hooks and policy per tool name. */
  meta?: Record<string, ToolMeta>;
  /** The session of a run (default: the trace's group id, else its trace id, else one per run context). */
  session?: (runContext: RunContext<TContext>) => SessionKey | undefined;
  /** The user a run is for (the repair-token budget is per user). */
  userId?: (runContext: RunContext<TContext>) => string | undefined;
  /**
   * `gen_ai.request.model` of the recorded model calls when the agent names none as a string (a
   * `Model` object, or the Runner's default model, which the tools cannot see); default "unknown".
   * An agent created with `model: 'gpt-4.1'` is recorded as that model (after a handoff, the model
   * of the agent that made the request).
   */
  model?: string;
  /** `gen_ai.provider.name` of the recorded model calls (default "openai"). */
  provider?: string;
}

export interface GuardedAgentsTools<TContext = unknown> {
  /** Function tools for `new Agent({ tools })`. */
  tools: FunctionTool<TContext>[];
  /** Spread into `run()` / `Runner` options: an unknown tool name goes through the guards instead of failing the run. */
  runOptions: {
    toolNotFoundBehavior: 'return_error_to_model';
    toolErrorFormatter: ToolErrorFormatter<TContext>;
    callModelInputFilter: CallModelInputFilter<TContext>;
  };
  /**
   * The Guardtrace sessions opened by runs; `end()` them when the conversation is over (the
   * model calls not yet recorded are recorded then).
   */
  sessions: SessionMap;
}

/** What a run context's usage was when its model calls were last recorded. */
interface UsageMark {
  requests: number;
  input: number;
  output: number;
  /** Its per-request usage entries then (`usage.requestUsageEntries`). */
  entries: number;
  /** Its input token details then (`usage.inputTokensDetails`, one per request). */
  details: number;
}

/** Prompt-cache reads in input token details (`cached_tokens`, part of the input tokens). */
function cachedTokens(details: readonly (Record<string, number> | undefined)[]): number {
  let n = 0;
  for (const d of details) n += typeof d?.cached_tokens === 'number' ? d.cached_tokens : 0;
  return n;
}

const withCached = (cached: number): { cachedInputTokens?: number } => (cached > 0 ? { cachedInputTokens: cached } : {});

/** Traces whose agent's model is remembered at once (runs that call no tool are never cleaned up otherwise). */
const MAX_TRACKED_TRACES = 10_000;

interface Invocation<TContext> {
  runContext: RunContext<TContext>;
  details: ToolCallDetails | undefined;
}

/**
 * Registers the definitions with Guardtrace and returns their guarded function tools, plus
 * the run options that route unknown tool names through the session.
 */
export function guardAgentsTools<TContext = unknown>(
  gt: Guardtrace,
  defs: AgentsToolDef<TContext>[],
  opts: GuardAgentsToolsOptions<TContext>,
): GuardedAgentsTools<TContext> {
  const scope = new InvocationScope<Invocation<TContext>>();
  const runIds = new WeakMap<object, string>();
  // Model calls are recorded from the run's usage, which the SDK adds up per model request:
  // what was added since the last mark is the model call(s) since then, recorded when a tool
  // is called and when the session ends. The first failed call since then is what they repair.
  const marks = new WeakMap<RunContext<TContext>, UsageMark>();
  const lastRun = new Map<string, RunContext<TContext>>();
  const toRepair = new Map<string, CallFailure>();

  // The model each request was made with, as its agent names it (callModelInputFilter sees the
  // agent before every model request), found again by the run's trace or context object; kept per
  // session for the calls recorded when it ends, outside the run.
  const modelByTrace = new Map<string, string>();
  const modelByContext = new WeakMap<object, string>();
  const sessionModel = new Map<string, string>();
  // With tracing on, the model of each request of a run, in order (a run is a trace of its own):
  // the run's per-request usage entries are named by it, so a handoff's requests keep their models.
  const requestModels = new Map<string, string[]>();
  const runTrace = new WeakMap<RunContext<TContext>, string>();
  const recordModelCalls = (session: Session, runContext: RunContext<TContext>): void => {
    const traceId = currentTraceId() ?? runTrace.get(runContext);
    if (traceId !== undefined) runTrace.set(runContext, traceId);
    const ctx = runContext.context;
    const seen = (traceId !== undefined ? modelByTrace.get(traceId) : undefined) ?? (typeof ctx === 'object' && ctx !== null ? modelByContext.get(ctx) : undefined);
    if (seen !== undefined) sessionModel.set(session.id, seen);
    const u = runContext.usage;
    const mark = marks.get(runContext) ?? { requests: 0, input: 0, output: 0, entries: 0, details: 0 };
    if (u.requests <= mark.requests) return;
    const fallback = sessionModel.get(session.id) ?? opts.model ?? 'unknown';
    const provider = opts.provider ?? 'openai';
    const entries = u.requestUsageEntries ?? [];
    // One call per request when the usage has an entry for each new request; else (a provider that
    // reports no per-request usage) what was added since the mark, as one call.
    const calls: ModelCall[] =
      entries.length - mark.entries === u.requests - mark.requests
        ? entries.slice(mark.entries).map((e, i) => ({
            model: (traceId !== undefined ? requestModels.get(traceId)?.[mark.entries + i] : undefined) ?? fallback,
            provider,
            inputTokens: e.inputTokens,
            outputTokens: e.outputTokens,
            ...withCached(cachedTokens([e.inputTokensDetails])),
          }))
        : [
            {
              model: fallback,
              provider,
              inputTokens: u.inputTokens - mark.input,
              outputTokens: u.outputTokens - mark.output,
              ...withCached(cachedTokens(u.inputTokensDetails.slice(mark.details))),
            },
          ];
    // the first failed call since the last model call is what the next one repairs
    const repairs = toRepair.get(session.id);
    if (repairs && calls[0]) calls[0].repairs = repairs;
    toRepair.delete(session.id);
    for (const c of calls) session.recordModelCall(c);
    marks.set(runContext, { requests: u.requests, input: u.inputTokens, output: u.outputTokens, entries: entries.length, details: u.inputTokensDetails.length });
  };

  // An escalation met while answering an unknown tool name cannot be thrown there (the SDK
  // swallows toolErrorFormatter errors and answers with its default text): it is kept and
  // thrown before the session's next model call (callModelInputFilter, which finds the
  // session by the current trace or the run's context object) or its next tool call.
  const pending = new Map<string, GuardtraceEscalation>();
  const byTrace = new Map<string, string>();
  const byContext = new WeakMap<object, string>();
  const throwPending = (sessionId: string | undefined): void => {
    const e = sessionId === undefined ? undefined : pending.get(sessionId);
    if (e === undefined || sessionId === undefined) return;
    pending.delete(sessionId);
    throw e;
  };
  const currentTraceId = (): string | undefined => {
    const trace = getCurrentTrace();
    return trace && trace.traceId !== 'no-op' ? trace.traceId : undefined;
  };

  const sessions = new SessionMap(gt, opts.agentName, (session) => {
    const runContext = lastRun.get(session.id);
    if (runContext) recordModelCalls(session, runContext);
    lastRun.delete(session.id);
    sessionModel.delete(session.id);
    toRepair.delete(session.id);
    pending.delete(session.id);
    for (const [trace, id] of byTrace) {
      if (id !== session.id) continue;
      byTrace.delete(trace);
      modelByTrace.delete(trace);
      requestModels.delete(trace);
    }
  });

  const keyOf = (runContext: RunContext<TContext>): SessionKey => {
    const userId = opts.userId?.(runContext);
    const own = opts.session?.(runContext);
    if (own) return own.userId === undefined && userId !== undefined ? { ...own, userId } : own;
    const trace = getCurrentTrace();
    let id = trace && trace.traceId !== 'no-op' ? (trace.groupId ?? trace.traceId) : undefined;
    if (id === undefined) {
      id = runIds.get(runContext) ?? `run_${crypto.randomUUID()}`;
      runIds.set(runContext, id);
    }
    return { id, userId };
  };

  const call = async (runContext: RunContext<TContext>, name: string, input: unknown, details?: ToolCallDetails, placeholder = false): Promise<string> => {
    const session = sessions.get(keyOf(runContext));
    throwPending(session.id);
    // a new run of the conversation (the same groupId): the last run's calls not recorded yet first
    const previous = lastRun.get(session.id);
    if (previous !== undefined && previous !== runContext) recordModelCalls(session, previous);
    recordModelCalls(session, runContext);
    lastRun.set(session.id, runContext);
    const traceId = currentTraceId();
    if (traceId !== undefined) byTrace.set(traceId, session.id);
    if (typeof runContext.context === 'object' && runContext.context !== null) byContext.set(runContext.context, session.id);
    const callId = details?.toolCall?.callId;
    const opts: CallOptions = callId !== undefined ? { callId } : {};
    // arguments the adapter made up are never run under a corrected tool name
    if (placeholder) {
      opts.autoRepair = false;
      // nor recorded as what the model sent: the SDK hands over no arguments for a made-up name
      opts.argumentsUnknown = true;
    }
    const r = await scope.run({ runContext, details }, () => session.callTool(name, input, opts));
    if (!r.ok && !toRepair.has(session.id)) toRepair.set(session.id, r);
    return modelText(escalateOrReturn(r));
  };

  const tools = defs.map((def) => {
    if (!(def.parameters instanceof z.ZodType)) {
      throw new Error(`guardtrace: Agents SDK tool "${def.name}" needs a zod 4 object as "parameters" (the schema guard validates with it)`);
    }
    const body = def.execute;
    gt.tool(
      specOf(def.name, def.description, def.parameters, scope.execute(def.name, (args, _ctx, inv) => body(args, inv.runContext, inv.details)), opts.meta?.[def.name]),
    );
    // the SDK's own tool() gives the model-facing schema and settings; the guarded invoke
    // replaces its parsing and error handling, so a wrong call reaches the schema guard
    const ft = tool<z.ZodObject, TContext>({ ...def, execute: body } as Parameters<typeof tool<z.ZodObject, TContext>>[0]);
    const guarded: FunctionTool<TContext> = {
      ...(ft as unknown as FunctionTool<TContext>),
      invoke: (runContext, input, details) => call(runContext, def.name, input, details),
    };
    return guarded;
  });

  const toolErrorFormatter: ToolErrorFormatter<TContext> = async (a) => {
    if (a.kind !== 'tool_not_found') return undefined;
    try {
      // the SDK gives no arguments here: the name is what is wrong
      return await call(a.runContext, a.toolName, {}, { toolCall: { type: 'function_call', callId: a.callId, name: a.toolName, arguments: '{}' } }, true);
    } catch (e) {
      if (!(e instanceof GuardtraceEscalation)) throw e;
      pending.set(keyOf(a.runContext).id, e);
      return e.result.feedback;
    }
  };

  const callModelInputFilter: CallModelInputFilter<TContext> = ({ modelData, agent, context }) => {
    const traceId = currentTraceId();
    const model = typeof agent.model === 'string' && agent.model !== '' ? agent.model : undefined;
    if (traceId !== undefined) {
      // this request's model, by its place in the run (a Model object's: the option's, or unknown)
      if (!requestModels.has(traceId) && requestModels.size >= MAX_TRACKED_TRACES) requestModels.delete(requestModels.keys().next().value as string);
      const list = requestModels.get(traceId) ?? [];
      list.push(model ?? opts.model ?? 'unknown');
      requestModels.set(traceId, list);
    }
    if (model !== undefined) {
      if (traceId !== undefined) {
        // runs that never call a tool open no session to clean up after: keep the newest only
        if (modelByTrace.size >= MAX_TRACKED_TRACES) modelByTrace.delete(modelByTrace.keys().next().value as string);
        modelByTrace.set(traceId, model);
      }
      if (typeof context === 'object' && context !== null) modelByContext.set(context, model);
    }
    throwPending(traceId !== undefined ? byTrace.get(traceId) : undefined);
    throwPending(typeof context === 'object' && context !== null ? byContext.get(context) : undefined);
    return modelData;
  };

  return { tools, runOptions: { toolNotFoundBehavior: 'return_error_to_model', toolErrorFormatter, callModelInputFilter }, sessions };
}
