import {
  ATTR_ERROR_TYPE,
  ATTR_GUARDTRACE_BACKOFF_MS,
  ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT,
  ATTR_GUARDTRACE_BUDGET_EXHAUSTED,
  ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS,
  ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT,
  ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT,
  ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT,
  ATTR_GUARDTRACE_DECISION,
  ATTR_GUARDTRACE_ESCALATION_REASON,
  ATTR_GUARDTRACE_FAILURE_CLASS,
  ATTR_GUARDTRACE_FEEDBACK,
  ATTR_GUARDTRACE_IDEMPOTENCY_KEY,
  ATTR_GUARDTRACE_OUTCOME,
  type BudgetReason,
  type Decision,
  type EscalationReason,
  type FailureClass,
  isBudgetReason,
} from '@guardtrace/semconv';
import { type AttemptRun, canonicalArgs } from './attempt-state.ts';
import { type BudgetView, backoffDelay, type DecideOutput, decide, windowedBackoff } from './policy.ts';
import { type CallProgress, failingPointers, type ProgressView } from './progress.ts';
import type { RegisteredTool, Runtime } from './runtime.ts';
import { sanitizeFeedback } from './sanitize.ts';
import type { CallReports } from './session-book.ts';
import { clip } from './span-text.ts';
import type { AttemptRecord, Escalation, ReconcileResult } from './types.ts';
import type { Attrs } from './telemetry.ts';

/** A failed attempt, judged: its class, the policy's decision, and what the session is told. */
export interface Judgement {
  failureClass: FailureClass;
  /** Sanitized feedback from the failing stage. */
  feedback: string;
  /** Tool, arguments, class and feedback: the same rejection is never sent twice. */
  fingerprint: string;
  backoffMs: number;
  decision: DecideOutput;
  /** The escalation reason when it is a budget running out (`guardtrace.budget.exhausted`). */
  budgetRanOut: BudgetReason | undefined;
  /** The budget that ended the call (its class becomes `budget_exhausted`): one that ran out, unless the call was handed back to the model. */
  budgetExhausted: BudgetReason | undefined;
  /** How the attempt compares with the call's earlier ones (when the call tracks progress). */
  progress?: ProgressView;
}

export interface JudgeInput {
  rt: Runtime;
  tool: RegisteredTool | undefined;
  toolName: string;
  run: AttemptRun;
  /** The call's attempts before this one. */
  history: readonly AttemptRecord[];
  book: CallReports;
  attemptsLeft: number;
  /** The call's progress so far; the judged attempt is booked into it. */
  progress?: CallProgress;
}

/** Rejections the model was sent for a call (its attempts asking for a corrected call). */
function rejectionsOf(attempts: readonly AttemptRecord[]): number {
  let n = 0;
  for (const a of attempts) if (a.decision === 'reject_with_feedback' || a.decision === 'corrected_retry') n += 1;
  return n;
}

/** The waits of the automatic retries that directly precede this attempt (the outage so far). */
function waitedInOutage(history: readonly AttemptRecord[]): number {
  let ms = 0;
  for (let i = history.length - 1; i >= 0 && history[i]?.decision === 'retry_backoff'; i--) ms += history[i]?.backoffMs ?? 0;
  return ms;
}

/** Everything the decision needs, gathered once; `decide()` is called once and its output kept as it is. */
export function judge(j: JudgeInput): Judgement {
  const { rt, run } = j;
  const failureClass = run.failureClass ?? 'guard_violation';
  const policy = (j.tool?.mergedPolicy ?? rt.policy)[failureClass];
  const classFailures = j.history.filter((a) => a.failureClass === failureClass).length + 1;
  const feedback = sanitizeFeedback(run.feedback ?? failureClass, rt.sanitize);
  const fingerprint = `${j.toolName}\u0000${canonicalArgs(run)}\u0000${failureClass}\u0000${feedback}`;
  const budgets = j.book.budgets(j.attemptsLeft, j.progress ? j.progress.spentRejections : rejectionsOf(j.history));
  let backoffMs = 0;
  if (policy.decision === 'retry_backoff') {
    // the retry that will be the last the class or the attempt cap allows
    const lastRetry = classFailures >= policy.retries || j.attemptsLeft <= 1;
    const raw = backoffDelay(rt.backoff, classFailures - 1, rt.clock.random(), run.retryAfterMs);
    backoffMs = windowedBackoff(raw, policy, { lastRetry, waitedMs: waitedInOutage(j.history), latencyLeftMs: budgets.latencyLeftMs });
  }
  const args = canonicalArgs(run);
  const pointers = j.progress ? failingPointers(run.guards) : undefined;
  const progress = j.progress && pointers ? j.progress.assess(j.toolName, args, failureClass, pointers) : undefined;
  const decision = decide({
    failureClass, policy, classFailures, budgets, repeatedRejection: j.book.alreadySent(fingerprint),
    backoffMs, circuitOpen: Boolean(run.circuitOpen), hasFallback: Boolean(j.tool?.fallbackTool), progress,
  });
  if (j.progress && pointers && progress) j.progress.record(j.toolName, args, failureClass, pointers, decision.decision, progress);
  // neither the class's own retries nor a repeated rejection is a budget running out:
  // the call keeps its failure class and the reason says why it escalated
  const reason = decision.escalationReason;
  const budgetRanOut = isBudgetReason(reason) ? reason : undefined;
  // a replan is the class's policy handing the call back to the model, not a budget ending it: the
  // call keeps its class, and the attempt still names the budget that ran out (its retries did)
  const budgetExhausted = budgetRanOut && decision.decision !== 'replan' ? budgetRanOut : undefined;
  const out: Judgement = { failureClass, feedback, fingerprint, backoffMs, decision, budgetRanOut, budgetExhausted };
  if (progress) out.progress = progress;
  return out;
}

/**
 * Whether the judged rejection spends the rejection budget: a correction that made measured
 * progress does not (the progress rule and its cap bound it), every other rejection does.
 */
export function spendsRejection(j: Judgement): boolean {
  return !(j.progress?.measured && j.progress.progressing);
}

/** The feedback the model is shown for the decision; `found` is what discovery found. */
export function shownFeedback(j: Judgement, found: string | undefined, toolName: string, fallbackTool: string | undefined): string {
  const feedback = found === undefined ? j.feedback : `${j.feedback}\n\n${found}`;
  const { decision, escalationReason } = j.decision;
  if (decision === 'fallback_tool') return `${feedback}\n\n${toolName} keeps failing; use ${fallbackTool} instead.`;
  if (decision === 'escalate_human' && escalationReason) return escalationFeedback(escalationReason, feedback);
  if (decision === 'replan' && j.failureClass === 'transient') {
    return `${feedback}\n\n${toolName} was retried in code until this call's retries ran out; the outage may still end: call it again, or continue with another step first.`;
  }
  return feedback;
}

function escalationFeedback(reason: EscalationReason, original: string): string {
  if (reason === 'repeated_rejection') {
    return `The same call was already rejected with this feedback; it is not being sent again. Escalating.\n\n${original}`;
  }
  if (reason === 'repeated_call') {
    return `This exact call (same tool, same arguments) was already rejected in this call; sending it again cannot fix it. Escalating.\n\n${original}`;
  }
  if (reason === 'no_progress') {
    return `The corrections are not reducing the fields at fault; escalating with the attempt history.\n\n${original}`;
  }
  if (reason === 'class_retries') return original;
  return `Retry budget exhausted (${reason}). Escalating with the attempt history.\n\n${original}`;
}

/**
 * Attributes of a failed attempt's span. `after` is the budgets once this decision is booked;
 * the retry it schedules (automatic, or the model's corrected call) counts as spent already.
 */
export function failedAttemptAttrs(j: Judgement, record: AttemptRecord, run: AttemptRun, attemptsLeft: number, after: BudgetView): Attrs {
  const d = j.decision;
  const retriesLeft = after.sessionRetriesLeft - (d.decision === 'retry_backoff' || d.awaitingCorrection ? 1 : 0);
  return {
    [ATTR_GUARDTRACE_OUTCOME]: record.outcome,
    [ATTR_GUARDTRACE_FAILURE_CLASS]: j.failureClass,
    [ATTR_GUARDTRACE_DECISION]: d.decision,
    [ATTR_GUARDTRACE_FEEDBACK]: clip(record.feedback ?? ''),
    [ATTR_GUARDTRACE_BACKOFF_MS]: record.backoffMs,
    [ATTR_ERROR_TYPE]: run.errorType ?? j.failureClass,
    [ATTR_GUARDTRACE_IDEMPOTENCY_KEY]: run.idempotencyKey,
    [ATTR_GUARDTRACE_BUDGET_ATTEMPTS_LEFT]: Math.max(0, attemptsLeft),
    [ATTR_GUARDTRACE_BUDGET_SESSION_RETRIES_LEFT]: Math.max(0, retriesLeft),
    [ATTR_GUARDTRACE_BUDGET_REJECTIONS_LEFT]: Math.max(0, after.rejectionsLeft),
    [ATTR_GUARDTRACE_BUDGET_LATENCY_LEFT_MS]: Math.max(0, Math.round(after.latencyLeftMs)),
    [ATTR_GUARDTRACE_BUDGET_REPAIR_TOKENS_LEFT]: Math.max(0, after.repairTokensLeft),
    [ATTR_GUARDTRACE_BUDGET_EXHAUSTED]: j.budgetRanOut,
    [ATTR_GUARDTRACE_ESCALATION_REASON]: d.escalationReason,
  };
}

/**
 * After an uncertain side effect: asks the tool's reconcile hook (unless the idempotency
 * stage already did) and settles the store: a committed call is done, one that never took
 * effect may be sent again under the same key.
 */
export async function reconcile(rt: Runtime, tool: RegisteredTool | undefined, run: AttemptRun): Promise<ReconcileResult> {
  const key = run.idempotencyKey;
  let rec: ReconcileResult = run.reconciliation ?? { status: 'unknown', detail: 'no reconcile hook' };
  if (key && tool?.reconcile && !run.reconciliation) {
    try {
      rec = await tool.reconcile(key, run.args);
    } catch (err) {
      rec = { status: 'unknown', detail: err instanceof Error ? err.message : String(err) };
    }
  }
  if (key) {
    if (rec.status === 'committed') rt.idempotency.set(key, { status: 'done', value: rec.value });
    else if (rec.status === 'not_committed') rt.idempotency.delete(key);
  }
  return rec;
}

const ESCALATION_KINDS: Partial<Record<Decision, Escalation['kind']>> = {
  replan: 'replan', escalate_human: 'escalate_human', fallback_tool: 'fallback_tool', fail_reconcile: 'fail_reconcile', abort: 'abort',
};

/** The escalation a final decision hands the agent loop, with the call's attempt history. */
export function escalation(
  decision: Decision,
  reason: EscalationReason | FailureClass,
  history: readonly AttemptRecord[],
  fallbackTool: string | undefined,
): Escalation | undefined {
  const kind = ESCALATION_KINDS[decision];
  if (!kind) return undefined;
  const esc: Escalation = { kind, reason, history: [...history] };
  if (kind === 'fallback_tool' && fallbackTool) esc.fallbackTool = fallbackTool;
  return esc;
}
