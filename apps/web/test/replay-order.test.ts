import { describe, expect, it } from 'vitest';
import { orderByChain, type StepDraft, type StepSequence } from '../src/server/queries/replay-steps.ts';

// The replay's step order where start times tie: the SDK's recorded sequence decides, within one
// counter (one parent span), and a span id decides for steps that have none. Whatever order the
// rows arrive in, the steps come out the same.

const TRACE = 'trace';
const AT = '2026-11-21T09:00:00.123Z'; // one millisecond for every step

const model = (spanId: string, repairs: string | null = null): StepDraft => ({
  kind: 'model',
  spanId,
  traceId: TRACE,
  model: 'gpt-test',
  provider: null,
  startedAt: AT,
  durationMs: 0,
  inputTokens: 1,
  outputTokens: 1,
  cachedInputTokens: 0,
  cost: { usd: 0, pricedTokens: 0, unknownModels: ['gpt-test'] },
  repairFailureClass: repairs ? 'unknown_tool' : null,
  repairAttemptSpanId: repairs,
  repairs: null,
  repairsInferred: false,
  corrected: null,
  input: null,
  output: null,
});

const tool = (spanId: string): StepDraft => ({
  kind: 'tool',
  spanId,
  traceId: TRACE,
  toolName: 'read_file',
  callId: null,
  startedAt: AT,
  durationMs: 0,
  outcome: null,
  failureClass: null,
  failureReason: null,
  decision: null,
  flags: { readOnly: null, idempotent: null, destructive: null, external: null },
  idempotencyKey: null,
  arguments: null,
  result: null,
  reconcileStatus: null,
  deduplicated: false,
  escalationReason: null,
  toolNames: [],
  part: null,
  attempts: [],
});

const seq = (entries: [string, number, string?][]) =>
  new Map<string, StepSequence>(entries.map(([spanId, sequence, scope = 'root']) => [`${TRACE}:${spanId}`, { scope: `${TRACE}:${scope}`, sequence }]));

const order = (drafts: StepDraft[], sequences: Map<string, StepSequence>, toolOfAttempt = new Map<string, string>()) =>
  orderByChain(drafts, new Map(), toolOfAttempt, sequences).map((s) => [s.step, s.spanId]);

describe('replay step order at a tied start time', () => {
  it('follows the recorded sequence whatever order the rows come in, against rank and span id', () => {
    // A call (seq 1) fails, the repair turn (seq 2) answers it, the next turn (seq 3) asks for
    // another call (seq 4): span ids sort the other way, and a model turn would win a tie by kind.
    const drafts = [tool('ffff000000000004'), model('eeee000000000003'), model('dddd000000000002', 'attempt1'), tool('cccc000000000001')];
    const sequences = seq([
      ['cccc000000000001', 1],
      ['dddd000000000002', 2],
      ['eeee000000000003', 3],
      ['ffff000000000004', 4],
    ]);
    const toolOfAttempt = new Map([['attempt1', `${TRACE}:cccc000000000001`]]);
    const expected = [
      [1, 'cccc000000000001'],
      [2, 'dddd000000000002'],
      [3, 'eeee000000000003'],
      [4, 'ffff000000000004'],
    ];
    expect(order(drafts, sequences, toolOfAttempt)).toEqual(expected);
    expect(order([...drafts].reverse(), sequences, toolOfAttempt)).toEqual(expected);
  });

  it('puts a model turn and a tool call of the same millisecond in one order, in both input orders', () => {
    for (const [first, second] of [
      ['a000000000000001', 'b000000000000002'],
      ['b000000000000002', 'a000000000000001'],
    ] as const) {
      // the tool call took its number first: it comes first, though the model turn's kind and span id would win
      const sequences = seq([
        [second, 1],
        [first, 2],
      ]);
      const drafts = [model(first), tool(second)];
      expect(order(drafts, sequences)).toEqual([
        [1, second],
        [2, first],
      ]);
      expect(order([...drafts].reverse(), sequences)).toEqual([
        [1, second],
        [2, first],
      ]);
    }
  });

  it('compares sequences only within one counter, and breaks the remaining ties by span id', () => {
    // Two session objects (two parent spans) each count from 1: their numbers say nothing about
    // each other. Steps without a number (another instrumentation) tie on time and kind alone.
    const drafts = [model('c000000000000003'), model('a000000000000001'), model('b000000000000002'), model('d000000000000004')];
    const sequences = seq([
      ['d000000000000004', 1, 'rootA'],
      ['a000000000000001', 2, 'rootA'],
      ['c000000000000003', 1, 'rootB'],
    ]);
    const expected = [
      [1, 'b000000000000002'],
      [2, 'c000000000000003'],
      [3, 'd000000000000004'],
      [4, 'a000000000000001'],
    ];
    expect(order(drafts, sequences)).toEqual(expected);
    expect(order([...drafts].reverse(), sequences)).toEqual(expected);
    // without any sequence: span id order, in both input orders
    const plain = [
      [1, 'a000000000000001'],
      [2, 'b000000000000002'],
      [3, 'c000000000000003'],
      [4, 'd000000000000004'],
    ];
    expect(order(drafts, new Map())).toEqual(plain);
    expect(order([...drafts].reverse(), new Map())).toEqual(plain);
  });
});

describe('a call listed in parts (call-parts.ts)', () => {
  // The SDK's one-shot path: turn m1, then call c whose attempt a1 failed; turn m2 repaired it and
  // the call went on with attempt a2 (its second part); then turn m3. All in one millisecond.
  const part = (index: number): StepDraft => ({ ...(tool('c') as Extract<StepDraft, { kind: 'tool' }>), part: { index, count: 2, steps: [] } });
  const drafts = () => [model('m1'), part(0), model('m2', 'a1'), part(1), model('m3')];
  const sequences = seq([
    ['m1', 1],
    ['c', 2],
    ['m2', 3],
    ['m3', 4],
  ]);
  const toolOfAttempt = new Map([
    ['a1', `${TRACE}:c`],
    ['a2', `${TRACE}:c#1`],
  ]);
  const kinds = (ds: StepDraft[]) =>
    orderByChain(ds, new Map(), toolOfAttempt, sequences).map((s) => (s.kind === 'tool' ? `c#${s.part?.index}` : s.spanId));

  it('puts the next part after the repair turn and the call’s successor after its last part, in any input order', () => {
    const want = ['m1', 'c#0', 'm2', 'c#1', 'm3'];
    expect(kinds(drafts())).toEqual(want);
    expect(kinds(drafts().reverse())).toEqual(want);
    const [a, b, c, d, e] = drafts() as [StepDraft, StepDraft, StepDraft, StepDraft, StepDraft];
    expect(kinds([d, e, a, c, b])).toEqual(want);
  });
});
