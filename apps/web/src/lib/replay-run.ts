/**
 * What the run page shows of a replayed attempt, as pure functions: the change's words, the
 * fields a decision's failed checks object to (with their values), a link to the call's replay
 * step that can only lead inside the app, and the item's attempts as the replay's argument diff
 * takes them, judged by the new guards where the run replayed them. No Node or React imports.
 */
import type { DatasetItemCheck, ReplayChange, ReplayDecision, ReplayResult } from '@guardtrace/semconv';
import type { DiffAttempt } from './attempt-diff-rows';
import { valueAt } from './json-diff';

export const CHANGE_TEXT: Record<ReplayChange, { title: string; help: string }> = {
  newly_rejected: { title: 'Newly rejected', help: 'recorded as let through; the current guards reject it' },
  newly_allowed: { title: 'Newly allowed', help: 'recorded as rejected; the current guards let it through' },
  class_changed: { title: 'Class changed', help: 'rejected then and now, with another failure class' },
  feedback_changed: {
    title: 'Feedback changed',
    help: 'the same decision then and now, with other feedback for the model (let through both times: a correction the SDK now makes in code, or what a read-only tool now answers)',
  },
  not_replayed: { title: 'Not replayed', help: 'could not be replayed through the current guards, for the reason given with each' },
  unchanged: { title: 'Unchanged', help: 'the same decision, class and feedback' },
};

/** The pointers of a decision's failed checks, once each, in order. */
export function failedPointers(checks: readonly DatasetItemCheck[] | undefined): string[] {
  const out: string[] = [];
  for (const c of checks ?? []) {
    if (c.verdict !== 'fail') continue;
    for (const p of c.pointers) if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** One field a check objects to: its pointer and its value in the arguments (absent: not there). */
export interface FlaggedField {
  pointer: string;
  present: boolean;
  value: unknown;
  /** The recorded decision's checks objected to it too. */
  recorded: boolean;
}

/** The fields the new decision's failed checks point at, with their values in the replayed arguments. */
export function flaggedFields(result: Pick<ReplayResult, 'arguments' | 'recorded' | 'now'>): FlaggedField[] {
  const before = failedPointers(result.recorded.checks);
  return failedPointers(result.now?.checks).map((pointer) => {
    let found: ReturnType<typeof valueAt> = { found: false };
    try {
      found = valueAt(result.arguments, pointer);
    } catch {
      // not a pointer: shown as absent
    }
    return { pointer, present: found.found, value: found.found ? found.value : undefined, recorded: before.includes(pointer) };
  });
}

/**
 * The replay step's path when it is one of the app's session pages (the report is uploaded with
 * an API key: a `javascript:` or off-site "step" is not linked), else null.
 */
export function stepHref(stepPath: string): string | null {
  return /^\/sessions\/[^/?#\\]/.test(stepPath) ? stepPath : null;
}

/** A decision as one short line: "let through (proceed)" or "rejected: guard_violation (reject_with_feedback)". */
export function decisionLine(d: ReplayDecision | null): string {
  if (!d) return 'not replayed';
  const head = d.allowed ? 'let through' : `rejected${d.failureClass ? `: ${d.failureClass}` : ''}`;
  return d.decision ? `${head} (${d.decision})` : head;
}

/** A recorded attempt of the call, as the dataset item holds it. */
export interface RecordedAttempt {
  number: number;
  arguments: unknown;
  failureClass: string | null;
  checks: DatasetItemCheck[];
}

/**
 * The call's attempts for the replay's argument diff: each recorded attempt with the fields the
 * guards object to, as the run judged it when it replayed that attempt with a change (`now`),
 * else as recorded (an unchanged attempt is judged the same now).
 */
export function diffAttempts(tool: string, attempts: readonly RecordedAttempt[], results: readonly ReplayResult[]): DiffAttempt[] {
  return attempts.map((a) => {
    const r = results.find((x) => x.attempt === a.number);
    const d: Pick<ReplayDecision, 'allowed' | 'failureClass' | 'checks'> = r?.now ?? {
      // Let through to execute when no check before execution failed (a post check runs after it).
      allowed: a.checks.every((c) => c.verdict !== 'fail' || c.stage === 'post'),
      failureClass: a.failureClass,
      checks: a.checks,
    };
    return {
      attempt: a.number,
      tool,
      args: a.arguments,
      failedPointers: failedPointers(d.checks),
      toolFailed: d.failureClass === 'unknown_tool',
      failureClass: d.allowed ? null : d.failureClass,
      passed: d.allowed,
    };
  });
}
