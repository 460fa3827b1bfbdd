import type { Decision, SessionOutcome } from '@guardtrace/semconv';
import type { BudgetView } from './policy.ts';
import type { Runtime } from './runtime.ts';
import type { CallResult } from './types.ts';

/** What the session's bookkeeping knows of a tool call. */
export interface BookedCall {
  readonly callId: string;
  readonly intentId: string | undefined;
  readonly toolName: string;
  /** The call waits for the model's correction of an unknown tool name. */
  readonly awaitsToolName: boolean;
  readonly done: boolean;
  readonly lastResult: CallResult | undefined;
  readonly attempts: readonly unknown[];
  end(): CallResult;
}

/**
 * What a tool call reports to its session as it runs, and the one thing it asks of it (the
 * budgets left). A call never writes the session's counters: it says what happened, and the
 * session's book keeps the counts.
 */
export interface CallReports<C extends BookedCall = BookedCall> {
  /** An id for a call the model gave none. */
  nextCallId(): string;
  /** The next step number of the session (`guardtrace.step.sequence`): 1, 2, 3… */
  nextStep(): number;
  opened(call: C): void;
  /**
   * What the session's budgets allow now, with this many attempts left in the call and this
   * many rejections sent for it (read when the budget counts rejections per call).
   */
  budgets(attemptsLeft: number, callRejections?: number): BudgetView;
  /** Whether this rejection (tool, arguments, class, feedback) was already sent in the session. */
  alreadySent(fingerprint: string): boolean;
  /** An attempt after the first starts: it spends a session retry. */
  retrying(): void;
  /** An attempt failed after this long. */
  attemptFailed(durationMs: number): void;
  /**
   * The policy decided on a failed attempt; `spendsRejection: false` for a correction that made
   * progress; `callId`, the logical call's, so that its rejections are given back if it succeeds.
   */
  decided(decision: Decision, fingerprint: string, backoffMs: number, spendsRejection?: boolean, callId?: string): void;
  /** The call waits for the model's corrected call. */
  awaiting(call: C): void;
  /** The call reached its final result. */
  finished(call: C, result: CallResult): void;
}

/**
 * The bookkeeping of one session: its budgets spent, the rejections it sent, the calls still
 * open and those waiting for the model's correction, and what that makes the session's outcome.
 */
export class SessionBook<C extends BookedCall> implements CallReports<C> {
  #retriesUsed = 0;
  /** Failed or rejected attempts in the session (a session with any is always kept by sampling). */
  #failedAttempts = 0;
  #rejectionsUsed = 0;
  /** Rejections spent per logical call in this task, given back when the call succeeds. */
  readonly #spentBy = new Map<string, number>();
  #addedLatencyMs = 0;
  readonly #sent = new Set<string>();
  readonly #waiting = new Map<string, C>();
  readonly #open = new Set<C>();
  #escalated = false;
  #failed = false;
  #seq = 0;
  #steps = 0;

  /** `user` keys the repair-token window. */
  constructor(
    private readonly rt: Runtime,
    private readonly sessionId: string,
    readonly user: string,
  ) {}

  /** A new task: the rejections-per-task budget starts over. */
  startTask(): void {
    this.#rejectionsUsed = 0;
    this.#spentBy.clear();
  }

  nextCallId(): string {
    this.#seq += 1;
    return `${this.sessionId}_call_${this.#seq}`;
  }

  nextStep(): number {
    this.#steps += 1;
    return this.#steps;
  }

  opened(call: C): void {
    this.#open.add(call);
  }

  budgets(attemptsLeft: number, callRejections = 0): BudgetView {
    const b = this.rt.budgets;
    return {
      attemptsLeft,
      sessionRetriesLeft: b.sessionRetries - this.#retriesUsed,
      rejectionsLeft: b.rejectionsPerTask - (b.rejectionsScope === 'call' ? callRejections : this.#rejectionsUsed),
      latencyLeftMs: b.addedLatencyMs - this.#addedLatencyMs,
      repairTokensLeft: b.repairTokens.perUser - this.rt.ledger.spent(this.user, this.rt.clock.now()),
    };
  }

  alreadySent(fingerprint: string): boolean {
    return this.#sent.has(fingerprint);
  }

  retrying(): void {
    this.#retriesUsed += 1;
  }

  attemptFailed(durationMs: number): void {
    this.#failedAttempts += 1;
    this.#addedLatencyMs += durationMs;
  }

  decided(decision: Decision, fingerprint: string, backoffMs: number, spendsRejection = true, callId?: string): void {
    // rejections (the model is asked for a corrected call) count against the task's budget
    // (with `rejectionsScope: 'call'` the call counts its own, from its attempts);
    // a replan's feedback is remembered too, so the identical call is never rejected twice
    const rejection = decision === 'reject_with_feedback' || decision === 'corrected_retry';
    // (a correction that made progress does not spend it: the progress rule bounds it)
    if (rejection && spendsRejection) {
      this.#rejectionsUsed += 1;
      if (callId !== undefined) this.#spentBy.set(callId, (this.#spentBy.get(callId) ?? 0) + 1);
    }
    if (rejection || decision === 'replan') this.#sent.add(fingerprint);
    if (decision === 'retry_backoff') this.#addedLatencyMs += backoffMs;
  }

  awaiting(call: C): void {
    this.#waiting.set(`call:${call.callId}`, call);
    if (call.intentId !== undefined) this.#waiting.set(`intent:${call.intentId}`, call);
    else {
      this.#waiting.set(`tool:${call.toolName}`, call);
      if (call.awaitsToolName) this.#waiting.set('unknown_tool', call);
    }
  }

  /**
   * Takes the call that a one-shot call of `name` continues: the waiting call with the same
   * intent id, else the same call id, else (no intent id given) the waiting call of this tool
   * or, for a registered tool, the one rejected as an unknown tool.
   */
  takeWaiting(name: string, opts: { callId?: string | undefined; intentId?: string | undefined }): C | undefined {
    if (this.#waiting.size === 0) return undefined;
    const w = this.#waiting;
    const call =
      (opts.intentId !== undefined ? w.get(`intent:${opts.intentId}`) : undefined) ??
      (opts.callId !== undefined ? w.get(`call:${opts.callId}`) : undefined) ??
      (opts.intentId === undefined ? (w.get(`tool:${name}`) ?? (this.rt.tools.has(name) ? w.get('unknown_tool') : undefined)) : undefined);
    if (!call || call.done || (call.toolName !== name && !call.awaitsToolName)) return undefined;
    this.#unmark(call);
    // a made-up name corrected to a registered tool: the model found the tool, so the other made-up
    // names it tried meanwhile (no intent id) stop waiting; a later call of one is a call of its own
    if (call.awaitsToolName && call.intentId === undefined && this.rt.tools.has(name)) {
      const stale = new Set([...w.values()].filter((c) => c.awaitsToolName && c.intentId === undefined && !c.done));
      for (const c of stale) c.end();
    }
    return call;
  }

  #unmark(call: C): void {
    for (const [k, v] of this.#waiting) if (v === call) this.#waiting.delete(k);
  }

  finished(call: C, result: CallResult): void {
    this.#unmark(call);
    this.#open.delete(call);
    if (result.ok) {
      this.#answered(result);
      return;
    }
    if (result.decision === 'escalate_human' || result.decision === 'fail_reconcile') this.#escalated = true;
    if (result.decision === 'abort') this.#failed = true;
  }

  /**
   * A call succeeded: the rejections sent for its tool (and for the names it was corrected
   * from) proved actionable, so they no longer count as sent. Seed 001: "If the model returns
   * the identical invalid argument after reading your first error, the error is not actually
   * actionable"; once the model fixed the call, the same mistake in a later step is a new one.
   */
  #answered(result: CallResult): void {
    // the task's rejections bound a model going round in circles (seed 001: "cap the number of
    // rejections per task ... before escalating to a failure"); one it answered with a call that
    // ran was progress, as a closer correction is, and is given back (issue 25 point 2)
    this.#rejectionsUsed = Math.max(0, this.#rejectionsUsed - (this.#spentBy.get(result.callId) ?? 0));
    this.#spentBy.delete(result.callId);
    const tools = new Set([result.tool, ...result.attempts.map((a) => a.tool)]);
    for (const f of this.#sent) if (tools.has(f.slice(0, f.indexOf('\u0000')))) this.#sent.delete(f);
  }

  /**
   * Ends the calls still open and says how the session went: `escalated` if any call went to
   * a human or to reconciliation, `failed` if one aborted or was left uncorrected, else
   * `success`; `clean` when no attempt failed at all.
   */
  close(): { outcome: SessionOutcome; clean: boolean } {
    for (const call of [...this.#open]) {
      // a call still waiting for the model's correction when the session ends was never fixed
      if (call.attempts.length > 0 && call.lastResult && !call.lastResult.ok) this.#failed = true;
      call.end();
    }
    const outcome: SessionOutcome = this.#escalated ? 'escalated' : this.#failed ? 'failed' : 'success';
    return { outcome, clean: this.#failedAttempts === 0 };
  }
}
