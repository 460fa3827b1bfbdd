import type { Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GUARDTRACE_ATTEMPT,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS,
  ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT,
  ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_DEDUPLICATED,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FALLBACK_TOOL,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_INTENT_ID,
  ATTR_GUARDTRACE_OUTCOME,
  ATTR_GUARDTRACE_RECONCILE_STATUS,
  ATTR_GUARDTRACE_TOOL_DESTRUCTIVE,
  ATTR_GUARDTRACE_TOOL_EXTERNAL,
  ATTR_GUARDTRACE_TOOL_IDEMPOTENT,
  ATTR_GUARDTRACE_TOOL_READ_ONLY,
  ATTR_GUARDTRACE_VERSION,
  type Decision,
  type EscalationReason,
  type FailureClass,
  OP_EXECUTE_TOOL,
  type Outcome,
  SPAN_ATTEMPT,
} from '@guardtrace/semconv';
import { type AttemptRun, canonicalArgs, closeGuardSpan, runAttempt } from './attempt.ts';
import { canonicalJson } from './idempotency.ts';
import { backoffDelay, decide } from './policy.ts';
import { type RegisteredTool, SCHEMA_VERSION } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import type { SessionCore } from './session.ts';
import type { AttemptRecord, CallFailure, CallResult, Escalation, GuardRecord, ReconcileResult, ToolFlags } from './types.ts';
import { recordAttemptSpan, type RecordedAttempt } from './record.ts';

const MAX_ATTR_CHARS = 8_000;

/** Escalations caused by the tool failing, where a declared fallback tool is the better next step. */
const TOOL_EXHAUSTION: ReadonlySet<EscalationReason> = new Set(['class_retries', 'attempts_per_call', 'circuit_breaker']);

/** Escalation reasons that are not a budget running out (`guardtrace.budget.exhausted` stays unset). */
const NOT_A_BUDGET: ReadonlySet<EscalationReason> = new Set(['class_retries', 'repeated_rejection']);

/** JSON text for span attributes (native stringify: fast; falls back for cycles and BigInt). */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return canonicalJson(v);
  }
}
const clip = (s: string): string => (s.length > MAX_ATTR_CHARS ? `${s.slice(0, MAX_ATTR_CHARS)}…` : s);

function escalationFeedback(reason: EscalationReason, original: string): string {
  if (reason === 'repeated_rejection') {
    return `The same call was already rejected with this feedback; it is not being sent again. Escalating.\n\n${original}`;
  }
  if (reason === 'class_retries') return original;
  return `Retry budget exhausted (${reason}). Escalating with the attempt history.\n\n${original}`;
}

/**
 * One logical tool call (one `execute_tool` span). Transient failures are retried inside
 * `attempt()`; a rejection returns feedback and keeps the call open, so the model's corrected
 * call, passed to `attempt()` again (or to `session.callTool` with the same call id / intent),
 * is attempt 2 of the same call.
 */
export class ToolCall {
  readonly callId: string;
  readonly intentId: string | undefined;
  readonly attempts: AttemptRecord[] = [];
  readonly #session: SessionCore;
  #toolName: string;
  #tool: RegisteredTool | undefined;
  readonly #span: Span;
  #done = false;
  #last: CallResult | undefined;
  #idempotencyKey: string | undefined;

  /** @internal Calls are opened by `session.toolCall(name)` or `session.callTool(...)`. */
  constructor(
    session: SessionCore,
    toolName: string,
    opts: { callId?: string | undefined; intentId?: string | undefined; flags?: ToolFlags | undefined; description?: string | undefined } = {},
  ) {
    this.#session = session;
    this.#toolName = toolName;
    this.callId = opts.callId ?? session.nextCallId();
    this.intentId = opts.intentId;
    this.#tool = session.rt.tools.get(toolName);
    const flags = opts.flags ?? this.#tool?.flags ?? {};
    this.#span = session.rt.telemetry.start(`${OP_EXECUTE_TOOL} ${toolName}`, {
      [ATTR_GEN_AI_OPERATION_NAME]: OP_EXECUTE_TOOL,
      [ATTR_GEN_AI_CONVERSATION_ID]: session.id,
      [ATTR_GEN_AI_TOOL_NAME]: toolName,
      [ATTR_GEN_AI_TOOL_CALL_ID]: this.callId,
      [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      [ATTR_GEN_AI_TOOL_DESCRIPTION]: opts.description ?? this.#tool?.description,
      [ATTR_GUARDTRACE_VERSION]: SCHEMA_VERSION,
      [ATTR_GUARDTRACE_INTENT_ID]: this.intentId,
      [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(flags.readOnly),
      [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(flags.idempotent || flags.readOnly),
      [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(flags.destructive),
      [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(flags.external),
    }, session.span);
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
    const rt = this.#session.rt;
    this.#toolName = name;
    this.#tool = rt.tools.get(name);
    const flags = this.#tool?.flags ?? {};
    rt.telemetry.rename(this.#span, `${OP_EXECUTE_TOOL} ${name}`);
    rt.telemetry.set(this.#span, {
      [ATTR_GEN_AI_TOOL_NAME]: name,
      [ATTR_GEN_AI_TOOL_DESCRIPTION]: this.#tool?.description,
      [ATTR_GUARDTRACE_TOOL_READ_ONLY]: Boolean(flags.readOnly),
      [ATTR_GUARDTRACE_TOOL_IDEMPOTENT]: Boolean(flags.idempotent || flags.readOnly),
      [ATTR_GUARDTRACE_TOOL_DESTRUCTIVE]: Boolean(flags.destructive),
      [ATTR_GUARDTRACE_TOOL_EXTERNAL]: Boolean(flags.external),
    });
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

  #attemptSpan(n: number, callId: string, rawArgs: unknown): { span: Span; args: string } {
    const rt = this.#session.rt;
    const args = clip(sanitizeFeedback(typeof rawArgs === 'string' ? rawArgs : jsonText(rawArgs), rt.sanitize));
    const span = rt.telemetry.start(SPAN_ATTEMPT, {
      [ATTR_GEN_AI_OPERATION_NAME]: SPAN_ATTEMPT,
      [ATTR_GEN_AI_CONVERSATION_ID]: this.#session.id,
      [ATTR_GEN_AI_TOOL_NAME]: this.toolName,
      [ATTR_GEN_AI_TOOL_CALL_ID]: callId,
      [ATTR_GUARDTRACE_ATTEMPT]: n,
      [ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args,
    }, this.#span);
    return { span, args };
  }

  /**
   * Runs the guard pipeline on the model's arguments (JSON text or object). After an
   * `unknown_tool` rejection, `tool` names the tool the model corrected the call to.
   */
  async attempt(rawArgs: unknown, opts: { callId?: string; tool?: string } = {}): Promise<CallResult> {
    if (this.#done) throw new Error(`guardtrace: tool call ${this.callId} already ended`);
    if (opts.tool !== undefined && opts.tool !== this.#toolName) this.#switchTool(opts.tool);
    const s = this.#session;
    const rt = s.rt;
    const maxAttempts = this.#tool?.maxAttempts ?? rt.budgets.maxAttemptsPerCall;
    for (;;) {
      const n = this.attempts.length + 1;
      if (n > 1) s.retriesUsed += 1;
      const callId = opts.callId ?? this.callId;
      const { span, args } = this.#attemptSpan(n, callId, rawArgs);
      const t0 = rt.clock.now();
      const run = await runAttempt({
        rt, tool: this.#tool, toolName: this.toolName, rawArgs, attemptSpan: span,
        sessionId: s.id, callId, intentId: this.intentId, attempt: n,
      });
      const durationMs = Math.max(0, rt.clock.now() - t0);
      if (run.idempotencyKey) this.#idempotencyKey = run.idempotencyKey;
      if (run.ok) return this.#succeed(run, span, n, callId, args, durationMs);

      const failureClass = run.failureClass ?? 'guard_violation';
      s.failedAttempts += 1;
      const policy = (this.#tool?.mergedPolicy ?? rt.policy)[failureClass];
      const classFailures = this.attempts.filter((a) => a.failureClass === failureClass).length + 1;
      let feedback = sanitizeFeedback(run.feedback ?? failureClass, rt.sanitize);
      const fingerprint = `${this.toolName}\u0000${canonicalArgs(run)}\u0000${failureClass}\u0000${feedback}`;
      const retryIndex = classFailures - 1;
      const backoffMs = policy.decision === 'retry_backoff' ? backoffDelay(rt.backoff, retryIndex, rt.clock.random(), run.retryAfterMs) : 0;
      s.addedLatencyMs += durationMs;
      const budgets = s.budgetView(maxAttempts - n);
      const d = decide({ failureClass, policy, classFailures, budgets, repeatedRejection: s.rejectionFingerprints.has(fingerprint), backoffMs });
      if (run.circuitOpen) d.escalationReason = 'circuit_breaker';
      // the tool itself keeps failing (not the model, not a session budget): use the declared fallback
      if (d.decision === 'escalate_human' && this.#tool?.fallbackTool && TOOL_EXHAUSTION.has(d.escalationReason ?? 'class_retries')) {
        d.decision = 'fallback_tool';
      }
      // rejections (the model is asked for a corrected call) count against the task's budget;
      // a replan's feedback is remembered too, so the identical call is never rejected twice
      if (d.decision === 'reject_with_feedback' || d.decision === 'corrected_retry') s.rejectionsUsed += 1;
      if (d.decision === 'reject_with_feedback' || d.decision === 'corrected_retry' || d.decision === 'replan') s.rejectionFingerprints.add(fingerprint);
      if (d.decision === 'retry_backoff') s.addedLatencyMs += backoffMs;
      if (run.stage === 'execution') rt.breakers.failure(this.toolName, rt.clock.now());
      const found = d.decision === 'replan' && this.#tool?.discover ? await this.#discover(this.#tool.discover, run) : undefined;
      if (found !== undefined) feedback = `${feedback}\n\n${found}`;
      let shownFeedback = d.escalationReason && d.decision === 'escalate_human' ? escalationFeedback(d.escalationReason, feedback) : feedback;
      if (d.decision === 'fallback_tool') shownFeedback = `${feedback}\n\n${this.toolName} keeps failing; use ${this.#tool?.fallbackTool} instead.`;
      const after = s.budgetView(maxAttempts - n);
      // the retry this attempt schedules (automatic, or the model's corrected call) is spent already
      if (d.decision === 'retry_backoff' || d.awaitingCorrection) after.sessionRetriesLeft -= 1;
      const record: AttemptRecord = {
        attempt: n, tool: this.toolName, callId, args, outcome: run.stage === 'pre' ? 'rejected' : 'failed',
        failureClass, decision: d.decision, feedback: shownFeedback, guards: run.guards, durationMs, spanId: rt.telemetry.spanId(span),
      };
      if (run.errorType) record.errorType = run.errorType;
      if (d.decision === 'retry_backoff') record.backoffMs = backoffMs;
      if (d.escalationReason) record.escalationReason = d.escalationReason;
      this.attempts.push(record);
      closeGuardSpan(rt, run.failingGuard, d.decision);
      // neither the class's own retries nor a repeated rejection is a budget running out:
      // the call keeps its failure class and the reason says why it escalated
      const budgetExhausted = d.escalationReason && !NOT_A_BUDGET.has(d.escalationReason) ? d.escalationReason : undefined;
      rt.telemetry.set(span, {
        [ATTR_GUARDTRACE_OUTCOME]: record.outcome,
        [ATTR_GUARDTRACE_FAILURE_CLASS]: failureClass,
        [ATTR_GUARDTRACE_DECISION]: d.decision,
        [ATTR_GUARDTRACE_FEEDBACK]: clip(shownFeedback),
        [ATTR_GUARDTRACE_BACKOFF_MS]: record.backoffMs,
        [ATTR_ERROR_TYPE]: run.errorType ?? failureClass,
        [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: run.idempotencyKey,
        [ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT]: Math.max(0, maxAttempts - n),
        [ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT]: Math.max(0, after.sessionRetriesLeft),
        [ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT]: Math.max(0, after.rejectionsLeft),
        [ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS]: Math.max(0, Math.round(after.latencyLeftMs)),
        [ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT]: Math.max(0, after.repairTokensLeft),
        [ATTR_GUARDTRACE_BUDGET_EXHAUSTED]: budgetExhausted,
        [ATTR_GUARDTRACE_ESCALATION_REASON]: d.escalationReason,
      });
      rt.telemetry.end(span, { error: failureClass });

      if (d.decision === 'retry_backoff') {
        await rt.clock.sleep(backoffMs);
        continue;
      }
      let reconciliation: ReconcileResult | undefined;
      if (d.decision === 'fail_reconcile') {
        reconciliation = await this.#reconcile(run);
        // Reconciliation proved the call had no effect: sending it again with the same
        // idempotency key is safe, and needs no model turn (the seed: reconcile by key, not
        // another model turn). Attempt cap and session retries still bound it.
        if (reconciliation.status === 'not_committed' && n < maxAttempts && s.budgetView(maxAttempts - n).sessionRetriesLeft > 0) {
          continue;
        }
      }
      const base: CallFailure = {
        ok: false, tool: this.toolName, callId: this.callId, failureClass: budgetExhausted ? 'budget_exhausted' : failureClass,
        decision: d.decision, feedback: shownFeedback, attempts: [...this.attempts], awaitingCorrection: d.awaitingCorrection,
      };
      if (this.#idempotencyKey) base.idempotencyKey = this.#idempotencyKey;
      if (run.candidates) base.candidates = run.candidates;
      if (d.awaitingCorrection) {
        this.#last = base;
        s.markAwaiting(this);
        return base;
      }
      if (reconciliation) base.reconciliation = reconciliation;
      const esc = this.#escalation(d.decision, d.escalationReason ?? failureClass);
      if (esc) base.escalation = esc;
      this.#finish(base);
      return base;
    }
  }

  /** Runs the declared read-only discovery tool as its own call; its answer becomes feedback. */
  async #discover(spec: NonNullable<RegisteredTool['discover']>, run: AttemptRun): Promise<string | undefined> {
    const s = this.#session;
    const tool = s.rt.tools.get(spec.tool);
    if (!tool?.flags?.readOnly) return undefined; // discovery must not change anything
    let args: unknown = {};
    try {
      args = spec.args && run.parsed ? spec.args(run.args) : {};
    } catch {
      return undefined;
    }
    const r = await s.toolCall(spec.tool).attempt(args);
    if (!r.ok) return undefined;
    return sanitizeFeedback(`Discovery (${spec.tool}) found: ${jsonText(r.value)}\nChoose from these and call again.`, s.rt.sanitize);
  }

  async #reconcile(run: AttemptRun): Promise<ReconcileResult> {
    const rt = this.#session.rt;
    const key = run.idempotencyKey;
    let rec: ReconcileResult = run.reconciliation ?? { status: 'unknown', detail: 'no reconcile hook' };
    if (key && this.#tool?.reconcile && !run.reconciliation) {
      try {
        rec = await this.#tool.reconcile(key, run.args);
      } catch (err) {
        rec = { status: 'unknown', detail: err instanceof Error ? err.message : String(err) };
      }
    }
    if (key) {
      if (rec.status === 'committed') rt.idempotency.set(key, { status: 'done', value: rec.value });
      else if (rec.status === 'not_committed') rt.idempotency.delete(key);
    }
    rt.telemetry.set(this.#span, { [ATTR_GUARDTRACE_RECONCILE_STATUS]: rec.status });
    return rec;
  }

  #escalation(decision: Decision, reason: EscalationReason | FailureClass): Escalation | undefined {
    const kinds: Record<string, Escalation['kind']> = {
      replan: 'replan', escalate_human: 'escalate_human', fallback_tool: 'fallback_tool', fail_reconcile: 'fail_reconcile', abort: 'abort',
    };
    const kind = kinds[decision];
    if (!kind) return undefined;
    const esc: Escalation = { kind, reason, history: [...this.attempts] };
    if (kind === 'fallback_tool' && this.#tool?.fallbackTool) esc.fallbackTool = this.#tool.fallbackTool;
    return esc;
  }

  #succeed(run: AttemptRun, span: Span, n: number, callId: string, args: string, durationMs: number): CallResult {
    const rt = this.#session.rt;
    rt.breakers.success(this.toolName);
    const record: AttemptRecord = {
      attempt: n, tool: this.toolName, callId, args, outcome: 'success', decision: 'proceed',
      guards: run.guards, durationMs, spanId: rt.telemetry.spanId(span),
    };
    this.attempts.push(record);
    const attrs: Record<string, string | boolean> = {
      [ATTR_GUARDTRACE_OUTCOME]: 'success',
      [ATTR_GUARDTRACE_DECISION]: 'proceed',
      [ATTR_GEN_AI_TOOL_CALL_RESULT]: clip(sanitizeFeedback(jsonText(run.value), rt.sanitize)),
    };
    if (run.idempotencyKey) attrs[ATTR_GUARDTRACE_IDEMPOTENCY_KEY] = run.idempotencyKey;
    if (run.deduplicated) attrs[ATTR_GUARDTRACE_DEDUPLICATED] = true;
    rt.telemetry.set(span, attrs);
    rt.telemetry.end(span);
    const result: CallResult = { ok: true, value: run.value, tool: this.toolName, callId: this.callId, attempts: [...this.attempts] };
    if (run.idempotencyKey) result.idempotencyKey = run.idempotencyKey;
    if (run.deduplicated) result.deduplicated = true;
    this.#finish(result);
    return result;
  }

  #finish(result: CallResult): void {
    this.#last = result;
    this.#done = true;
    const rt = this.#session.rt;
    const outcome: Outcome = result.ok ? 'success' : (this.attempts.at(-1)?.outcome ?? 'failed');
    if (result.ok) {
      const attrs: Record<string, string | number | boolean> = {
        [ATTR_GUARDTRACE_ATTEMPT]: this.attempts.length,
        [ATTR_GUARDTRACE_OUTCOME]: outcome,
        [ATTR_GUARDTRACE_DECISION]: 'proceed',
      };
      if (this.#idempotencyKey) attrs[ATTR_GUARDTRACE_IDEMPOTENCY_KEY] = this.#idempotencyKey;
      if (result.deduplicated) attrs[ATTR_GUARDTRACE_DEDUPLICATED] = true;
      rt.telemetry.set(this.#span, attrs);
      rt.telemetry.end(this.#span);
      this.#session.noteFinished(this, result);
      return;
    }
    rt.telemetry.set(this.#span, {
      [ATTR_GUARDTRACE_ATTEMPT]: this.attempts.length,
      [ATTR_GUARDTRACE_OUTCOME]: outcome,
      [ATTR_GUARDTRACE_DECISION]: result.decision,
      [ATTR_GUARDTRACE_FAILURE_CLASS]: result.failureClass,
      [ATTR_ERROR_TYPE]: result.failureClass,
      [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: this.#idempotencyKey,
      [ATTR_GUARDTRACE_FALLBACK_TOOL]: result.escalation?.fallbackTool,
      [ATTR_GUARDTRACE_ESCALATION_REASON]: this.attempts.at(-1)?.escalationReason,
    });
    rt.telemetry.end(this.#span, { error: result.failureClass });
    this.#session.noteFinished(this, result);
  }

  /** Instrument-only: records an attempt your own loop already made (and its guard results). */
  recordAttempt(a: RecordedAttempt): AttemptRecord {
    if (this.#done) throw new Error(`guardtrace: tool call ${this.callId} already ended`);
    const n = this.attempts.length + 1;
    const rec = recordAttemptSpan(this.#session, this, n, a);
    this.attempts.push(rec);
    if (n > 1) this.#session.retriesUsed += 1;
    if (a.outcome !== 'success') this.#session.failedAttempts += 1;
    return rec;
  }

  /**
   * Ends the call. With no argument, the outcome follows the last attempt (an attempt still
   * awaiting the model's correction ends as it stands). Idempotent.
   */
  end(final?: { value?: unknown; idempotencyKey?: string }): CallResult {
    if (final?.idempotencyKey) this.#idempotencyKey = final.idempotencyKey;
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
