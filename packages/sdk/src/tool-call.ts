import { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID, ATTR_GUARDTRACE_RECONCILE_STATUS, OP_EXECUTE_TOOL, SPAN_ATTEMPT } from '@guardtrace/semconv';
import type { Attributes, Span } from '@opentelemetry/api';
import { runAttempt } from './attempt.ts';
import type { AttemptRun } from './attempt-state.ts';
import { correctionNote, planAutoRepair, recordAutoRepair } from './auto-repair.ts';
import { attemptAttrs, type Content, definitionAttrs, finishedCallAttrs, openedCallAttrs, succeededAttemptAttrs, switchedCallAttrs } from './call-span.ts';
import { escalation, failedAttemptAttrs, type Judgement, judge, reconcile, shownFeedback, spendsRejection } from './failure.ts';
import { closeGuardSpan } from './guard-span.ts';
import { CallProgress } from './progress.ts';
import { type RecordedAttempt, recordAttemptSpan } from './record.ts';
import type { RegisteredTool, Runtime } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import type { CallReports } from './session-book.ts';
import { type CallSpanOptions, callSpanName, checkAttributes, checkSpanOptions, withExtra } from './span-options.ts';
import { clip, jsonText } from './span-text.ts';
import type { AttemptRecord, CallFailure, CallResult, Correction, GuardRecord, ToolFlags } from './types.ts';

/** Corrections in code per `attempt()` at most (each is an attempt of the call, bounded by its cap too). */
const MAX_AUTO_REPAIRS = 3;

/** What a call runs in: the runtime, its session's id and span, and the book it reports to. */
export interface CallScope {
  rt: Runtime;
  sessionId: string;
  /** The session's `invoke_agent` span, parent of the call's `execute_tool` span. */
  span: Span;
  book: CallReports<ToolCall>;
  /** Under capture `failures`: whether this session is a sampled-in clean session, whose calls all carry their content. */
  contentSampled: () => boolean;
  /** Tools whose definition (`guardtrace.tool.definition`) a call of this session already carried. */
  definitionsSent: Set<string>;
}

/**
 * One logical tool call (one `execute_tool` span). Transient failures are retried inside
 * `attempt()`; a rejection returns feedback and keeps the call open, so the model's corrected
 * call, passed to `attempt()` again (or to `session.callTool` with the same call id / intent),
 * is attempt 2 of the same call. Each attempt runs the guard stages (attempt.ts); a failed one
 * is judged once by the policy (failure.ts); the call reports to its session's book.
 */
export class ToolCall {
  readonly callId: string;
  readonly intentId: string | undefined;
  readonly attempts: AttemptRecord[] = [];
  readonly #scope: CallScope;
  #toolName: string;
  #tool: RegisteredTool | undefined;
  readonly #span: Span;
  #done = false;
  #last: CallResult | undefined;
  #idempotencyKey: string | undefined;
  /** The adapter's span options (name function kept for a correction, attempt attributes for attempts without their own). */
  readonly #spanOpts: CallSpanOptions | undefined;
  /** The caller's per-call data (`ctx.meta`) for attempts run without their own. */
  readonly #meta: unknown;
  /** Mistakes corrected in code during the current `attempt()` (auto-repair.ts). */
  #corrections: Correction[] = [];
  /** The caller said the arguments are not the model's own (`autoRepair: false`): nothing is repaired. */
  readonly #noAutoRepair: boolean;
  /** What each failed attempt objected to, for the policy's progress rule. */
  readonly #progress = new CallProgress();
  /** When a call recorded after the fact ended (`end({ endTime })`); else it ends when ended. */
  #endTime: number | undefined;
  /** Attempt spans run on an adapter's stand-in arguments (`argumentsUnknown`): none are recorded on them. */
  readonly #standIn = new WeakSet<Span>();

  /** @internal Calls are opened by `session.toolCall(name)` or `session.callTool(...)`. */
  constructor(
    scope: CallScope,
    toolName: string,
    opts: {
      callId?: string | undefined;
      intentId?: string | undefined;
      flags?: ToolFlags | undefined;
      description?: string | undefined;
      span?: CallSpanOptions | undefined;
      meta?: unknown;
      autoRepair?: false | undefined;
      /** The call id of the call this discovery call is run for: the runtime's call, not the model's. */
      discoveryFor?: string | undefined;
      /** When the call started, for a call recorded after the fact (epoch ms; default: now). */
      startTime?: number | undefined;
    } = {},
  ) {
    this.#meta = opts.meta;
    this.#noAutoRepair = opts.autoRepair === false;
    const so = opts.span;
    if (so !== undefined) checkSpanOptions(so, toolName);
    this.#spanOpts = so;
    this.#scope = scope;
    this.#toolName = toolName;
    this.callId = opts.callId ?? scope.book.nextCallId();
    this.intentId = opts.intentId;
    this.#tool = scope.rt.tools.get(toolName);
    const flags = opts.flags ?? this.#tool?.flags ?? {};
    const attrs = openedCallAttrs({
      sessionId: scope.sessionId, toolName, callId: this.callId, intentId: this.intentId, description: opts.description ?? this.#tool?.description,
      step: scope.book.nextStep(), flags, definition: definitionAttrs(scope.definitionsSent, this.#tool),
    });
    if (opts.discoveryFor !== undefined) attrs[ATTR_GUARDTRACE_DISCOVERY_FOR_CALL_ID] = opts.discoveryFor;
    this.#span = scope.rt.telemetry.start(so ? callSpanName(so, toolName) : `${OP_EXECUTE_TOOL} ${toolName}`, withExtra(so?.attributes, attrs), scope.span, opts.startTime, so?.kind);
    scope.book.opened(this);
  }

  /** The tool called; after an `unknown_tool` rejection, the tool the model corrected it to. */
  get toolName(): string {
    return this.#toolName;
  }

  /** True while the call waits for the model's correction of an unknown tool name: the next attempt may name another tool. */
  get awaitsToolName(): boolean {
    return !this.#done && this.attempts.at(-1)?.failureClass === 'unknown_tool';
  }

  /** The model corrected an unknown tool name: the call goes on as a call of the named tool. */
  #switchTool(name: string): void {
    if (!this.awaitsToolName) throw new Error(`guardtrace: tool call ${this.callId} is a call of ${this.#toolName}; only a call rejected as unknown_tool continues under another tool`);
    const rt = this.#scope.rt;
    this.#toolName = name;
    this.#tool = rt.tools.get(name);
    rt.telemetry.rename(this.#span, callSpanName(this.#spanOpts, name));
    rt.telemetry.set(this.#span, switchedCallAttrs(name, this.#tool, definitionAttrs(this.#scope.definitionsSent, this.#tool)));
  }

  /** True once the call reached a final outcome (success, or a decision that is not a correction). */
  get done(): boolean {
    return this.#done;
  }
  get span(): Span {
    return this.#span;
  }
  get lastResult(): CallResult | undefined {
    return this.#last;
  }

  /** The content rule for the tool called now (its own `capture`, else the global one). */
  #content(): Content {
    const mode = this.#tool?.capture ?? this.#scope.rt.capture;
    if (mode === 'all') return 'always';
    if (mode === 'none') return 'never';
    return this.#scope.contentSampled() ? 'always' : 'failures';
  }

  /** Under `failures`, a failed or repaired attempt's arguments go on its span before it ends. */
  #lateArgs(span: Span, args: string): void {
    if (this.#content() === 'failures' && !this.#standIn.has(span)) this.#scope.rt.telemetry.set(span, { [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args });
  }

  #attemptSpan(n: number, callId: string, rawArgs: unknown, extra: Attributes | undefined, standIn: boolean): { span: Span; args: string } {
    const { rt, sessionId } = this.#scope;
    const args = clip(sanitizeFeedback(typeof rawArgs === 'string' ? rawArgs : jsonText(rawArgs), rt.sanitize));
    // stand-in arguments are not the model's: recorded as none (the replay says so), never as `{}`
    const content = standIn ? 'never' : this.#content();
    const span = rt.telemetry.start(SPAN_ATTEMPT, withExtra(extra, attemptAttrs({ sessionId, toolName: this.toolName, callId, n, args, content })), this.#span);
    if (standIn) this.#standIn.add(span);
    return { span, args };
  }

  /**
   * Runs the guard pipeline on the model's arguments (JSON text or object). After an
   * `unknown_tool` rejection, `tool` names the tool the model corrected the call to.
   * `attemptAttributes` are extra attributes of this run's attempt spans; when the key is
   * absent, those of the call's `span` option. `meta` is the tool's `ctx.meta` for this run's
   * attempts (default: the call's own `meta` option).
   */
  async attempt(
    rawArgs: unknown,
    opts: { callId?: string; tool?: string; attemptAttributes?: Attributes | undefined; meta?: unknown; autoRepair?: false; argumentsUnknown?: true } = {},
  ): Promise<CallResult> {
    if (this.#done) throw new Error(`guardtrace: tool call ${this.callId} already ended`);
    if (opts.tool !== undefined && opts.tool !== this.#toolName) this.#switchTool(opts.tool);
    const { rt, book, sessionId } = this.#scope;
    const maxAttempts = this.#tool?.maxAttempts ?? rt.budgets.maxAttemptsPerCall;
    const own = 'attemptAttributes' in opts;
    if (own) checkAttributes(opts.attemptAttributes, `guardtrace: tool call ${this.callId}: attempt option attemptAttributes`);
    const extra = own ? opts.attemptAttributes : this.#spanOpts?.attemptAttributes;
    const meta = 'meta' in opts ? opts.meta : this.#meta;
    let raw = rawArgs;
    this.#corrections = [];
    for (;;) {
      const n = this.attempts.length + 1;
      if (n > 1) book.retrying();
      const callId = opts.callId ?? this.callId;
      const { span, args } = this.#attemptSpan(n, callId, raw, extra, opts.argumentsUnknown === true);
      const t0 = rt.clock.now();
      const run = await runAttempt({
        rt, tool: this.#tool, toolName: this.toolName, rawArgs: raw, attemptSpan: span,
        sessionId, callId, intentId: this.intentId, attempt: n, meta,
      });
      const durationMs = Math.max(0, rt.clock.now() - t0);
      if (run.idempotencyKey) this.#idempotencyKey = run.idempotencyKey;
      if (run.ok) return this.#succeed(run, span, n, callId, args, durationMs);
      // one sound correction: fixed in code and run as the next attempt, no model turn
      const canRepair = !this.#noAutoRepair && opts.autoRepair !== false && opts.argumentsUnknown !== true && this.#corrections.length < MAX_AUTO_REPAIRS && n < maxAttempts && book.budgets(maxAttempts - n).sessionRetriesLeft > 0;
      const fix = canRepair ? planAutoRepair(rt, this.#tool, this.toolName, run) : undefined;
      if (fix) {
        book.attemptFailed(durationMs);
        this.#lateArgs(span, args);
        const record = recordAutoRepair(rt, run, fix, { span, n, tool: this.toolName, callId, args, durationMs });
        this.attempts.push(record);
        this.#corrections.push(record.correction ?? fix.correction);
        if (fix.tool) this.#switchTool(fix.tool);
        raw = fix.rawArgs;
        continue;
      }
      const next = await this.#failed(run, { span, n, callId, args, durationMs, attemptsLeft: maxAttempts - n });
      if (next !== 'again') return next;
    }
  }

  /**
   * A failed attempt, in order: reported, judged once by the policy, booked, discovery (for a
   * replan), recorded on its span; then the next step: retry, reconcile, wait for the model's
   * correction, or end the call. Returns 'again' to run the next attempt now.
   */
  async #failed(
    run: AttemptRun,
    a: { span: Span; n: number; callId: string; args: string; durationMs: number; attemptsLeft: number },
  ): Promise<CallResult | 'again'> {
    const { rt, book } = this.#scope;
    book.attemptFailed(a.durationMs);
    // attempts repaired in code were never the model's to fix: they count toward no class's retries
    const history = this.attempts.filter((x) => x.decision !== 'auto_repair');
    const j = judge({ rt, tool: this.#tool, toolName: this.toolName, run, history, book, attemptsLeft: a.attemptsLeft, progress: this.#progress });
    const d = j.decision;
    book.decided(d.decision, j.fingerprint, j.backoffMs, spendsRejection(j), this.callId);
    // the breaker counts failed operations (a call once its code-level retries ended), not attempts;
    // a half-open circuit's one trial attempt reopens it at once
    const now = rt.clock.now();
    if (run.stage === 'execution' && (d.decision !== 'retry_backoff' || rt.breakers.state(this.toolName, now) === 'half_open')) rt.breakers.failure(this.toolName, now);
    const found = d.decision === 'replan' && this.#tool?.discover ? await this.#discover(this.#tool.discover, run) : undefined;
    const record = this.#failedRecord(run, j, a, shownFeedback(j, found, this.toolName, this.#tool?.fallbackTool));
    this.attempts.push(record);
    closeGuardSpan(rt, run.failingGuard, d.decision);
    this.#lateArgs(a.span, a.args);
    rt.telemetry.set(a.span, failedAttemptAttrs(j, record, run, a.attemptsLeft, book.budgets(a.attemptsLeft, this.#progress.spentRejections)));
    rt.telemetry.end(a.span, { error: j.failureClass });

    if (d.decision === 'retry_backoff') {
      await rt.clock.sleep(j.backoffMs);
      return 'again';
    }
    const reconciliation = d.decision === 'fail_reconcile' ? await reconcile(rt, this.#tool, run) : undefined;
    if (reconciliation) rt.telemetry.set(this.#span, { [ATTR_GUARDTRACE_RECONCILE_STATUS]: reconciliation.status });
    // Reconciliation proved the call had no effect: sending it again with the same
    // idempotency key is safe, and needs no model turn (the seed: reconcile by key, not
    // another model turn). Attempt cap and session retries still bound it.
    if (reconciliation?.status === 'not_committed' && a.attemptsLeft > 0 && book.budgets(a.attemptsLeft).sessionRetriesLeft > 0) return 'again';
    const base: CallFailure = {
      ok: false, tool: this.toolName, callId: this.callId, failureClass: j.budgetExhausted ? 'budget_exhausted' : j.failureClass,
      decision: d.decision, feedback: record.feedback ?? '', attempts: [...this.attempts], awaitingCorrection: d.awaitingCorrection,
    };
    if (this.#idempotencyKey) base.idempotencyKey = this.#idempotencyKey;
    if (run.candidates) base.candidates = run.candidates;
    if (this.#corrections.length > 0) {
      // the model must know what its call ran as before it reads why that failed
      base.corrections = [...this.#corrections];
      base.feedback = `${correctionNote(base)}\n\n${base.feedback}`;
    }
    if (d.awaitingCorrection) {
      this.#last = base;
      book.awaiting(this);
      return base;
    }
    if (reconciliation) base.reconciliation = reconciliation;
    const esc = escalation(d.decision, d.escalationReason ?? j.failureClass, this.attempts, this.#tool?.fallbackTool);
    if (esc) base.escalation = esc;
    this.#finish(base);
    return base;
  }

  #failedRecord(run: AttemptRun, j: Judgement, a: { span: Span; n: number; callId: string; args: string; durationMs: number }, feedback: string): AttemptRecord {
    const d = j.decision;
    const record: AttemptRecord = {
      attempt: a.n, tool: this.toolName, callId: a.callId, args: a.args, outcome: run.stage === 'pre' ? 'rejected' : 'failed',
      failureClass: j.failureClass, decision: d.decision, feedback, guards: run.guards, durationMs: a.durationMs,
      spanId: this.#scope.rt.telemetry.spanId(a.span),
    };
    if (run.errorType) record.errorType = run.errorType;
    if (d.decision === 'retry_backoff') record.backoffMs = j.backoffMs;
    if (d.escalationReason) record.escalationReason = d.escalationReason;
    return record;
  }

  /** Runs the declared read-only discovery tool as its own call; its answer becomes feedback. */
  async #discover(spec: NonNullable<RegisteredTool['discover']>, run: AttemptRun): Promise<string | undefined> {
    const { rt } = this.#scope;
    const tool = rt.tools.get(spec.tool);
    if (!tool?.flags?.readOnly) return undefined; // discovery must not change anything
    let args: unknown = {};
    try {
      args = spec.args && run.parsed ? spec.args(run.args) : {};
    } catch {
      return undefined;
    }
    const r = await new ToolCall(this.#scope, spec.tool, { discoveryFor: this.callId }).attempt(args);
    if (!r.ok) return undefined;
    return sanitizeFeedback(`Discovery (${spec.tool}) found: ${jsonText(r.value)}\nChoose from these and call again.`, rt.sanitize);
  }

  #succeed(run: AttemptRun, span: Span, n: number, callId: string, args: string, durationMs: number): CallResult {
    const { rt } = this.#scope;
    rt.breakers.success(this.toolName);
    const record: AttemptRecord = {
      attempt: n, tool: this.toolName, callId, args, outcome: 'success', decision: 'proceed',
      guards: run.guards, durationMs, spanId: rt.telemetry.spanId(span),
    };
    const afterFailure = this.attempts.length > 0;
    this.attempts.push(record);
    const attrs = succeededAttemptAttrs(run, { content: this.#content(), afterFailure, args, result: () => clip(sanitizeFeedback(jsonText(run.value), rt.sanitize)) });
    if (this.#standIn.has(span)) delete attrs[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS];
    rt.telemetry.set(span, attrs);
    rt.telemetry.end(span);
    const result: CallResult = { ok: true, value: run.value, tool: this.toolName, callId: this.callId, attempts: [...this.attempts] };
    if (run.idempotencyKey) result.idempotencyKey = run.idempotencyKey;
    if (run.deduplicated) result.deduplicated = true;
    if (this.#corrections.length > 0) result.corrections = [...this.#corrections];
    this.#finish(result);
    return result;
  }

  #finish(result: CallResult): void {
    this.#last = result;
    this.#done = true;
    const { rt, book } = this.#scope;
    rt.telemetry.set(this.#span, finishedCallAttrs(result, this.attempts, this.#idempotencyKey));
    const endTime = this.#endTime;
    if (result.ok) rt.telemetry.end(this.#span, endTime !== undefined ? { endTime } : {});
    else rt.telemetry.end(this.#span, endTime !== undefined ? { error: result.failureClass, endTime } : { error: result.failureClass });
    book.finished(this, result);
  }

  /** Instrument-only: records an attempt your own loop already made (and its guard results). */
  recordAttempt(a: RecordedAttempt): AttemptRecord {
    if (this.#done) throw new Error(`guardtrace: tool call ${this.callId} already ended`);
    const { rt, book, sessionId } = this.#scope;
    const n = this.attempts.length + 1;
    const ref = { sessionId, toolName: this.toolName, callId: this.callId, span: this.#span, attemptAttributes: this.#spanOpts?.attemptAttributes };
    const content = this.#content();
    // under `failures`: a failed attempt, and every attempt after one, carries its arguments
    const withArgs = content === 'always' || (content === 'failures' && (a.outcome !== 'success' || this.attempts.some((x) => x.outcome !== 'success')));
    const rec = recordAttemptSpan(rt, ref, n, a, withArgs);
    this.attempts.push(rec);
    if (n > 1) book.retrying();
    if (a.outcome !== 'success') book.attemptFailed(0);
    return rec;
  }

  /**
   * Ends the call. With no argument, the outcome follows the last attempt (an attempt still
   * awaiting the model's correction ends as it stands). Idempotent.
   */
  end(final?: { value?: unknown; idempotencyKey?: string; endTime?: number }): CallResult {
    if (final?.idempotencyKey) this.#idempotencyKey = final.idempotencyKey;
    if (final?.endTime !== undefined) this.#endTime = final.endTime;
    if (this.#done && this.#last) return this.#last;
    const last = this.attempts.at(-1);
    let result: CallResult;
    if (last?.outcome === 'success') {
      result = { ok: true, value: final?.value, tool: this.toolName, callId: this.callId, attempts: [...this.attempts] };
    } else {
      result = {
        ok: false, tool: this.toolName, callId: this.callId, failureClass: last?.failureClass ?? 'guard_violation',
        decision: last?.decision ?? 'abort', feedback: last?.feedback ?? '', attempts: [...this.attempts], awaitingCorrection: false,
      };
    }
    this.#finish(result);
    return result;
  }

  /** Guards recorded so far across attempts (for reports). */
  guards(): GuardRecord[] {
    return this.attempts.flatMap((a) => a.guards);
  }
}
