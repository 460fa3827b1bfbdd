/**
 * Webhook delivery: a receiver that answers 500 first gets the same signed delivery again after
 * an exponential backoff stored in the database (each attempt in the delivery log), until it
 * answers 2xx; a receiver that never does is given up after the last attempt. Times are passed
 * in (the backoff is measured against them), so nothing waits on the clock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { backoffMs, MAX_ATTEMPTS, MUTED, RESOLVED_FIRST, RETRY_BASE_MS } from '../src/alerts/deliver.ts';
import { runAlertTick } from '../src/alerts/evaluate.ts';
import { createRule, failingSession, type Receiver, startReceiver, T0, useAlertFixture, WEB } from './alerts-support.ts';
import type { Env } from './helpers.ts';

const SECRET = 'whsec_delivery_secret';
const fixture = useAlertFixture(SECRET);
let env: Env;
let receiver: Receiver;
beforeAll(() => {
  env = fixture.env;
  receiver = fixture.receiver;
});

async function firingRule(windowMinutes = 1440): Promise<{ ruleId: string; fireAt: number }> {
  const { projectId, key } = await fixture.newProjectKey();
  await fixture.send(failingSession({ startMs: T0, tool: 'search', failures: [{ cls: 'transient' }] }).spans, key);
  // A day's window by default: the rule stays firing while the retries run.
  const ruleId = await createRule(env.sql, { projectId, kind: 'failure_count', threshold: 1, windowMinutes, url: receiver.url, secret: SECRET });
  return { ruleId, fireAt: T0 + 60_000 };
}

const deliveryOf = async (ruleId: string) =>
  (
    await env.sql.query(
      `SELECT d.id, d.status, d.attempts, d.last_status_code, d.last_error, d.last_attempt_at, d.next_attempt_at, d.delivered_at
       FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id WHERE e.rule_id = $1`,
      [ruleId],
    )
  ).rows;

describe('retries', () => {
  it('retries a failing receiver with exponential backoff until it answers, signing each attempt anew', async () => {
    const { ruleId, fireAt } = await firingRule();
    receiver.failNext(2);
    const before = receiver.got.length;
    const tick = (ms: number) => runAlertTick(env.sql, { now: new Date(ms), webUrl: WEB });
    // Each attempt is logged at its own moments on the run's clock: sent a few milliseconds after
    // the run began, the next attempt due its backoff after the answer.
    const near = (t: Date | null, ms: number) => {
      expect(t?.getTime()).toBeGreaterThanOrEqual(ms);
      expect(t?.getTime()).toBeLessThan(ms + 2_000);
    };
    await tick(fireAt);
    let [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500' });
    near(d.last_attempt_at, fireAt);
    near(d.next_attempt_at, fireAt + RETRY_BASE_MS);
    // Not due yet one second before: nothing is sent.
    await tick(fireAt + RETRY_BASE_MS - 1000);
    expect(receiver.got.length - before).toBe(1);
    const second = d.next_attempt_at.getTime();
    await tick(second);
    [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 500 });
    // Doubled: 60 s after the second attempt.
    near(d.next_attempt_at, second + 2 * RETRY_BASE_MS);
    const third = d.next_attempt_at.getTime();
    await tick(third);
    [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null });
    near(d.delivered_at, third);
    const got = receiver.got.slice(before);
    expect(got.map((g) => g.status)).toEqual([500, 500, 200]);
    // The same delivery each time (a receiver dedupes on it), signed with each attempt's timestamp.
    expect(new Set(got.map((g) => g.headers['x-guardtrace-delivery']))).toEqual(new Set([d.id]));
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    const sent = got.map((g) => Number(g.headers['x-guardtrace-timestamp']) * 1000);
    for (const [i, t] of [fireAt, second, third].entries()) {
      expect(sent[i]).toBeGreaterThanOrEqual(Math.floor(t / 1000) * 1000);
      expect(sent[i]).toBeLessThan(t + 2_000);
    }
    expect(got.every((g) => g.verified)).toBe(true);
    // Delivered: later runs send nothing more.
    await tick(third + 3_600_000);
    expect(receiver.got.length - before).toBe(3);
  });

  it('logs a slow answer when it came, not when the run began', async () => {
    const { ruleId, fireAt } = await firingRule();
    receiver.delayNext(1_500);
    await runAlertTick(env.sql, { now: new Date(fireAt), webUrl: WEB });
    const [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(d.last_attempt_at.getTime()).toBeLessThan(fireAt + 1_000);
    expect(d.delivered_at.getTime() - d.last_attempt_at.getTime()).toBeGreaterThanOrEqual(1_400);
  });

  it('gives up after the last attempt and says why in the log', async () => {
    const { ruleId, fireAt } = await firingRule();
    receiver.failNext(1000);
    let t = fireAt;
    for (let i = 1; i <= MAX_ATTEMPTS; i++) {
      await runAlertTick(env.sql, { now: new Date(t), webUrl: WEB });
      const [pending] = await deliveryOf(ruleId);
      if (i < MAX_ATTEMPTS) {
        // Due its backoff after this attempt's answer (a few milliseconds into the run).
        expect(pending.next_attempt_at.getTime() - t).toBeGreaterThanOrEqual(backoffMs(i));
        expect(pending.next_attempt_at.getTime() - t).toBeLessThan(backoffMs(i) + 2_000);
        t = pending.next_attempt_at.getTime();
      }
    }
    const [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, last_status_code: 500, next_attempt_at: null, delivered_at: null });
    receiver.failNext(0);
  });

  it('records a receiver that cannot be reached', async () => {
    const { ruleId, fireAt } = await firingRule();
    // A port nothing listens on: the closed receiver's.
    const gone = await startReceiver(SECRET);
    await gone.close();
    await env.sql.query('UPDATE alert_rules SET webhook_url = $2 WHERE id = $1', [ruleId, gone.url]);
    await runAlertTick(env.sql, { now: new Date(fireAt), webUrl: WEB });
    const [d] = await deliveryOf(ruleId);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'ECONNREFUSED' });
  });

  it("stops retrying a muted rule's delivery, and the log says why", async () => {
    const { ruleId, fireAt } = await firingRule();
    receiver.failNext(1000);
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: new Date(fireAt), webUrl: WEB });
    await env.sql.query('UPDATE alert_rules SET muted = true WHERE id = $1', [ruleId]);
    await runAlertTick(env.sql, { now: new Date(fireAt + RETRY_BASE_MS), webUrl: WEB });
    await runAlertTick(env.sql, { now: new Date(fireAt + 3_600_000), webUrl: WEB });
    expect(receiver.got.length - before).toBe(1);
    const [d] = await deliveryOf(ruleId);
    // The reason, with what its last attempt got.
    expect(d).toMatchObject({ status: 'cancelled', attempts: 1, last_status_code: 500, next_attempt_at: null });
    expect(d?.last_error).toMatch(/^not sent: the rule was muted \(last attempt: .+\)$/);
    expect(d?.last_error?.startsWith(MUTED)).toBe(true);
    receiver.failNext(0);
  });

  it('sends neither a firing still being retried when its alert resolves, nor the resolution', async () => {
    // A 5-minute window: the failure leaves it, and the alert resolves, before the receiver is back.
    const { ruleId, fireAt } = await firingRule(5);
    receiver.failNext(1000);
    const before = receiver.got.length;
    await runAlertTick(env.sql, { now: new Date(fireAt), webUrl: WEB });
    receiver.failNext(0);
    await runAlertTick(env.sql, { now: new Date(fireAt + 10 * 60_000), webUrl: WEB });
    await runAlertTick(env.sql, { now: new Date(fireAt + 3_600_000), webUrl: WEB });
    // Only the first, failed attempt of the firing reached it.
    expect(receiver.got.slice(before).map((g) => g.status)).toEqual([500]);
    const events = (await env.sql.query('SELECT kind FROM alert_events WHERE rule_id = $1 ORDER BY at', [ruleId])).rows.map((e) => e.kind);
    expect(events).toEqual(['firing', 'resolved']);
    const deliveries = await deliveryOf(ruleId);
    expect(deliveries).toHaveLength(1);
    // The reason, with what its last attempt got (the receiver's error is not lost).
    expect(deliveries[0]).toMatchObject({ status: 'cancelled', attempts: 1, last_error: `${RESOLVED_FIRST} (last attempt: HTTP 500)` });
  });
});
