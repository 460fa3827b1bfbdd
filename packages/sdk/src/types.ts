import type { Attributes } from '@opentelemetry/api';
import type {
  AutoRepairKind,
  Decision,
  EscalationReason,
  FailureClass,
  GuardStage,
  Outcome,
  ReconcileStatus,
} from '@guardtrace/semconv';
import type { z } from 'zod';

/** What a tool does to the world. The policy reads these; the model never decides whether its own retry is safe. */
export interface ToolFlags {
  /** Only reads. Implies idempotent. */
  readOnly?: boolean;
  /** Repeating the call has no further effect (classify by business effect, not by HTTP verb). */
  idempotent?: boolean;
  /** Destroys or overwrites data. */
  destructive?: boolean;
  /** Reaches a system outside the process (network, payment provider, ...). */
  external?: boolean;
}

/** Per-class retry policy. */
export interface ClassPolicy {
  /** Retries allowed for this class within one logical call (model-corrected or automatic). */
  retries: number;
  /** Decision while retries remain. */
  decision: Decision;
  /** Decision once the class's retries are used up. */
  onExhausted: Decision;
  /**
   * The progress rule (classes the model corrects): while the model's corrections shrink the
   * failing JSON pointers, neither `retries`, the attempt cap nor the rejection budget stops
   * the call; it ends at `maxCorrections` corrections (`corrections_per_call`). Unset or 0: no
   * progress rule, `retries` decides. The rule applies only to attempts whose progress can be
   * measured (both failing attempts name their pointers, or the class changed).
   */
  maxCorrections?: number;
  /** Corrections in a row whose failing pointers do not shrink before escalating (`no_progress`). Default 1. */
  noProgressAfter?: number;
  /**
   * Automatic retries (`retry_backoff`): the waits before the last attempt the caps allow add
   * up to at least this many ms (within the latency budget left), so an outage escalates no
   * earlier than a framework's own code-level retries would have got through. Unset or 0: none.
   */
  retryWindowMs?: number;
}

export type PolicyTable = Record<FailureClass, ClassPolicy>;
export type PolicyOverrides = Partial<Record<FailureClass, Partial<ClassPolicy>>>;

/** Exponential backoff with full jitter: wait = random() * min(maxMs, baseMs * factor^retryIndex). */
export interface BackoffConfig {
  baseMs: number;
  maxMs: number;
  factor: number;
}

/** Clock, sleep and randomness, injectable so tests and simulations are deterministic. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

/** Result of a tool's reconcile hook, asked after an uncertain side effect. */
export type ReconcileResult =
  | { status: 'committed'; value?: unknown }
  | { status: 'not_committed' }
  | { status: 'unknown'; detail?: string };

export interface GuardPass {
  pass: true;
  /** Called when the attempt ends (success or not): release a lock, drop a snapshot. */
  release?: () => void | Promise<void>;
}
export interface GuardFail {
  pass: false;
  /** Short reason, recorded on the guard span. */
  reason: string;
  /** Text for the model; defaults to `reason`. Sanitized before use. */
  feedback?: string;
  /** Failure class; defaults to `guard_violation`. */
  failureClass?: FailureClass;
  /** Bounded list of valid options offered to the model (enum exhaustion). */
  candidates?: string[];
  /** JSON pointers (RFC 6901) into the arguments of the fields at fault, e.g. `/items/3/qty`, when the guard knows them. */
  pointers?: string[];
  /**
   * The one sound correction, when the guard knows it: the value at `pointer` in the arguments
   * (`from`, what the model sent) replaced by `to`. The files guard sets it when a missing path
   * has exactly one candidate; the runtime applies it without a model turn (`autoRepair.paths`).
   */
  repair?: { pointer: string; from: string; to: string };
}
export type GuardOutcome = GuardPass | GuardFail;

export interface GuardContext {
  tool: string;
  sessionId: string;
  callId: string;
  attempt: number;
  idempotencyKey: string;
  /** Holder id used by locks: `${sessionId}/${callId}`. */
  holder: string;
  /** Tool result, set for post-execution guards. */
  result?: unknown;
  /** Value returned by the guard's `prepare` hook for this attempt. */
  prepared?: unknown;
  /** Per-resource lock table shared by every session of the Guardtrace instance. */
  locks: LockTableLike;
}

export interface LockTableLike {
  acquire(resource: string, holder: string): { ok: true } | { ok: false; holder: string };
  release(resource: string, holder: string): void;
}

/** A pluggable guard. Logical guards run before execution, post-execution guards after it. */
// biome-ignore lint/suspicious/noExplicitAny: a guard list mixes guards over different argument types
export interface Guard<A = any> {
  name: string;
  /** `logical` (default) or `post_execution`. */
  stage?: Extract<GuardStage, 'logical' | 'post_execution'>;
  /**
   * The options that decide the guard's verdicts, in a JSON-safe form (functions by name, see
   * `toolDefinition`): part of the tool definition's fingerprint, so a changed option shows in a
   * replay as `guard <name>: option <key> changed old → new`. Leave out what is deployment, not
   * behaviour (the workspace root), so production and CI hash alike.
   */
  options?: unknown;
  /** Runs before execution for post-execution guards (e.g. snapshot files to roll back). */
  prepare?(args: A, ctx: GuardContext): unknown | Promise<unknown>;
  check(args: A, ctx: GuardContext): GuardOutcome | Promise<GuardOutcome>;
}

export interface ToolContext {
  idempotencyKey: string;
  attempt: number;
  callId: string;
  sessionId: string;
  /** Aborted when the tool's timeoutMs elapses. */
  signal: AbortSignal;
  /** Adds attributes to this attempt's `guardtrace.attempt` span (e.g. what an upstream server answered). Never throws. */
  setAttributes(attrs: Attributes): void;
  /**
   * The caller's opaque per-call data (`CallOptions.meta`, or the `meta` of the corrected call
   * this attempt runs for): whatever the tool needs from the request that is not an argument,
   * such as an MCP request's `_meta` and a progress callback. Never recorded on a span.
   */
  readonly meta: unknown;
}

/**
 * Repair in code, without a model turn, of mistakes with exactly one sound correction:
 * `true` / `false` for all kinds, or per kind (a kind left out keeps its default).
 */
/**
 * Which tool-call content (`gen_ai.tool.call.arguments` / `gen_ai.tool.call.result`) goes on
 * attempt spans: `all`, every attempt; `failures`, the attempts of calls that had a failed or
 * auto-repaired attempt, and every call of a clean session sampled in at the project's
 * `sampling.cleanSessionRate` (default); `none`, no content (failure classes, pointers and
 * decisions stay).
 */
export type CaptureMode = 'all' | 'failures' | 'none';

export type AutoRepairSetting = boolean | { argumentNames?: boolean; toolNames?: boolean; paths?: boolean };

/** A mistake the runtime corrected in code before running the call (see `autoRepair`). */
export interface Correction {
  kind: AutoRepairKind;
  /** What the model sent: the argument name, tool name or path. */
  from: string;
  /** What the call ran with instead. */
  to: string;
  /** JSON pointers into the repaired arguments of what changed (empty for a tool name). */
  pointers: string[];
  /** One line for the model: "called `search_files`; `search_codebase` does not exist". */
  text: string;
}

export interface ToolSpec<S extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  description: string;
  schema: S;
  flags?: ToolFlags;
  guards?: Guard<NoInfer<z.output<S>>>[];
  execute: (args: z.output<S>, ctx: ToolContext) => R | Promise<R>;
  /** Asked after an uncertain side effect, with the call's idempotency key. */
  reconcile?: (idempotencyKey: string, args: z.output<S>) => ReconcileResult | Promise<ReconcileResult>;
  /** Aborts and classifies the attempt as a timeout after this many ms. */
  timeoutMs?: number;
  /** Per-class overrides for this tool. */
  policy?: PolicyOverrides;
  /** Hard cap of attempts for one call of this tool (default: budgets.maxAttemptsPerCall). */
  maxAttempts?: number;
  /** Tool proposed when the circuit is open or a class says `fallback_tool`. */
  fallbackTool?: string;
  /**
   * Discovery before replanning: when a call of this tool ends in `replan` (403, missing
   * resource), the runtime runs this read-only tool and adds its answer to the feedback, so
   * the model's next turn has the information instead of guessing.
   */
  discover?: { tool: string; args?: (args: NoInfer<z.output<S>>) => unknown };
  /** Picks the fields that identify the intent for the idempotency key (default: all arguments). */
  idempotencyArgs?: (args: z.output<S>) => unknown;
  /** `reject` (default): unknown argument names are an error, never silently dropped. */
  unknownKeys?: 'reject' | 'strip';
  /**
   * Auto-repair for calls of this tool (overrides the global `autoRepair`). Default: on for a
   * read-only or idempotent tool, off otherwise; a tool that is neither runs with arguments
   * the model did not send only when it opts in here.
   */
  autoRepair?: AutoRepairSetting;
  /** Content capture for calls of this tool (overrides the global `capture`). */
  capture?: CaptureMode;
}

export interface GuardRecord {
  name: string;
  stage: GuardStage;
  verdict: 'pass' | 'fail';
  reason?: string;
  durationUs: number;
  candidates?: string[];
  /** JSON pointers of the fields at fault (failed guards that know them). */
  pointers?: string[];
}

/** One attempt of a logical tool call, as recorded. */
export interface AttemptRecord {
  attempt: number;
  tool: string;
  callId: string;
  /** Arguments as the model sent them (sanitized JSON text). */
  args: string;
  outcome: Outcome;
  failureClass?: FailureClass;
  decision: Decision;
  feedback?: string;
  backoffMs?: number;
  errorType?: string;
  escalationReason?: EscalationReason;
  guards: GuardRecord[];
  durationMs: number;
  /** Span id of the attempt span (empty when tracing is off); a repairing model call points at it. */
  spanId: string;
  /** Set on an attempt with decision `auto_repair`: what the runtime corrected before the next attempt. */
  correction?: Correction;
}

export interface Escalation {
  kind: 'replan' | 'escalate_human' | 'fallback_tool' | 'fail_reconcile' | 'abort';
  reason: EscalationReason | FailureClass;
  /** Full attempt history of the call. */
  history: AttemptRecord[];
  fallbackTool?: string;
}

export interface CallSuccess<R = unknown> {
  ok: true;
  value: R;
  tool: string;
  callId: string;
  attempts: AttemptRecord[];
  idempotencyKey?: string;
  /** True when answered from the idempotency store (the tool did not run again). */
  deduplicated?: boolean;
  /** Mistakes corrected in code before the call ran (tell the model: `correctionNote`). */
  corrections?: Correction[];
}
export interface CallFailure {
  ok: false;
  tool: string;
  callId: string;
  failureClass: FailureClass;
  decision: Decision;
  /** Sanitized feedback for the model. */
  feedback: string;
  attempts: AttemptRecord[];
  idempotencyKey?: string;
  /** True when the model may send a corrected call (it counts as the next attempt of this call). */
  awaitingCorrection: boolean;
  /** Set when the loop must stop retrying this call: replan, human, fallback, reconcile, abort. */
  escalation?: Escalation;
  reconciliation?: ReconcileResult & { status: ReconcileStatus };
  /** Valid options offered (tool names, paths), closest first. */
  candidates?: string[];
  /** Mistakes corrected in code before the attempt that failed. */
  corrections?: Correction[];
}
export type CallResult<R = unknown> = CallSuccess<R> | CallFailure;

/** Handle on a recorded attempt, for `recordModelCall({ repairs })`. */
export interface RepairRef {
  spanId: string;
  failureClass: FailureClass;
}

export interface ModelCall {
  model: string;
  provider?: string;
  responseModel?: string;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, counted in `inputTokens` too (priced at the cached rate). */
  cachedInputTokens?: number;
  /** The failed attempt (or failed call result) this model turn repairs: its tokens count as repair tokens of that class. */
  repairs?: RepairRef | AttemptRecord | CallFailure;
  startTime?: number;
  endTime?: number;
}

