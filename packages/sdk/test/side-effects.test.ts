import { describe, expect, it } from 'vitest';
import { traced } from './helpers.ts';
import { httpError, registerSeedTools } from './fixtures.ts';

describe('side effects', () => {
  it('a timeout on non-idempotent charge_card is never retried: fail and reconcile by idempotency key', async () => {
    const { gt, named } = traced();
    const calls = registerSeedTools(gt, {
      charge: () => { throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }); },
      reconcile: () => ({ status: 'committed', value: { charge: 'ch_123' } }),
    });
    const s = gt.session({ agentName: 'invoice-agent' });
    const r = await s.callTool('charge_card', { customer_id: 'cus_1', amount_cents: 4200 }, { intentId: 'inv_88' });
    expect(calls.charge).toBe(1);
    expect(r).toMatchObject({ ok: false, failureClass: 'uncertain_side_effect', decision: 'fail_reconcile', reconciliation: { status: 'committed' } });
    if (r.ok) return;
    expect(calls.reconcile).toEqual([r.idempotencyKey]);
    expect(r.idempotencyKey).toBe(calls.keys[0]);
    // the model regenerates the call for the same intent (different key order): no second charge
    const again = await s.callTool('charge_card', '{"amount_cents":4200,"customer_id":"cus_1"}', { intentId: 'inv_88' });
    expect(again).toMatchObject({ ok: true, deduplicated: true, value: { charge: 'ch_123' }, idempotencyKey: r.idempotencyKey });
    expect(calls.charge).toBe(1);
    expect(await s.end()).toBe('escalated');
    const tool = named('execute_tool')[0]!;
    expect(tool.attributes).toMatchObject({ 'guardtrace.reconcile.status': 'committed', 'guardtrace.decision': 'fail_reconcile', 'guardtrace.idempotency_key': r.idempotencyKey });
    expect(named('execute_tool')[1]?.attributes['guardtrace.deduplicated']).toBe(true);
  });

  it('a charge that reconciliation proves never happened is sent again with the same key, without a model turn', async () => {
    const { gt, named } = traced();
    let first = true;
    const calls = registerSeedTools(gt, {
      charge: () => {
        if (first) {
          first = false;
          throw Object.assign(new Error('timeout awaiting provider'), { code: 'ETIMEDOUT' });
        }
        return { charge: 'ch_9' };
      },
      reconcile: () => ({ status: 'not_committed' }),
    });
    const s = gt.session({ agentName: 'invoice-agent' });
    const r = await s.callTool('charge_card', { customer_id: 'cus_1', amount_cents: 4200 }, { intentId: 'inv_9' });
    expect(r).toMatchObject({ ok: true, value: { charge: 'ch_9' } });
    expect(calls.charge).toBe(2);
    expect(calls.reconcile).toHaveLength(1);
    expect(new Set(calls.keys).size).toBe(1); // both sends carry the intent's idempotency key
    expect(r.attempts.map((a) => a.decision)).toEqual(['fail_reconcile', 'proceed']);
    expect(named('execute_tool')[0]?.attributes['guardtrace.reconcile.status']).toBe('not_committed');
  });

  it('a charge still unconfirmed after the attempt cap is left to reconciliation, never sent a fourth time', async () => {
    const { gt } = traced();
    const calls = registerSeedTools(gt, {
      charge: () => { throw Object.assign(new Error('timeout awaiting provider'), { code: 'ETIMEDOUT' }); },
      reconcile: () => ({ status: 'not_committed' }),
    });
    const s = gt.session({ agentName: 'invoice-agent' });
    const r = await s.callTool('charge_card', { customer_id: 'cus_1', amount_cents: 4200 }, { intentId: 'inv_10' });
    expect(calls.charge).toBe(3);
    expect(r).toMatchObject({ ok: false, decision: 'fail_reconcile', reconciliation: { status: 'not_committed' } });
  });

  it('an unresolved uncertain charge blocks a regenerated call until reconciled', async () => {
    const { gt } = traced();
    const calls = registerSeedTools(gt, { charge: () => { throw Object.assign(new Error('t'), { code: 'ETIMEDOUT' }); } });
    const s = gt.session({ agentName: 'a' });
    await s.callTool('charge_card', { customer_id: 'c', amount_cents: 1 }, { intentId: 'i' });
    const r = await s.callTool('charge_card', { customer_id: 'c', amount_cents: 1 }, { intentId: 'i' });
    expect(calls.charge).toBe(1);
    expect(r).toMatchObject({ ok: false, failureClass: 'uncertain_side_effect', decision: 'fail_reconcile' });
  });

  it('missing resources replan without a retry; fatal aborts', async () => {
    const { gt } = traced();
    registerSeedTools(gt, { lookup: () => { throw httpError(404); }, charge: () => { throw httpError(401); } });
    const s = gt.session({ agentName: 'a' });
    const r1 = await s.callTool('lookup_customer', { email: 'x' });
    expect(r1).toMatchObject({ failureClass: 'missing_resource', decision: 'replan', escalation: { kind: 'replan' } });
    expect(r1.attempts).toHaveLength(1);
    const r2 = await s.callTool('charge_card', { customer_id: 'c', amount_cents: 1 });
    expect(r2).toMatchObject({ failureClass: 'fatal', decision: 'abort' });
    expect(await s.end()).toBe('failed');
  });
});
