/**
 * Where and why a session escalated, read from its steps (the stored rows as session.ts builds
 * them). Every escalation says why: the reason the runtime recorded, else the budget that ran
 * out, the reconcile answer, the failed guard's reason, the error, the feedback the model got;
 * and when none of those was recorded, what is known (the failure class and the decision).
 */
import { isBudgetReason } from '@guardtrace/semconv';
import { HANDED_BACK } from '../../lib/escalation-summary.ts';
import type { AttemptDto, EscalationDto, EscalationKind, TimelineStepDto, ToolCallStepDto } from './session-types.ts';

const ESCALATING = new Set(['escalate_human', 'fail_reconcile', 'abort']);
// The evidence quoted in one line of the escalation list: a sentence, not a stack trace.
const EVIDENCE_CHARS = 160;

const words = (s: string) => s.replaceAll('_', ' ');

function clip(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > EVIDENCE_CHARS ? `${line.slice(0, EVIDENCE_CHARS - 1)}…` : line;
}

/** What the decision did, in words (`abort` → "aborted"). */
const DONE: Record<string, string> = {
  abort: 'aborted',
  escalate_human: 'handed to a human',
  fail_reconcile: 'failed and reconciled',
};

/**
 * The recorded evidence of why an attempt (or a call without attempts) failed, first found: a
 * failed guard's reason, the error (reason, else its type), the feedback shown to the model.
 */
function evidenceOf(a: AttemptDto | null, call: ToolCallStepDto): string | null {
  const guard = a?.guardChecks.find((g) => g.verdict !== 'pass' && g.reason);
  if (guard?.reason) return `${guard.guardName}: ${clip(guard.reason)}`;
  const failureClass = a ? a.failureClass : call.failureClass;
  const reason = a ? a.failureReason : call.failureReason;
  // A reason or error type that only repeats the class says nothing more.
  const errorType = a?.errorType ?? null;
  if (reason && reason !== failureClass) return reason === errorType ? `error ${clip(reason)}` : clip(reason);
  if (errorType && errorType !== failureClass) return `error ${clip(errorType)}`;
  if (a?.feedback?.text) return `feedback: “${clip(a.feedback.text)}”`;
  return null;
}

/**
 * The runtime's reasons (semconv ESCALATION_REASONS) whose name alone would not tell a reader what
 * happened; the others read as their words ("because rejections per task").
 */
const REASON_TEXT: Record<string, string> = {
  repeated_call: 'the model sent the same call again (same tool, same arguments) after it was rejected',
  no_progress: "the model's corrections stopped getting closer (the same fields kept failing)",
  corrections_per_call: "the call's corrections reached their cap",
};

/** Why the call escalated, as one phrase: never empty. */
function escalationWhy(e: {
  decision: string | null;
  failureClass: string | null;
  reason: string | null;
  budgetExhausted: string | null;
  reconcileStatus: string | null;
  evidence: string | null;
}): string {
  if (e.reason) return `because ${REASON_TEXT[e.reason] ?? words(e.reason)}${e.evidence ? ` (${e.evidence})` : ''}`;
  if (e.budgetExhausted) return `the ${words(e.budgetExhausted)} budget ran out${e.evidence ? ` (${e.evidence})` : ''}`;
  if (e.decision === 'fail_reconcile') {
    return e.reconcileStatus
      ? `side effect uncertain, not retried; reconcile answered ${words(e.reconcileStatus)}`
      : 'side effect uncertain, not retried; no reconcile answer recorded';
  }
  const what = `${e.decision ? (DONE[e.decision] ?? words(e.decision)) : 'escalated'} after ${e.failureClass ? `a ${words(e.failureClass)} failure` : 'a failure of no recorded class'}`;
  return e.evidence ? `${what}: ${e.evidence}` : `${what} (no message recorded)`;
}

function kindOf(e: { decision: string | null; failureClass: string | null; reason: string | null; budgetExhausted: string | null }): EscalationKind {
  if (e.budgetExhausted || e.failureClass === 'budget_exhausted' || isBudgetReason(e.reason)) return 'budget';
  if (e.decision === 'abort') return 'abort';
  if (e.decision === 'fail_reconcile') return 'reconcile';
  return 'human';
}

function escalation(step: ToolCallStepDto, a: AttemptDto | null): EscalationDto {
  const facts = {
    decision: a ? a.decision : step.decision,
    failureClass: a ? a.failureClass : step.failureClass,
    reason: (a ? a.escalationReason : null) ?? step.escalationReason,
    budgetExhausted: a?.budgets.exhausted ?? null,
    reconcileStatus: step.reconcileStatus,
    evidence: evidenceOf(a, step),
  };
  return {
    step: step.step,
    attempt: a?.number ?? null,
    toolName: a?.toolName ?? step.toolName,
    decision: facts.decision,
    reason: facts.reason,
    failureClass: facts.failureClass,
    reconcileStatus: facts.reconcileStatus,
    why: escalationWhy(facts),
    kind: kindOf(facts),
  };
}

/**
 * Marks the attempts the runtime followed by sending the call again itself: `fail_reconcile` on a
 * call whose reconcile hook answered `not_committed` (proven not to have happened), with a later
 * attempt (README: sent again with the same key, within the attempt cap, no model turn).
 */
export function markReconcileResends(call: Pick<ToolCallStepDto, 'reconcileStatus' | 'attempts'>): void {
  if (call.reconcileStatus !== 'not_committed') return;
  for (const a of call.attempts) {
    if (a.decision === 'fail_reconcile' && call.attempts.some((b) => b.number > a.number)) a.resentAfterReconcile = true;
  }
}

/**
 * An escalating decision, or a recorded escalation reason on any decision but a hand-back (a
 * reason without a decision: another instrumentation's, or an older SDK's, escalation).
 */
function escalates(decision: string | null, reason: string | null): boolean {
  if (decision !== null && ESCALATING.has(decision)) return true;
  return reason !== null && !(decision !== null && HANDED_BACK.has(decision));
}

/** Where and why the session escalated: each attempt or call whose decision handed it on, in step order. */
export function escalationsOf(steps: TimelineStepDto[]): EscalationDto[] {
  const out: EscalationDto[] = [];
  for (const s of steps) {
    if (s.kind !== 'tool') continue;
    // an attempt the runtime sent again after a not-committed reconcile handed nothing on
    // a call handed back to the model or its fallback after its retries ran out is not one either
    const hits = s.attempts.filter((a) => !a.resentAfterReconcile && escalates(a.decision, a.escalationReason));
    for (const a of hits) out.push(escalation(s, a));
    // The call's own decision, on its last part (a call listed in parts escalates after its last attempt).
    const last = !s.part || s.part.index === s.part.count - 1;
    if (!hits.length && last && escalates(s.decision, s.escalationReason)) out.push(escalation(s, null));
  }
  return out;
}
