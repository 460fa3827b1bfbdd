/**
 * Words shared by the terminal, Markdown and JUnit reports: the changes in the order a reader
 * wants them (the ones that break things first), and a decision as a few words.
 */
import { REPLAY_CHANGE, type ReplayChange, type ReplayDecision, type ReplayResult, type ReplayRunReport } from '@guardtrace/semconv';

/** Every change, the most consequential first; `unchanged` last. */
export const CHANGE_ORDER: ReplayChange[] = [
  REPLAY_CHANGE.NEWLY_REJECTED,
  REPLAY_CHANGE.NEWLY_ALLOWED,
  REPLAY_CHANGE.CLASS_CHANGED,
  REPLAY_CHANGE.FEEDBACK_CHANGED,
  REPLAY_CHANGE.NOT_REPLAYED,
  REPLAY_CHANGE.UNCHANGED,
];

export const CHANGE_LABEL: Record<ReplayChange, string> = {
  newly_rejected: 'Newly rejected',
  newly_allowed: 'Newly allowed',
  class_changed: 'Class changed',
  feedback_changed: 'Feedback changed',
  not_replayed: 'Not replayed',
  unchanged: 'Unchanged',
};

/** `rejected (guard_violation)`, `allowed`, `allowed (success)`; `not replayed` for null. */
export function decisionText(d: ReplayDecision | null): string {
  if (!d) return 'not replayed';
  if (d.allowed && d.decision === 'auto_repair') return 'allowed (repaired in code)';
  const detail = d.allowed ? null : (d.failureClass ?? d.decision);
  return detail ? `${d.allowed ? 'allowed' : 'rejected'} (${detail})` : d.allowed ? 'allowed' : 'rejected';
}

/** The failed checks' guard names, or an empty string. */
export function failedGuards(d: ReplayDecision | null): string {
  return d ? [...new Set(d.checks.filter((c) => c.verdict === 'fail').map((c) => c.guard))].join(', ') : '';
}

/** Results grouped by change, in CHANGE_ORDER, empty groups left out. */
export function byChange(results: ReplayResult[]): [ReplayChange, ReplayResult[]][] {
  const groups = new Map<ReplayChange, ReplayResult[]>();
  for (const r of results) {
    if (r.change === REPLAY_CHANGE.UNCHANGED) continue;
    const g = groups.get(r.change);
    if (g) g.push(r);
    else groups.set(r.change, [r]);
  }
  return CHANGE_ORDER.filter((c) => groups.has(c)).map((c) => [c, groups.get(c)!]);
}

/** Distinct definition changes per tool, from the results whose recorded definition differs from the current one. */
export function definitionChanges(results: ReplayResult[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const r of results) {
    if (r.definition.changes.length === 0) continue;
    const s = out.get(r.tool) ?? new Set<string>();
    out.set(r.tool, s);
    for (const c of r.definition.changes) s.add(c);
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)).map(([tool, s]) => [tool, [...s]]));
}

/** One line, at most `max` characters. */
export function clip(text: string, max: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** `calls` is the dataset's item count; the rest count attempts. */
export function summaryLine(report: ReplayRunReport, seconds: number): string {
  const s = report.summary;
  const changed = CHANGE_ORDER.filter((c) => c !== REPLAY_CHANGE.UNCHANGED && s[c] > 0).map((c) => `${s[c]} ${CHANGE_LABEL[c].toLowerCase()}`);
  return `replayed ${s.calls} calls (${s.attempts} attempts) in ${seconds.toFixed(1)} s: ${changed.length ? changed.join(', ') : 'no change'}`;
}
