import type { Attributes, Span } from '@opentelemetry/api';
import type { FailureClass } from '@guardtrace/semconv';
import type { GuardRun, PendingGuardSpan } from './guard-span.ts';
import { canonicalJson, idempotencyKey } from './idempotency.ts';
import type { RegisteredTool, Runtime } from './runtime.ts';
import type { Guard, GuardContext, GuardOutcome, GuardRecord, ReconcileResult, ToolContext } from './types.ts';

/** What one attempt came to: the input of the policy's decision when it failed. */
export interface AttemptRun {
  ok: boolean;
  value?: unknown;
  deduplicated?: boolean;
  failureClass?: FailureClass;
  feedback?: string;
  errorType?: string;
  retryAfterMs?: number;
  candidates?: string[];
  /** Where the attempt stopped: before execution (rejected), during or after it (failed). */
  stage?: 'pre' | 'execution' | 'post';
  /** Arguments as the model sent them. */
  rawArgs: unknown;
  /** True once the schema guard passed; `args` then holds the validated arguments. */
  parsed: boolean;
  args?: unknown;
  idempotencyKey?: string;
  guards: GuardRecord[];
  failingGuard?: PendingGuardSpan;
  reconciliation?: ReconcileResult;
  /** A check session let the call through without running the tool (`gt.checkSession()`). */
  notExecuted?: boolean;
  /** The tool's circuit was open: the attempt failed fast. */
  circuitOpen?: boolean;
  /** The failing guard's one sound correction (see `GuardFail.repair`). */
  repair?: { pointer: string; from: string; to: string };
}

/** One attempt as the tool call hands it over. */
export interface AttemptInput {
  rt: Runtime;
  tool: RegisteredTool | undefined;
  toolName: string;
  rawArgs: unknown;
  attemptSpan: Span;
  sessionId: string;
  callId: string;
  intentId: string | undefined;
  attempt: number;
  /** The caller's per-call data, the tool's `ctx.meta`. */
  meta?: unknown;
}

/** Shared by tools without a timeout: never aborts, saves an AbortController per call. */
const NEVER = new AbortController().signal;

/**
 * The context handed to guards and to the tool: one object per attempt, the idempotency key
 * (a SHA-256) made on first read for tools that do not need it up front.
 */
export class AttemptContext implements GuardContext, ToolContext {
  #key: string | undefined;
  /** The attempt (its span and the runtime's telemetry), out of the tool's reach. */
  readonly #inp: AttemptInput;
  result?: unknown;
  prepared?: unknown;
  signal: AbortSignal = NEVER;
  readonly holder: string;
  constructor(
    readonly tool: string,
    readonly sessionId: string,
    readonly callId: string,
    readonly attempt: number,
    readonly locks: GuardContext['locks'],
    private readonly keyInput: { tool: RegisteredTool; run: AttemptRun; intent: string },
    inp: AttemptInput,
  ) {
    this.#inp = inp;
    this.holder = `${sessionId}/${callId}`;
  }
  /** Made from the validated arguments: read only once the schema stage has passed. */
  get idempotencyKey(): string {
    if (this.#key === undefined) {
      const { tool, run, intent } = this.keyInput;
      this.#key = idempotencyKey(tool.name, tool.idempotencyArgs ? tool.idempotencyArgs(run.args) : run.args, intent);
    }
    return this.#key;
  }
  /** The caller's per-call data (`CallOptions.meta`). */
  get meta(): unknown {
    return this.#inp.meta;
  }
  /** The tool's own attributes on its attempt span. */
  setAttributes(attrs: Attributes): void {
    const { rt, attemptSpan } = this.#inp;
    rt.telemetry.set(attemptSpan, attrs);
  }
}

/**
 * The working state that the stages of one attempt hand on, in order: each stage reads what
 * the stages before it left here and adds its own part.
 */
export class AttemptState {
  readonly run: AttemptRun;
  /** Guard and tool context; its idempotency key is made from the validated arguments. */
  readonly ctx: AttemptContext;
  /** The tool changes the world: its results go through the idempotency store. */
  sideEffect = false;
  /** Released when the attempt ends, last taken first. */
  readonly releases: (() => void | Promise<void>)[] = [];
  /** Post-execution guards with what their `prepare` hook returned. */
  readonly post: { guard: Guard; prepared: unknown }[] = [];
  /** The tool's result (set by the execution stage). */
  value: unknown;

  constructor(
    readonly inp: AttemptInput,
    readonly tool: RegisteredTool,
  ) {
    this.run = { ok: false, rawArgs: inp.rawArgs, parsed: false, guards: [] };
    const intent = inp.intentId ?? `session:${inp.sessionId}`;
    this.ctx = new AttemptContext(tool.name, inp.sessionId, inp.callId, inp.attempt, inp.rt.locks, { tool, run: this.run, intent }, inp);
  }

  get rt(): Runtime {
    return this.inp.rt;
  }
}

/** Ends the attempt with a failed guard's verdict. */
export function fail(run: AttemptRun, g: GuardRun, stage: AttemptRun['stage']): AttemptRun {
  const o = g.outcome as Extract<GuardOutcome, { pass: false }>;
  run.ok = false;
  run.failureClass = g.failureClass ?? 'guard_violation';
  run.feedback = o.feedback ?? o.reason;
  run.errorType = run.failureClass;
  run.stage = stage;
  run.failingGuard = g.pending;
  if (o.candidates) run.candidates = o.candidates;
  if (o.repair) run.repair = o.repair;
  return run;
}

/** Canonical JSON of an attempt's arguments: validated ones when the schema passed, else what was sent. */
export function canonicalArgs(run: AttemptRun): string {
  if (run.parsed) return canonicalJson(run.args);
  return typeof run.rawArgs === 'string' ? run.rawArgs : canonicalJson(run.rawArgs);
}
