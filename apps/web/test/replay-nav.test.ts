import { describe, expect, it } from 'vitest';
import { moveAttempt, moveFailure, moveStep, placeAttempt, searchSteps, searchText, wholeCall } from '../src/lib/replay-nav.ts';
import { orderSteps } from '../src/server/queries/replay-order.ts';
import type { AttemptDto, TimelineStepDto, ToolCallStepDto } from '../src/server/queries/session-types.ts';

const attempt = (number: number, outcome: string, failureClass: string | null = null): AttemptDto => ({
  spanId: `a${number}`,
  number,
  toolName: 'read_file',
  startedAt: '2026-11-21T09:00:00.000Z',
  durationMs: 1,
  outcome,
  failureClass,
  decision: null,
  feedback: null,
  internalRetry: false,
  backoffMs: null,
  budgets: { attemptsLeft: null, sessionRetriesLeft: null, rejectionsLeft: null, latencyLeftMs: null, repairTokensLeft: null, exhausted: null },
  escalationReason: null,
  circuitState: null,
  fallbackTool: null,
  arguments: null,
  errorType: null,
  failureReason: null,
  guardChecks: [],
  repairedByStep: null,
  autoRepair: null,
});

const tool = (step: number, toolName: string, attempts: AttemptDto[]): ToolCallStepDto => ({
  kind: 'tool',
  step,
  spanId: `t${step}`,
  traceId: 't',
  toolName,
  callId: null,
  startedAt: '2026-11-21T09:00:00.000Z',
  durationMs: 1,
  outcome: attempts.at(-1)?.outcome ?? null,
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
  attempts,
});

const steps: TimelineStepDto[] = [
  tool(1, 'list_dir', [attempt(1, 'success')]),
  tool(2, 'reed_file', [attempt(1, 'rejected', 'unknown_tool'), attempt(2, 'failed', 'transient'), attempt(3, 'success')]),
  tool(3, 'grep', [attempt(1, 'success')]),
  tool(4, 'write_file', [attempt(1, 'rejected', 'invalid_arguments'), attempt(2, 'success')]),
];

describe('stepping in the browser', () => {
  it('j/k move by step and stop at the ends, selecting the first failed attempt of a call', () => {
    expect(moveStep(steps, { step: 1, attempt: 1 }, 1)).toEqual({ step: 2, attempt: 1 });
    expect(moveStep(steps, { step: 1, attempt: 1 }, -1)).toEqual({ step: 1, attempt: 1 });
    expect(moveStep(steps, { step: 4, attempt: 1 }, 1)).toEqual({ step: 4, attempt: 1 });
    expect(moveStep(steps, { step: 2, attempt: 1 }, 1)).toEqual({ step: 3, attempt: 1 });
  });

  it('h/l move between the attempts of the call and stop at its ends', () => {
    expect(moveAttempt(steps, { step: 2, attempt: 1 }, 1)).toEqual({ step: 2, attempt: 2 });
    expect(moveAttempt(steps, { step: 2, attempt: 3 }, 1)).toEqual({ step: 2, attempt: 3 });
    expect(moveAttempt(steps, { step: 2, attempt: 1 }, -1)).toEqual({ step: 2, attempt: 1 });
  });

  it('h/l cross the parts of a call listed in parts (failed attempt → repair turn → corrected attempt), and the detail shows the call whole', () => {
    const part = (steps: number[], index: number) => ({ index, count: steps.length, steps });
    const failed = { ...tool(1, 'search_files', [attempt(1, 'rejected', 'unknown_tool')]), toolNames: ['search_codebase'], part: part([1, 3], 0) };
    const turn = { ...steps[0]!, kind: 'model', step: 2 } as unknown as TimelineStepDto;
    const fixed = { ...tool(3, 'search_files', [attempt(2, 'success')]), toolNames: ['search_codebase', 'search_files'], part: part([1, 3], 1) };
    const list: TimelineStepDto[] = [failed, turn, fixed];
    expect(moveAttempt(list, { step: 1, attempt: 1 }, 1)).toEqual({ step: 3, attempt: 2 });
    expect(moveAttempt(list, { step: 3, attempt: 2 }, -1)).toEqual({ step: 1, attempt: 1 });
    expect(moveAttempt(list, { step: 3, attempt: 2 }, 1)).toEqual({ step: 3, attempt: 2 });
    expect(placeAttempt(list, 1, 2)).toEqual({ step: 3, attempt: 2 });
    expect(placeAttempt(list, 3, 2)).toEqual({ step: 3, attempt: 2 });
    const whole = wholeCall(list, fixed) as ToolCallStepDto;
    expect([whole.step, whole.attempts.map((a) => a.number), whole.toolNames]).toEqual([3, [1, 2], ['search_codebase', 'search_files']]);
    // The whole call lasts from its first part's start to its last part's end, not its first part's 1 ms.
    const later = { ...fixed, startedAt: '2026-11-21T09:00:00.026Z' };
    expect((wholeCall([failed, turn, later], later) as ToolCallStepDto).durationMs).toBe(27);
    expect(wholeCall(list, steps[0]!)).toBe(steps[0]);
  });

  it('e/E go to the next and previous failed attempt, within the call first', () => {
    expect(moveFailure(steps, { step: 1, attempt: 1 }, 1)).toEqual({ step: 2, attempt: 1 });
    expect(moveFailure(steps, { step: 2, attempt: 1 }, 1)).toEqual({ step: 2, attempt: 2 });
    expect(moveFailure(steps, { step: 2, attempt: 2 }, 1)).toEqual({ step: 4, attempt: 1 });
    expect(moveFailure(steps, { step: 4, attempt: 1 }, 1)).toEqual({ step: 4, attempt: 1 });
    expect(moveFailure(steps, { step: 4, attempt: 1 }, -1)).toEqual({ step: 2, attempt: 2 });
  });

  it('search finds steps holding every word, case-insensitive', () => {
    const index = steps.map(searchText);
    expect(searchSteps(index, 'WRITE_file')).toEqual([4]);
    expect(searchSteps(index, 'file')).toEqual([1, 2, 3, 4]);
    expect(searchSteps(index, 'file unknown_tool')).toEqual([2]);
    expect(searchSteps(index, '  ')).toEqual([]);
  });
});

describe('orderSteps', () => {
  const n = (key: string, ms: number, rank = 0) => ({ key, startNs: BigInt(ms) * 1_000_000n, rank, spanId: key });
  it('orders by time where nothing links the steps, and by the links before time', () => {
    const nodes = [n('repair', 5), n('call', 6), n('later', 7)];
    expect(orderSteps(nodes, []).map((x) => x.key)).toEqual(['repair', 'call', 'later']);
    expect(orderSteps(nodes, [{ before: 'call', after: 'repair' }]).map((x) => x.key)).toEqual(['call', 'repair', 'later']);
  });

  it('keeps every node when the links form a cycle', () => {
    const nodes = [n('a', 1), n('b', 2)];
    const out = orderSteps(nodes, [
      { before: 'a', after: 'b' },
      { before: 'b', after: 'a' },
    ]);
    expect(out.map((x) => x.key).sort()).toEqual(['a', 'b']);
  });
});
