/** The replay's one-line summary of a session's escalations: how many, of which kind, after which failure classes. */
import type { EscalationDto, EscalationKind } from '@/server/queries/session-types';
import { classStyle } from './failure-classes';
import { formatInt } from './format';

/**
 * Decisions that end a call by handing its failure back to the model (`replan`) or to the tool's
 * declared fallback (`fallback_tool`). The runtime records the budget that ended the call's
 * retries on them too (`guardtrace.escalation.reason`, e.g. `attempts_per_call`), but the session
 * goes on: they are not escalations (SDK README: "the outage goes back to the model").
 */
export const HANDED_BACK: ReadonlySet<string> = new Set(['replan', 'fallback_tool']);

/** Whether an attempt or call with this decision and reason ran out of retries and was handed back, not escalated. */
export function handedBack(decision: string | null, reason: string | null): boolean {
  return reason !== null && decision !== null && HANDED_BACK.has(decision);
}

const KIND_TEXT: Record<EscalationKind, string> = {
  budget: 'budget exhausted',
  abort: 'aborted',
  reconcile: 'sent to reconcile',
  human: 'handed to a human',
};

export interface EscalationGroup {
  kind: EscalationKind;
  count: number;
  /** Failure classes of the group's escalations (labels), in order of first appearance. */
  classes: string[];
  /** The group's first escalation. */
  first: EscalationDto;
}

/** Escalations by kind, largest group first (ties: the kind met first). */
export function groupEscalations(escalations: EscalationDto[]): EscalationGroup[] {
  const groups = new Map<EscalationKind, EscalationGroup>();
  for (const e of escalations) {
    let g = groups.get(e.kind);
    if (!g) {
      g = { kind: e.kind, count: 0, classes: [], first: e };
      groups.set(e.kind, g);
    }
    g.count++;
    const label = e.failureClass ? classStyle(e.failureClass).label : null;
    // "budget exhausted (budget exhausted)" says nothing: the class is named only when it adds to the kind.
    if (label && label !== KIND_TEXT[e.kind] && !g.classes.includes(label)) g.classes.push(label);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

export function groupText(g: EscalationGroup): string {
  return `${formatInt(g.count)} ${KIND_TEXT[g.kind]}${g.classes.length ? ` (${g.classes.join(', ')})` : ''}`;
}

/** e.g. "55 escalations: 34 budget exhausted, 21 aborted (fatal, guard violation)". */
export function escalationSummary(escalations: EscalationDto[]): string {
  const n = escalations.length;
  return `${formatInt(n)} escalation${n === 1 ? '' : 's'}: ${groupEscalations(escalations).map(groupText).join(', ')}`;
}
