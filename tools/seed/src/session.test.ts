/** The generator alone (no collector): the shapes a 50,000-session run holds. */

import { isBudgetReason } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { generateSession } from './session.ts';

// A fixed end time: generation never depends on the day it runs.
const RUN = { seed: 1, sessions: 50_000, untilMs: Date.UTC(2026, 5, 15, 12), days: 30 };

const spanCount = (i: number) => generateSession(RUN, i).groups.reduce((n, g) => n + g.spans.length, 0);

describe('generateSession', () => {
  it('makes five large sessions of ~5,000 spans in 50,000, none cut short by a failure', () => {
    const large = [9_999, 19_999, 29_999, 39_999, 49_999];
    for (const i of large) {
      expect(generateSession(RUN, i).plan.large, `session ${i}`).toBe(true);
      // 1,000 tool calls with their model turns, attempts and guards: well over 4,000 spans each.
      expect(spanCount(i), `session ${i}`).toBeGreaterThan(4_000);
    }
    expect(generateSession(RUN, 9_998).plan.large).toBe(false);
    // The same with another seed: no slot depends on how its random draws fall.
    for (const seed of [2, 3, 11]) {
      for (const i of large) expect(generateSession({ ...RUN, seed }, i).groups[0]?.spans.length, `seed ${seed}, session ${i}`).toBeGreaterThan(4_000);
    }
  });

  it('gives every span an id of its own across sessions, the same for the same seed', () => {
    const ids = new Set<string>();
    let spans = 0;
    for (let i = 0; i < 300; i++) {
      for (const g of generateSession(RUN, i).groups) {
        for (const s of g.spans) {
          expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
          expect(s.spanId).not.toBe('0'.repeat(16));
          ids.add(s.spanId);
          spans++;
        }
      }
    }
    expect(ids.size).toBe(spans);
    const again = generateSession(RUN, 7).groups.flatMap((g) => g.spans.map((s) => s.spanId));
    expect(again).toEqual(generateSession(RUN, 7).groups.flatMap((g) => g.spans.map((s) => s.spanId)));
  });

  it('puts a corrected call after each repair turn: its own execute_tool span with a new call id', () => {
    let repairs = 0;
    let failedAgain = 0;
    for (let i = 0; i < 400; i++) {
      const spans = generateSession(RUN, i).groups.flatMap((g) => g.spans);
      const attr = (s: (typeof spans)[number], k: string) => s.attributes.find((a) => a.key === k)?.value as { stringValue?: string; intValue?: number } | undefined;
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const sorted = [...spans].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1));
      for (const m of sorted) {
        const repaired = attr(m, 'guardtrace.repair.attempt_span_id')?.stringValue;
        if (!repaired) continue;
        const failed = byId.get(repaired);
        const failedCall = failed && byId.get(failed.parentSpanId ?? '');
        expect(failedCall, `session ${i}`).toBeDefined();
        const next = sorted.find((s) => BigInt(s.startTimeUnixNano) > BigInt(m.startTimeUnixNano) && attr(s, 'gen_ai.operation.name')?.stringValue === 'execute_tool');
        if (!next) continue; // the agent gave up after its last correction
        repairs++;
        expect(next.spanId).not.toBe(failedCall?.spanId);
        expect(attr(next, 'gen_ai.tool.call.id')?.stringValue).not.toBe(failedCall && attr(failedCall, 'gen_ai.tool.call.id')?.stringValue);
        if (attr(next, 'guardtrace.attempt')?.intValue !== undefined && attr(next, 'guardtrace.outcome')?.stringValue !== 'success') failedAgain++;
      }
    }
    expect(repairs).toBeGreaterThan(50);
    // Corrections fail as any call can: some do, most do not.
    expect(failedAgain).toBeGreaterThan(0);
    expect(failedAgain).toBeLessThan(repairs / 2);
  });

  it('names the budget that ran out, as the SDK does (a BUDGET_REASONS name, never a boolean)', () => {
    const seen: unknown[] = [];
    for (let i = 0; i < 400; i++) {
      for (const s of generateSession(RUN, i).groups.flatMap((g) => g.spans)) {
        const v = s.attributes.find((a) => a.key === 'guardtrace.budget.exhausted')?.value;
        if (v) seen.push(Object.values(v)[0]);
      }
    }
    // before: every one `true` (the replay showed "budget exhausted: true")
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((v) => !isBudgetReason(v))).toEqual([]);
  });
});

