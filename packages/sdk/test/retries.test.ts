import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { FakeClock, traced } from './helpers.ts';
import { httpError, registerSeedTools } from './fixtures.ts';

// Automatic retries of transient failures (backoff, caps, session retries) and the circuit breaker with its fallback tool.

describe('transient failures', () => {
  it('retries 503 with full-jitter exponential backoff, honouring Retry-After, inside one call', async () => {
    const clock = new FakeClock([0.5]);
    let n = 0;
    // the retry window (progress.test) would raise the last wait: off here, the backoff alone
    const { gt, named } = traced({ policy: { transient: { retryWindowMs: 0 } } }, clock);
    registerSeedTools(gt, {
      lookup: () => {
        n += 1;
        if (n === 1) throw httpError(503);
        if (n === 2) throw httpError(429, { 'retry-after': '3' });
        return { id: 'cus_9' };
      },
    });
    const s = gt.session({ agentName: 'a' });
    const r = await s.callTool('lookup_customer', { email: 'a@b.co' });
    expect(r).toMatchObject({ ok: true, value: { id: 'cus_9' } });
    // retry 1: 0.5 * min(10000, 200 * 2^0) = 100; retry 2: max(0.5 * 400, Retry-After 3000) = 3000
    expect(clock.sleeps).toEqual([100, 3000]);
    const attempts = named('guardtrace.attempt');
    expect(attempts.map((a) => a.attributes['guardtrace.decision'])).toEqual(['retry_backoff', 'retry_backoff', 'proceed']);
    expect(attempts.map((a) => a.attributes['guardtrace.backoff_ms'])).toEqual([100, 3000, undefined]);
    expect(attempts[0]?.attributes['error.type']).toBe('503');
    expect(named('execute_tool')[0]?.attributes['guardtrace.attempt']).toBe(3);
  });

  it('stops at the hard cap of 3 attempts and hands the outage back to the model with the history', async () => {
    const { gt, clock } = traced();
    const calls = registerSeedTools(gt, { lookup: () => { throw httpError(503); } });
    const s = gt.session({ agentName: 'a' });
    const r = await s.callTool('lookup_customer', { email: 'a@b.co' });
    expect(calls.lookup).toBe(3);
    expect(clock.sleeps).toHaveLength(2);
    // the class's policy handed it back (not a budget ending the call): the call keeps its class
    expect(r).toMatchObject({ ok: false, decision: 'replan', failureClass: 'transient', escalation: { kind: 'replan', reason: 'attempts_per_call' } });
    if (!r.ok) expect(r.escalation?.history.map((a) => a.failureClass)).toEqual(['transient', 'transient', 'transient']);
  });

  it('enforces the added-latency budget before sleeping', async () => {
    const { gt, clock } = traced({ budgets: { addedLatencyMs: 1000 } });
    registerSeedTools(gt, { lookup: () => { throw httpError(503, { 'retry-after': '5' }); } });
    const r = await gt.session({ agentName: 'a' }).callTool('lookup_customer', { email: 'x' });
    expect(clock.sleeps).toEqual([]);
    expect(r).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'added_latency' } });
  });

  it('enforces the session retry budget across calls', async () => {
    const { gt } = traced({ budgets: { sessionRetries: 3 } });
    registerSeedTools(gt, { lookup: () => { throw httpError(503); } });
    const s = gt.session({ agentName: 'a' });
    await s.callTool('lookup_customer', { email: 'x' }); // 2 retries
    const r = await s.callTool('lookup_customer', { email: 'y' }); // 1 retry, then out
    expect(r.attempts).toHaveLength(2);
    expect(r).toMatchObject({ escalation: { reason: 'session_retries' } });
  });

  it('reports the session retries left after the retry each attempt schedules', async () => {
    const { gt, named } = traced({ budgets: { sessionRetries: 4 } });
    registerSeedTools(gt, { lookup: () => { throw httpError(503); } });
    const s = gt.session({ agentName: 'a' });
    await s.callTool('lookup_customer', { email: 'x' }); // retry, retry, cap
    await s.callTool('lookup_customer', { email: 'y' }); // retry, retry, out of session retries
    const left = named('guardtrace.attempt').map((a) => a.attributes['guardtrace.budget.session_retries_left']);
    expect(left).toEqual([3, 2, 2, 1, 0, 0]);
    // a rejection waiting for the model's corrected call has scheduled a retry too
    const r = await s.callTool('create_file', { path: 'a' });
    expect(r).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'session_retries' } });
    const { gt: gt2, named: named2 } = traced({ budgets: { sessionRetries: 1 } });
    registerSeedTools(gt2);
    const s2 = gt2.session({ agentName: 'a' });
    expect(await s2.callTool('create_file', { path: 'a' })).toMatchObject({ decision: 'reject_with_feedback', awaitingCorrection: true });
    expect(named2('guardtrace.attempt')[0]?.attributes['guardtrace.budget.session_retries_left']).toBe(0);
  });

  it('opens the circuit after repeated failed calls (each after its code-level retries) and proposes the fallback tool', async () => {
    // the seed's breakers "kill runaway operations": a call and its retries are one operation, so the
    // breaker never cuts the retries a framework would make within a call (issue 25 point 2)
    const { gt, clock } = traced({ budgets: { circuitBreaker: { failureThreshold: 2, cooldownMs: 10_000 }, sessionRetries: 20 } });
    const calls = registerSeedTools(gt, { lookup: () => { throw httpError(503); } });
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('lookup_customer', { email: 'x' })).toMatchObject({ decision: 'replan' });
    expect(calls.lookup).toBe(3);
    // one failed call: the circuit is still closed, the next call runs its 3 attempts
    expect(await s.callTool('lookup_customer', { email: 'w' })).toMatchObject({ decision: 'replan' });
    expect(calls.lookup).toBe(6);
    const r = await s.callTool('lookup_customer', { email: 'y' });
    expect(calls.lookup).toBe(6);
    expect(r).toMatchObject({ failureClass: 'budget_exhausted', decision: 'escalate_human' });
    expect(r.attempts[0]?.guards.map((g) => g.name)).toEqual(['circuit_breaker']);
    clock.t += 10_000;
    await s.callTool('lookup_customer', { email: 'z' });
    expect(calls.lookup).toBe(7); // half-open trial let one call through
  });
});

describe('fallback tool', () => {
  it('proposes the declared fallback when the tool keeps failing or its circuit is open', async () => {
    const { gt } = traced({ budgets: { circuitBreaker: { failureThreshold: 1, cooldownMs: 60_000 } } });
    gt.tool({
      name: 'atomic_replace',
      description: 'replace atomically',
      schema: z.object({ path: z.string() }),
      flags: { idempotent: true },
      fallbackTool: 'write_file',
      execute: () => { throw httpError(503); },
    });
    const s = gt.session({ agentName: 'a' });
    const r1 = await s.callTool('atomic_replace', { path: 'a' });
    expect(r1).toMatchObject({ ok: false, decision: 'fallback_tool', escalation: { kind: 'fallback_tool', fallbackTool: 'write_file', reason: 'attempts_per_call' } });
    if (!r1.ok) expect(r1.feedback).toContain('use write_file instead');
    const r2 = await s.callTool('atomic_replace', { path: 'b' });
    expect(r2).toMatchObject({ decision: 'fallback_tool', escalation: { reason: 'circuit_breaker' } });
    expect(r2.attempts).toHaveLength(1);
  });
});
