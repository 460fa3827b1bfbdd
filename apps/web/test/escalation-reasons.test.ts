/** The SDK's progress-aware reasons read as what happened, and the correction cap counts as a budget. */
import { ESCALATION_REASONS } from '@guardtrace/semconv';
import { describe, expect, it } from 'vitest';
import { escalationsOf } from '../src/server/queries/escalations.ts';
import type { TimelineStepDto } from '../src/server/queries/session-types.ts';

function escalatedCall(reason: string | null, budgetExhausted: string | null = null, decision: string | null = 'escalate_human'): TimelineStepDto {
  const attempt = {
    number: 2,
    toolName: 'query_db',
    decision,
    escalationReason: reason,
    failureClass: 'invalid_arguments',
    failureReason: null,
    errorType: null,
    feedback: null,
    guardChecks: [],
    budgets: { exhausted: budgetExhausted },
  };
  const call = {
    kind: 'tool',
    step: 3,
    toolName: 'query_db',
    decision,
    escalationReason: reason,
    failureClass: 'invalid_arguments',
    failureReason: null,
    reconcileStatus: null,
    part: null,
    attempts: [attempt],
  };
  return call as unknown as TimelineStepDto;
}

describe('escalation reasons of progress-aware escalation', () => {
  it('says what the model did, not the reason code', () => {
    const why = (reason: string) => escalationsOf([escalatedCall(reason)]).map((e) => [e.kind, e.why]);
    expect(why('repeated_call')).toEqual([['human', 'because the model sent the same call again (same tool, same arguments) after it was rejected']]);
    expect(why('no_progress')).toEqual([['human', "because the model's corrections stopped getting closer (the same fields kept failing)"]]);
    expect(escalationsOf([escalatedCall('corrections_per_call', 'corrections_per_call')]).map((e) => [e.kind, e.why])).toEqual([
      ['budget', "because the call's corrections reached their cap"],
    ]);
  });

  it('has words for every reason the SDK can record', () => {
    for (const reason of ESCALATION_REASONS) {
      const [e] = escalationsOf([escalatedCall(reason)]);
      expect(e?.why).toMatch(/^because [a-z]/);
      expect(e?.why).not.toContain('_');
    }
  });
});

describe('a call handed back after its retries ran out', () => {
  it('is no escalation: replan goes back to the model, fallback_tool to the declared fallback', () => {
    // the SDK records the budget that ended the retries on the hand-back too (transient: attempts_per_call)
    expect(escalationsOf([escalatedCall('attempts_per_call', 'attempts_per_call', 'replan')])).toEqual([]);
    expect(escalationsOf([escalatedCall('class_retries', null, 'fallback_tool')])).toEqual([]);
  });

  it('still lists an escalating decision, and a reason recorded without a decision (another instrumentation)', () => {
    expect(escalationsOf([escalatedCall('session_retries', 'session_retries')]).map((e) => e.kind)).toEqual(['budget']);
    expect(escalationsOf([escalatedCall('attempts_per_call', null, null)]).map((e) => e.kind)).toEqual(['budget']);
    expect(escalationsOf([escalatedCall(null, null, 'abort')]).map((e) => e.kind)).toEqual(['abort']);
  });
});
