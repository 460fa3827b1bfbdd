import {
  ATTR_GEN_AI_AGENT_ID,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID,
  ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS,
  ATTR_GUARDTRACE_REPAIR_TOKENS,
  ATTR_GUARDTRACE_SAMPLING_WEIGHT,
  ATTR_GUARDTRACE_SESSION_OUTCOME,
  ATTR_GUARDTRACE_STEP_SEQUENCE,
  ATTR_GUARDTRACE_USER_ID,
  ATTR_GUARDTRACE_VERSION,
  type FailureClass,
  OP_CHAT,
  OP_INVOKE_AGENT,
  type SessionOutcome,
} from '@guardtrace/semconv';
import type { Context, Span } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import type { RecordedAttempt } from './record.ts';
import { type Runtime, SCHEMA_VERSION } from './runtime.ts';
import { samplingWeight, sessionHash } from './sampling.ts';
import { SessionBook } from './session-book.ts';
import { type CallSpanOptions, checkSpanOptions } from './span-options.ts';
import { type CallScope, ToolCall } from './tool-call.ts';
import type { CallResult, ModelCall, RepairRef, ToolFlags } from './types.ts';

export interface SessionOptions {
  /** Session id (`gen_ai.conversation.id` on every span); generated when omitted. */
  id?: string;
  agentName: string;
  agentId?: string;
  /** The user the session runs for: the repair-token budget is per user. */
  userId?: string;
  /** Parent context for the root span (default: the active context). */
  parent?: Context;
}

/** A tool call your own loop ran, recorded as it happened (instrument-only API). */
export interface RecordedToolCall extends CallOptions {
  flags?: ToolFlags;
  description?: string;
  attempts: RecordedAttempt[];
  /** Final value of a successful call (not exported; returned in the result). */
  value?: unknown;
  idempotencyKey?: string;
}

export interface CallOptions {
  /** Tool call id given by the model. */
  callId?: string;
  /** Intent id: the idempotency key is made from it, and a call with the same intent continues a rejected call. */
  intentId?: string;
  /**
   * Shape of the call's spans, for adapters (name, kind, extra attributes). A call that
   * continues a waiting one keeps that call's span (its name, kind and attributes); only
   * its own `attemptAttributes` apply, to the attempts it makes.
   */
  span?: CallSpanOptions;
  /**
   * Opaque per-call data handed to the tool as `ctx.meta` (never recorded on a span): what the
   * tool needs from the request that is not a model argument. A corrected call that continues
   * a waiting one brings its own `meta` to the attempts it makes.
   */
  meta?: unknown;
  /**
   * `false`: no auto-repair for this call, when the arguments are not the model's own (an
   * adapter's placeholder for a framework that does not hand them over).
   */
  autoRepair?: false;
  /**
   * `true`: the arguments passed are an adapter's stand-in for arguments the framework did not
   * hand over (the OpenAI Agents SDK's unknown tool name): the attempts made with them record no
   * arguments (the replay says none were recorded, rather than showing the stand-in as the
   * model's), and are never repaired in code.
   */
  argumentsUnknown?: true;
}

/** Token totals of a session; repair tokens are broken down by the failure class they repaired. */
export interface TokenTotals {
  input: number;
  output: number;
  repair: number;
  repairByClass: Partial<Record<FailureClass, number>>;
}

function repairRefOf(r: NonNullable<ModelCall['repairs']>): RepairRef | undefined {
  if ('ok' in r) {
    const last = r.attempts.at(-1);
    return last ? { spanId: last.spanId, failureClass: last.failureClass ?? r.failureClass } : undefined;
  }
  if ('attempt' in r) return r.failureClass ? { spanId: r.spanId, failureClass: r.failureClass } : undefined;
  return r;
}

/**
 * The state and logic of one session. Internal: users hold a `Session`, which keeps this in a
 * private field, so budgets, counters and fingerprints cannot be read or changed from outside
 * the SDK. The bookkeeping is the session's book; its tool calls report to it.
 */
export class SessionCore {
  readonly id: string;
  readonly agentName: string;
  readonly userId: string | undefined;
  readonly rt: Runtime;
  readonly span: Span;
  readonly tokens: TokenTotals = { input: 0, output: 0, repair: 0, repairByClass: {} };
  readonly #book: SessionBook<ToolCall>;
  readonly #scope: CallScope;
  #ended: SessionOutcome | undefined;

  constructor(rt: Runtime, opts: SessionOptions) {
    this.rt = rt;
    this.id = opts.id ?? `sess_${crypto.randomUUID()}`;
    this.agentName = opts.agentName;
    this.userId = opts.userId;
    this.span = rt.telemetry.start(`${OP_INVOKE_AGENT} ${opts.agentName}`, {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_INVOKE_AGENT,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.id,
      [ATTR_GEN_AI_AGENT_NAME]: opts.agentName,
      [ATTR_GEN_AI_AGENT_ID]: opts.agentId,
      [ATTR_GUARDTRACE_USER_ID]: opts.userId,
      [ATTR_GUARDTRACE_VERSION]: SCHEMA_VERSION,
    }, opts.parent, undefined, SpanKind.INTERNAL);
    this.#book = new SessionBook(rt, this.id, this.userId ?? `session:${this.id}`);
    let sampledIn: boolean | undefined;
    // asked only under capture 'failures', once per session: the same decision as tail sampling's
    const contentSampled = (): boolean => (sampledIn ??= sessionHash(this.id) < rt.cleanSessionRate());
    this.#scope = { rt, sessionId: this.id, span: this.span, book: this.#book, contentSampled, definitionsSent: new Set() };
  }

  /**
   * Starts a new task inside the session: the rejections-per-task budget starts over. The
   * session's other budgets, and the rule that a rejection is never sent twice, carry on.
   */
  startTask(): void {
    this.#book.startTask();
  }

  /**
   * Instrument-only: records a tool call your own loop ran (its attempts and guard results)
   * as an `execute_tool` span tree, without running anything.
   */
  recordToolCall(name: string, rec: RecordedToolCall): CallResult {
    // the call spans its recorded attempts (their times, when given), not the moment it is recorded
    const starts = rec.attempts.flatMap((a) => (a.startTime !== undefined ? [a.startTime] : []));
    const ends = rec.attempts.flatMap((a) => (a.endTime !== undefined ? [a.endTime] : []));
    const call = new ToolCall(this.#scope, name, starts.length > 0 ? { ...rec, startTime: Math.min(...starts) } : rec);
    for (const a of rec.attempts) call.recordAttempt(a);
    const final: { value?: unknown; idempotencyKey?: string; endTime?: number } = { value: rec.value };
    if (rec.idempotencyKey) final.idempotencyKey = rec.idempotencyKey;
    if (ends.length > 0) final.endTime = Math.max(...ends);
    return call.end(final);
  }

  /**
   * Opens a logical tool call; pass the model's arguments to `.attempt()` (guarded run) or
   * `.recordAttempt()` (instrument-only), then `.end()` if it is still open.
   */
  toolCall(name: string, opts: CallOptions & { flags?: ToolFlags; description?: string } = {}): ToolCall {
    return new ToolCall(this.#scope, name, opts);
  }

  /**
   * One-shot call. If a call of this session is waiting for the model's correction and this
   * call has the same intent id, else the same call id, else (no intent id given) the same tool
   * name whatever its call id, it continues that call as its next attempt; otherwise it opens
   * a new call.
   */
  async callTool(name: string, rawArgs: unknown, opts: CallOptions = {}): Promise<CallResult> {
    const span = opts.span;
    if (span !== undefined) checkSpanOptions(span, name);
    const waiting = this.#book.takeWaiting(name, opts);
    if (waiting) {
      // the waiting call keeps its span; the attempts this call makes carry this call's attributes
      const attemptAttributes = span?.attemptAttributes;
      const more = opts.callId !== undefined ? { callId: opts.callId, tool: name, attemptAttributes } : { tool: name, attemptAttributes };
      const withMeta = 'meta' in opts ? { ...more, meta: opts.meta } : more;
      const repair = opts.autoRepair === false ? { ...withMeta, autoRepair: false as const } : withMeta;
      return waiting.attempt(rawArgs, opts.argumentsUnknown === true ? { ...repair, argumentsUnknown: true } : repair);
    }
    return this.toolCall(name, opts).attempt(rawArgs, opts.argumentsUnknown === true ? { argumentsUnknown: true } : {});
  }

  /**
   * Takes the session's next step number now, for a model turn recorded later (when it ends,
   * after the tool calls it asked for ran): pass it to `recordModelCall`, so the turn keeps its
   * place before those calls. For the SDK's integrations.
   */
  reserveStep(): number {
    return this.#book.nextStep();
  }

  /**
   * Records a model call (`chat {model}` span). A call that repairs a failed attempt adds repair
   * tokens to that class and to the user's window. `step` is a number from `reserveStep()`;
   * without it the turn takes the next step number now.
   */
  recordModelCall(m: ModelCall, step?: number): { spanId: string } {
    const t = this.rt.telemetry;
    const ref = m.repairs ? repairRefOf(m.repairs) : undefined;
    const total = m.inputTokens + m.outputTokens;
    this.tokens.input += m.inputTokens;
    this.tokens.output += m.outputTokens;
    if (ref) {
      this.tokens.repair += total;
      this.tokens.repairByClass[ref.failureClass] = (this.tokens.repairByClass[ref.failureClass] ?? 0) + total;
      this.rt.ledger.add(this.#book.user, total, this.rt.clock.now());
    }
    const span = t.start(`${OP_CHAT} ${m.model}`, {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_CHAT,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.id,
      [ATTR_GEN_AI_REQUEST_MODEL]: m.model,
      [ATTR_GEN_AI_RESPONSE_MODEL]: m.responseModel,
      [ATTR_GEN_AI_PROVIDER_NAME]: m.provider,
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: m.inputTokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: m.outputTokens,
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: m.cachedInputTokens || undefined,
      [ATTR_GUARDTRACE_REPAIR_ATTEMPT_SPAN_ID]: ref?.spanId || undefined,
      [ATTR_GUARDTRACE_REPAIR_FAILURE_CLASS]: ref?.failureClass,
      [ATTR_GUARDTRACE_REPAIR_TOKENS]: ref ? total : undefined,
      [ATTR_GUARDTRACE_STEP_SEQUENCE]: step ?? this.#book.nextStep(),
    }, this.span, m.startTime, SpanKind.CLIENT);
    const spanId = t.spanId(span);
    t.end(span, m.endTime !== undefined ? { endTime: m.endTime } : {});
    return { spanId };
  }

  /** Whether the session has ended, and how. */
  get outcome(): SessionOutcome | undefined {
    return this.#ended;
  }

  /**
   * Ends open calls and the root span. Without an explicit outcome: `escalated` if any call
   * went to a human or to reconciliation, `failed` if one aborted or was left uncorrected,
   * else `success`. Safe to call twice.
   */
  async end(outcome?: SessionOutcome): Promise<SessionOutcome> {
    if (this.#ended) return this.#ended;
    const closed = this.#book.close();
    const final: SessionOutcome = outcome ?? closed.outcome;
    this.#ended = final;
    this.rt.telemetry.set(this.span, {
      [ATTR_GUARDTRACE_SESSION_OUTCOME]: final,
      [ATTR_GUARDTRACE_SAMPLING_WEIGHT]: samplingWeight(this.id, final === 'success' && closed.clean, this.rt.cleanSessionRate()),
    });
    this.rt.telemetry.end(this.span, final === 'success' ? {} : { error: final });
    return final;
  }
}

let coreOfSession: (session: Session) => SessionCore;

/** The core behind a session, for the SDK's own integrations (not exported by the package). */
export function sessionCore(session: Session): SessionCore {
  return coreOfSession(session);
}

/** One agent session: the `invoke_agent` root span, its budgets, and its tool calls. */
export class Session {
  readonly #core: SessionCore;

  /** @internal Sessions are made by `guardtrace.session(opts)`. */
  constructor(core: SessionCore) {
    this.#core = core;
  }

  static {
    coreOfSession = (session) => session.#core;
  }

  /** Session id (`gen_ai.conversation.id` on every span). */
  get id(): string {
    return this.#core.id;
  }
  get agentName(): string {
    return this.#core.agentName;
  }
  get userId(): string | undefined {
    return this.#core.userId;
  }
  /** Token totals so far (a snapshot). */
  get tokens(): TokenTotals {
    const t = this.#core.tokens;
    return { ...t, repairByClass: { ...t.repairByClass } };
  }
  /** Whether the session has ended, and how. */
  get outcome(): SessionOutcome | undefined {
    return this.#core.outcome;
  }

  /**
   * Starts a new task inside the session: the rejections-per-task budget starts over. The
   * session's other budgets, and the rule that a rejection is never sent twice, carry on.
   */
  startTask(): void {
    this.#core.startTask();
  }

  /**
   * Instrument-only: records a tool call your own loop ran (its attempts and guard results)
   * as an `execute_tool` span tree, without running anything.
   */
  recordToolCall(name: string, rec: RecordedToolCall): CallResult {
    return this.#core.recordToolCall(name, rec);
  }

  /**
   * Opens a logical tool call; pass the model's arguments to `.attempt()` (guarded run) or
   * `.recordAttempt()` (instrument-only), then `.end()` if it is still open.
   */
  toolCall(name: string, opts: CallOptions & { flags?: ToolFlags; description?: string } = {}): ToolCall {
    return this.#core.toolCall(name, opts);
  }

  /**
   * One-shot call. If a call of this session is waiting for the model's correction and this
   * call has the same intent id, else the same call id, else (no intent id given) the same tool
   * name whatever its call id, it continues that call as its next attempt; otherwise it opens
   * a new call.
   */
  callTool(name: string, rawArgs: unknown, opts: CallOptions = {}): Promise<CallResult> {
    return this.#core.callTool(name, rawArgs, opts);
  }

  /** Records a model call (`chat {model}` span). A call that repairs a failed attempt adds repair tokens to that class and to the user's window. */
  recordModelCall(m: ModelCall): { spanId: string } {
    return this.#core.recordModelCall(m);
  }

  /**
   * Ends open calls and the root span. Without an explicit outcome: `escalated` if any call
   * went to a human or to reconciliation, `failed` if one aborted or was left uncorrected,
   * else `success`. Safe to call twice.
   */
  end(outcome?: SessionOutcome): Promise<SessionOutcome> {
    return this.#core.end(outcome);
  }
}
