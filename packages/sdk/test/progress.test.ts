import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { GuardtraceOptions } from '../src/runtime.ts';
import type { PolicyOverrides } from '../src/types.ts';
import { httpError, registerSeedTools } from './fixtures.ts';
import { FakeClock, traced } from './helpers.ts';

// Progress-aware escalation (issue 25, point 2): the failing JSON pointers of each rejected
// attempt of a call decide whether the model is converging; the spans say why a call escalated.

const FIELDS = ['f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'f7', 'f8', 'f9', 'f10'] as const;

function setup(opts: GuardtraceOptions = {}, toolPolicy?: PolicyOverrides) {
  const t = traced(opts);
  const shape = Object.fromEntries(FIELDS.map((f) => [f, z.number()]));
  t.gt.tool({
    name: 'fill_form', description: 'fills a form', schema: z.object(shape), flags: { idempotent: true },
    execute: () => 'saved', ...(toolPolicy ? { policy: toolPolicy } : {}),
  });
  t.gt.tool({ name: 'set_abc', description: 'sets a, b, c', schema: z.object({ a: z.number(), b: z.number(), c: z.number() }), flags: { idempotent: true }, execute: () => 'set' });
  return t;
}

/** A form whose first `fixed` fields are numbers and the rest strings: 11 - fixed failing pointers. */
const form = (fixed: number): Record<string, unknown> => Object.fromEntries(FIELDS.map((f, i) => [f, i < fixed ? i : `v${i}`]));

describe('progress-aware escalation', () => {
  it('escalates an identical repeated call at once, with repeated_call on the attempt and call spans', async () => {
    const { gt, named } = setup();
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('set_abc', { a: 'x', b: 1, c: 2 })).toMatchObject({ decision: 'reject_with_feedback', awaitingCorrection: true });
    // the same arguments, keys in another order: canonically equal
    const r = await s.callTool('set_abc', { c: 2, b: 1, a: 'x' });
    expect(r).toMatchObject({ ok: false, decision: 'escalate_human', failureClass: 'invalid_arguments', escalation: { reason: 'repeated_call' } });
    expect(r.attempts).toHaveLength(2);
    if (!r.ok) expect(r.feedback).toMatch(/same tool, same arguments/);
    const attempts = named('guardtrace.attempt');
    expect(attempts[1]?.attributes['guardtrace.escalation.reason']).toBe('repeated_call');
    expect(attempts[1]?.attributes['guardtrace.budget.exhausted']).toBeUndefined();
    expect(named('execute_tool')[0]?.attributes['guardtrace.escalation.reason']).toBe('repeated_call');
    expect(await s.end()).toBe('escalated');
  });

  it('keeps answering a model whose corrections shrink the failing pointers, past the attempt cap and the rejection budget, up to 9 corrections', async () => {
    const { gt, named } = setup();
    const s = gt.session({ agentName: 'a' });
    // the first call and 8 corrections, each fixing one more field: all answered with feedback
    for (let fixed = 0; fixed <= 8; fixed++) {
      const r = await s.callTool('fill_form', form(fixed));
      expect(r, `attempt ${fixed + 1}`).toMatchObject({ ok: false, decision: 'reject_with_feedback', awaitingCorrection: true });
    }
    // the 9th correction is still closer (2 fields left) but reaches the cap (the OpenAI Agents SDK's 10 turns)
    const r = await s.callTool('fill_form', form(9));
    expect(r).toMatchObject({ ok: false, decision: 'escalate_human', failureClass: 'budget_exhausted', escalation: { reason: 'corrections_per_call' } });
    expect(r.attempts).toHaveLength(10);
    const attempts = named('guardtrace.attempt');
    expect(attempts).toHaveLength(10);
    expect(attempts.slice(0, 9).map((a) => a.attributes['guardtrace.decision'])).toEqual(Array(9).fill('reject_with_feedback'));
    expect(attempts[9]?.attributes).toMatchObject({
      'guardtrace.decision': 'escalate_human', 'guardtrace.escalation.reason': 'corrections_per_call', 'guardtrace.budget.exhausted': 'corrections_per_call',
    });
    // the closer corrections did not spend the task's rejection budget (2): a new call is still answered
    expect(await s.callTool('set_abc', { a: 'x', b: 1, c: 2 })).toMatchObject({ decision: 'reject_with_feedback' });
  });

  it('a correction that shrinks the pointers succeeds when it gets there', async () => {
    const { gt } = setup();
    const s = gt.session({ agentName: 'a' });
    for (const fixed of [0, 4, 8]) expect(await s.callTool('fill_form', form(fixed))).toMatchObject({ decision: 'reject_with_feedback' });
    const r = await s.callTool('fill_form', form(11));
    expect(r).toMatchObject({ ok: true, value: 'saved' });
    expect(r.attempts).toHaveLength(4);
    expect(await s.end()).toBe('success');
  });

  it('escalates with no_progress when the failing pointers stop shrinking for two corrections in a row', async () => {
    const { gt, named } = setup();
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('set_abc', { a: 'x', b: 'y', c: 1 })).toMatchObject({ decision: 'reject_with_feedback' }); // /a /b
    // sideways once (/b /c): still answered
    expect(await s.callTool('set_abc', { a: 1, b: 'y', c: 'z' })).toMatchObject({ decision: 'reject_with_feedback', awaitingCorrection: true });
    // sideways again (/a /c)
    const r = await s.callTool('set_abc', { a: 'q', b: 1, c: 'z' });
    expect(r).toMatchObject({ ok: false, decision: 'escalate_human', failureClass: 'invalid_arguments', escalation: { reason: 'no_progress' } });
    const last = named('guardtrace.attempt')[2]!;
    expect(last.attributes['guardtrace.escalation.reason']).toBe('no_progress');
    expect(last.attributes['guardtrace.budget.exhausted']).toBeUndefined();
    expect(named('execute_tool')[0]?.attributes['guardtrace.escalation.reason']).toBe('no_progress');
  });

  it('takes per-tool overrides of the progress rule (cap and stall limit) over the global ones', async () => {
    const { gt, named } = setup({ policy: { invalid_arguments: { maxCorrections: 2 } } }, { invalid_arguments: { maxCorrections: 4, noProgressAfter: 1 } });
    const s = gt.session({ agentName: 'a' });
    // fill_form: cap 4 from its own policy (not the global 2)
    for (const fixed of [0, 1, 2, 3]) expect(await s.callTool('fill_form', form(fixed))).toMatchObject({ decision: 'reject_with_feedback' });
    expect(await s.callTool('fill_form', form(4))).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'corrections_per_call' } });
    // set_abc: the global cap of 2 corrections
    s.startTask();
    for (const a of [{ a: 'x', b: 'y', c: 'z' }, { a: 1, b: 'y', c: 'z' }]) expect(await s.callTool('set_abc', a)).toMatchObject({ decision: 'reject_with_feedback' });
    expect(await s.callTool('set_abc', { a: 1, b: 2, c: 'z' })).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'corrections_per_call' } });
    expect(named('guardtrace.attempt').filter((a) => a.attributes['guardtrace.escalation.reason'] === 'corrections_per_call')).toHaveLength(2);
  });

  it("with rejectionsScope 'call', a closer correction does not spend the call's rejections either", async () => {
    const { gt, named } = setup({ budgets: { rejectionsScope: 'call' } });
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('fill_form', form(0))).toMatchObject({ decision: 'reject_with_feedback' }); // 11 at fault: spends 1
    expect(await s.callTool('fill_form', form(2))).toMatchObject({ decision: 'reject_with_feedback' }); // 9: closer, spends none
    // sideways (9 again): answered, and it spends the second
    expect(await s.callTool('fill_form', { ...form(3), f0: 'x' })).toMatchObject({ decision: 'reject_with_feedback' });
    expect(named('guardtrace.attempt').map((a) => a.attributes['guardtrace.budget.rejections_left'])).toEqual([1, 1, 0]);
  });

  it('a per-tool stall limit of 1 escalates the first sideways correction', async () => {
    const { gt } = setup({}, { invalid_arguments: { noProgressAfter: 1 } });
    const s = gt.session({ agentName: 'a' });
    expect(await s.callTool('fill_form', form(3))).toMatchObject({ decision: 'reject_with_feedback' });
    // fixes f3 but breaks f0: as many failing pointers as before
    const r = await s.callTool('fill_form', { ...form(4), f0: 'oops' });
    expect(r).toMatchObject({ decision: 'escalate_human', escalation: { reason: 'no_progress' } });
  });
});

describe('outages: no escalation before the frameworks\' code-level retries would have got through', () => {
  it('raises the last wait so the waits reach 6 s (the AI SDK\'s maxRetries 2: 2 s, 4 s), then hands the outage back to the model at the attempt cap', async () => {
    const { gt, clock, named } = traced({}, new FakeClock([0.5]));
    const calls = registerSeedTools(gt, { lookup: () => { throw httpError(503); } });
    const r = await gt.session({ agentName: 'a' }).callTool('lookup_customer', { email: 'a@b.co' });
    expect(calls.lookup).toBe(3);
    // retry 1: 0.5 * 200 = 100; retry 2 (the last the cap allows): 6000 - 100
    expect(clock.sleeps).toEqual([100, 5900]);
    // as a framework's loop does after its code-level retries: the model sees the error and may call again
    expect(r).toMatchObject({ ok: false, decision: 'replan', escalation: { kind: 'replan', reason: 'attempts_per_call' } });
    if (!r.ok) expect(r.feedback).toContain('the outage may still end: call it again');
    expect(named('guardtrace.attempt').map((a) => a.attributes['guardtrace.backoff_ms'])).toEqual([100, 5900, undefined]);
    // handed back, not ended by a budget: the call keeps its class, and the last attempt names why
    // its retries stopped: the budget of attempts per call ran out (what analytics' retry exhaustion counts)
    expect(named('guardtrace.attempt').at(-1)?.attributes).toMatchObject({
      'guardtrace.escalation.reason': 'attempts_per_call',
      'guardtrace.budget.exhausted': 'attempts_per_call',
      'guardtrace.failure.class': 'transient',
    });
  });

  it('an outage that ends within the window succeeds; the window never goes past the latency budget', async () => {
    const clock = new FakeClock([0.5]);
    const t0 = clock.t;
    const { gt } = traced({}, clock);
    // down for 5 s of wall time
    registerSeedTools(gt, { lookup: () => { if (clock.t - t0 < 5_000) throw httpError(503); return { id: 'cus_1' }; } });
    expect(await gt.session({ agentName: 'a' }).callTool('lookup_customer', { email: 'x' })).toMatchObject({ ok: true, value: { id: 'cus_1' } });
    const tight = traced({ budgets: { addedLatencyMs: 3_000 } }, new FakeClock([0.5]));
    registerSeedTools(tight.gt, { lookup: () => { throw httpError(503); } });
    await tight.gt.session({ agentName: 'a' }).callTool('lookup_customer', { email: 'x' });
    expect(tight.clock.sleeps).toEqual([100, 2900]);
  });

  it('takes the retry window per tool', async () => {
    const { gt, clock } = traced({}, new FakeClock([0.5]));
    gt.tool({
      name: 'slow_api', description: 'an API that recovers slowly', schema: z.object({}), flags: { readOnly: true },
      policy: { transient: { retryWindowMs: 10_000 } }, execute: () => { throw httpError(503); },
    });
    await gt.session({ agentName: 'a' }).callTool('slow_api', {});
    expect(clock.sleeps).toEqual([100, 9900]);
  });
});
