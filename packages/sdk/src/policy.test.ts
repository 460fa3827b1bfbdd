import { describe, expect, it } from 'vitest';
import { type BudgetView, type DecideInput, DEFAULT_POLICY, decide } from './policy.ts';

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
});
