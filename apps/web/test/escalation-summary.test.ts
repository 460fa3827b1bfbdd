import { describe, expect, it } from 'vitest';
import { escalationSummary, groupEscalations } from '../src/lib/escalation-summary.ts';
import type { EscalationDto, EscalationKind } from '../src/server/queries/session-types.ts';

const e = (step: number, kind: EscalationKind, failureClass: string | null): EscalationDto => ({
  step,
  attempt: 1,
  toolName: 't',
  decision: null,
  reason: null,
  failureClass,
  reconcileStatus: null,
  why: 'x',
  kind,
});

describe('escalation summary', () => {
  it('counts escalations by kind, largest first, naming the failure classes a kind does not already say', () => {
    const list = [
      e(3, 'abort', 'fatal'),
      ...Array.from({ length: 34 }, (_, i) => e(10 + i, 'budget', 'budget_exhausted')),
      ...Array.from({ length: 19 }, (_, i) => e(100 + i, 'abort', i % 2 ? 'guard_violation' : 'fatal')),
      e(200, 'abort', 'guard_violation'),
    ];
    expect(escalationSummary(list)).toBe('55 escalations: 34 budget exhausted, 21 aborted (fatal, guard violation)');
    expect(groupEscalations(list).map((g) => [g.kind, g.first.step])).toEqual([
      ['budget', 10],
      ['abort', 3],
    ]);
  });

  it('says one escalation in the singular, and a kind without a class plainly', () => {
    expect(escalationSummary([e(2, 'reconcile', null)])).toBe('1 escalation: 1 sent to reconcile');
    expect(escalationSummary([e(2, 'human', 'invalid_arguments'), e(4, 'human', 'invalid_arguments')])).toBe(
      '2 escalations: 2 handed to a human (invalid arguments)',
    );
  });
});
