import { describe, expect, it } from 'vitest';
import { type BudgetView, type DecideInput, DEFAULT_POLICY, decide, windowedBackoff } from './policy.ts';
import { CallProgress } from './progress.ts';

const PLENTY: BudgetView = { attemptsLeft: 2, sessionRetriesLeft: 9, rejectionsLeft: 2, latencyLeftMs: 30_000, repairTokensLeft: 200_000 };

function input(o: Partial<DecideInput>): DecideInput {
  return {
    failureClass: 'transient', policy: DEFAULT_POLICY.transient, classFailures: 1, budgets: PLENTY,
    repeatedRejection: false, backoffMs: 100, circuitOpen: false, hasFallback: false, ...o,
  };
}

// decide() is the one place a decision is made: what the tool call used to patch into its
// output afterwards (open circuit, fallback tool) are inputs here.
describe('decide()', () => {
  it('retries a transient failure while the budgets allow, and escalates with the budget that ran out', () => {
    expect(decide(input({}))).toEqual({ decision: 'retry_backoff', awaitingCorrection: false });
    expect(decide(input({ budgets: { ...PLENTY, sessionRetriesLeft: 0 } }))).toEqual({
      decision: 'escalate_human', escalationReason: 'session_retries', awaitingCorrection: false,
    });
  });

  it('names an open circuit as the reason, and hands a tool that keeps failing to its declared fallback', () => {
    const circuit = input({ failureClass: 'budget_exhausted', policy: DEFAULT_POLICY.budget_exhausted, circuitOpen: true });
    expect(decide(circuit)).toEqual({ decision: 'escalate_human', escalationReason: 'circuit_breaker', awaitingCorrection: false });
    expect(decide({ ...circuit, hasFallback: true })).toEqual({ decision: 'fallback_tool', escalationReason: 'circuit_breaker', awaitingCorrection: false });
    const exhausted = input({ classFailures: 4, hasFallback: true });
    expect(decide(exhausted)).toEqual({ decision: 'fallback_tool', escalationReason: 'class_retries', awaitingCorrection: false });
    expect(decide({ ...exhausted, classFailures: 1, budgets: { ...PLENTY, attemptsLeft: 0 } })).toMatchObject({ decision: 'fallback_tool', escalationReason: 'attempts_per_call' });
  });

  it('hands an outage that outlasts the code-level retries back to the model (as the frameworks do), not to a human', () => {
    // issue 25: "escalate when the outage outlasts the budget, not before the framework's code-level
    // retries would have succeeded": a framework shows the error after its retries and the model's next
    // call retries again; the session budgets (retries, added latency) bound the outage
    expect(decide(input({ classFailures: 4 }))).toEqual({ decision: 'replan', escalationReason: 'class_retries', awaitingCorrection: false });
    expect(decide(input({ budgets: { ...PLENTY, attemptsLeft: 0 } }))).toEqual({ decision: 'replan', escalationReason: 'attempts_per_call', awaitingCorrection: false });
    // a class the model repairs keeps a human escalation at the attempt cap
    const schema = input({ failureClass: 'invalid_arguments', policy: DEFAULT_POLICY.invalid_arguments, backoffMs: 0, budgets: { ...PLENTY, attemptsLeft: 0 } });
    expect(decide(schema)).toMatchObject({ decision: 'escalate_human', escalationReason: 'attempts_per_call' });
    // a missing resource is not the tool failing: its replan never becomes the fallback tool
    const missing = input({ failureClass: 'missing_resource', policy: DEFAULT_POLICY.missing_resource, hasFallback: true, backoffMs: 0 });
    expect(decide(missing)).toMatchObject({ decision: 'replan' });
  });

  it('keeps a human escalation when a session budget ran out, fallback or not: the tool is not the one failing', () => {
    const spent = input({ hasFallback: true, budgets: { ...PLENTY, latencyLeftMs: 0 } });
    expect(decide(spent)).toEqual({ decision: 'escalate_human', escalationReason: 'added_latency', awaitingCorrection: false });
  });

  it('keeps a call open for the model after a schema failure, and never sends the same rejection twice', () => {
    const schema = input({ failureClass: 'invalid_arguments', policy: DEFAULT_POLICY.invalid_arguments, backoffMs: 0 });
    expect(decide(schema)).toEqual({ decision: 'reject_with_feedback', awaitingCorrection: true });
    expect(decide({ ...schema, repeatedRejection: true, hasFallback: true })).toEqual({
      decision: 'escalate_human', escalationReason: 'repeated_rejection', awaitingCorrection: false,
    });
  });

  it('lets a closer correction past the class retries, the attempt cap and the rejection budget, but not past maxCorrections', () => {
    const schema = input({ failureClass: 'invalid_arguments', policy: DEFAULT_POLICY.invalid_arguments, backoffMs: 0, classFailures: 5 });
    const spent = { ...PLENTY, attemptsLeft: 0, rejectionsLeft: 0 };
    const closer = { repeated: false, measured: true, progressing: true, stalled: 0, corrections: 4 };
    expect(decide({ ...schema, budgets: spent, progress: closer })).toEqual({ decision: 'reject_with_feedback', awaitingCorrection: true });
    expect(decide({ ...schema, progress: { ...closer, corrections: 9 } })).toEqual({ decision: 'escalate_human', escalationReason: 'corrections_per_call', awaitingCorrection: false });
    // sideways: allowed once past the caps, not past the rejection budget; twice is no_progress
    const sideways = { ...closer, progressing: false, stalled: 1 };
    expect(decide({ ...schema, budgets: { ...PLENTY, attemptsLeft: 0 }, progress: sideways })).toMatchObject({ decision: 'reject_with_feedback' });
    expect(decide({ ...schema, budgets: spent, progress: sideways })).toMatchObject({ escalationReason: 'rejections_per_task' });
    expect(decide({ ...schema, progress: { ...sideways, stalled: 2 } })).toMatchObject({ decision: 'escalate_human', escalationReason: 'no_progress' });
    // not measured: the class's own retries decide, as without the rule
    expect(decide({ ...schema, progress: { ...closer, measured: false } })).toMatchObject({ escalationReason: 'class_retries' });
    // the model repeating its own call comes first
    expect(decide({ ...schema, progress: { ...closer, repeated: true } })).toMatchObject({ escalationReason: 'repeated_call' });
  });

  it('measures progress by the failing pointers of the call\'s previous rejection', () => {
    const p = new CallProgress();
    const a = p.assess('t', '{"a":1}', 'invalid_arguments', new Set(['/a', '/b']));
    expect(a).toMatchObject({ measured: false, corrections: 0 });
    p.record('t', '{"a":1}', 'invalid_arguments', new Set(['/a', '/b']), 'reject_with_feedback', a);
    expect(p.assess('t', '{"a":2}', 'invalid_arguments', new Set(['/b']))).toMatchObject({ measured: true, progressing: true, stalled: 0, corrections: 1 });
    const side = p.assess('t', '{"a":3}', 'invalid_arguments', new Set(['/b', '/c']));
    expect(side).toMatchObject({ measured: true, progressing: false, stalled: 1, repeated: false });
    p.record('t', '{"a":3}', 'invalid_arguments', new Set(['/b', '/c']), 'reject_with_feedback', side);
    expect(p.assess('t', '{"a":1}', 'invalid_arguments', new Set(['/a', '/b']))).toMatchObject({ repeated: true, stalled: 2 });
    // another class: it got past the stage that stopped the last attempt
    expect(p.assess('t', '{"a":4}', 'guard_violation', new Set())).toMatchObject({ measured: true, progressing: true });
    // no pointers to compare: not measured
    expect(p.assess('t', '{"a":5}', 'invalid_arguments', new Set())).toMatchObject({ measured: false });
    expect(p.spentRejections).toBe(2);
  });

  it('raises only the last automatic retry\'s wait to the retry window, within the latency left', () => {
    const t = DEFAULT_POLICY.transient;
    expect(windowedBackoff(100, t, { lastRetry: false, waitedMs: 0, latencyLeftMs: 30_000 })).toBe(100);
    expect(windowedBackoff(200, t, { lastRetry: true, waitedMs: 100, latencyLeftMs: 30_000 })).toBe(5_900);
    expect(windowedBackoff(200, t, { lastRetry: true, waitedMs: 100, latencyLeftMs: 1_000 })).toBe(1_000);
    expect(windowedBackoff(8_000, t, { lastRetry: true, waitedMs: 100, latencyLeftMs: 30_000 })).toBe(8_000);
    expect(windowedBackoff(200, { ...t, retryWindowMs: 0 }, { lastRetry: true, waitedMs: 0, latencyLeftMs: 30_000 })).toBe(200);
  });
});
