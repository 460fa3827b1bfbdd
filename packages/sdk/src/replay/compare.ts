/** Recorded and replayed decisions of one attempt, and what changed between them. */
import { type DatasetItemAttempt, type DatasetItemCheck, REPLAY_CHANGE, type ReplayChange, type ReplayDecision } from '@guardtrace/semconv';
import { clip } from '../span-text.ts';
import type { AttemptRecord } from '../types.ts';

/** A recorded attempt's decision: allowed when the guards let it through to `execute` (it succeeded, or failed while or after running). */
export function recordedDecision(a: DatasetItemAttempt): ReplayDecision {
  const allowed = a.outcome ? a.outcome !== 'rejected' : a.decision === null || a.decision === 'proceed';
  return {
    allowed,
    decision: a.decision ?? null,
    failureClass: a.failureClass ?? null,
    feedback: a.feedback ?? null,
    checks: (a.checks ?? []).filter((c) => c.verdict === 'fail'),
  };
}

/** A replayed attempt's decision, its feedback as a span records it (the same clip). */
export function nowDecision(r: AttemptRecord): ReplayDecision {
  const checks: DatasetItemCheck[] = r.guards
    .filter((g) => g.verdict === 'fail')
    .map((g) => ({ guard: g.name, stage: g.stage, verdict: 'fail', reason: g.reason ?? null, failureClass: r.failureClass ?? null, pointers: g.pointers ?? [] }));
  return {
    allowed: r.outcome !== 'rejected',
    decision: r.decision,
    failureClass: r.failureClass ?? null,
    feedback: r.feedback === undefined ? null : clip(r.feedback),
    checks,
  };
}

/**
 * What changed: allowed → rejected, rejected → allowed; both rejected (or both run, under
 * `execute: 'read-only'`): the class, else the feedback text, compared exactly. A call let
 * through as recorded and now only once repaired in code (`repairedNow`) is told the correction:
 * its feedback changed.
 */
export function changeOf(recorded: ReplayDecision, now: ReplayDecision, ranNow: boolean, repairedNow = false): ReplayChange {
  if (recorded.allowed && !now.allowed) return REPLAY_CHANGE.NEWLY_REJECTED;
  if (!recorded.allowed && now.allowed) return REPLAY_CHANGE.NEWLY_ALLOWED;
  // both let through and nothing ran now: the guards decided as before
  if (recorded.allowed && !ranNow) return repairedNow ? REPLAY_CHANGE.FEEDBACK_CHANGED : REPLAY_CHANGE.UNCHANGED;
  if (recorded.failureClass !== now.failureClass) return REPLAY_CHANGE.CLASS_CHANGED;
  if (recorded.feedback !== now.feedback) return REPLAY_CHANGE.FEEDBACK_CHANGED;
  return REPLAY_CHANGE.UNCHANGED;
}
