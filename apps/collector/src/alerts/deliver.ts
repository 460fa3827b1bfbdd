/**
 * Sends the alert deliveries that are due (alert_deliveries.next_attempt_at at or before now),
 * signed (@guardtrace/db's postWebhook), and records each attempt's answer. A failed attempt is
 * retried after an exponential backoff stored in the row, so a restarted collector carries on;
 * after MAX_ATTEMPTS the delivery is given up (status failed), which the delivery log shows.
 * A delivery still pending when its rule is muted is not sent (status cancelled, the reason in
 * last_error); so is a firing still pending when its alert resolves (evaluate.ts).
 * Runs under the alerts' advisory lock (evaluate.ts): one collector sends at a time.
 */
import { postWebhook } from '@guardtrace/db/alerts';
import type pg from 'pg';

// 30 s, doubling, at most 30 min apart: 8 attempts span about an hour, enough for a receiver's redeploy.
export const RETRY_BASE_MS = 30_000;
const RETRY_CAP_MS = 30 * 60_000;
export const MAX_ATTEMPTS = 8;
// Deliveries sent per run, at once: a flood of firings is spread over the following runs.
const PER_RUN = 50;

/** The wait after the `attempts`-th failed attempt. */
export const backoffMs = (attempts: number): number => Math.min(RETRY_BASE_MS * 2 ** (attempts - 1), RETRY_CAP_MS);

/** The reasons a pending delivery is not sent (last_error of a cancelled one). */
export const MUTED = 'not sent: the rule was muted';
export const RESOLVED_FIRST = 'not sent: the alert resolved before it was delivered';
export const FIRED_AGAIN = 'not sent: the alert fired again before it was delivered';

export async function deliverDue(c: pg.ClientBase, now: Date): Promise<{ delivered: number; failed: number }> {
  await c.query(
    // A muted rule's firings not yet sent are not sent (evaluate.ts sends the firing again if it is
    // unmuted while still firing); a resolution of a firing the receiver got is, muted or not.
    // (The last attempt's error, if any, stays in the reason.)
    `UPDATE alert_deliveries d SET status = 'cancelled', next_attempt_at = NULL,
       last_error = $1 || coalesce(' (last attempt: ' || d.last_error || ')', '')
     FROM alert_events e JOIN alert_rules r ON r.id = e.rule_id
     WHERE e.id = d.event_id AND d.status = 'pending' AND r.muted AND e.kind = 'firing'`,
    [MUTED],
  );
  const { rows } = await c.query<{ id: string; url: string; body: string; attempts: number; secret: string; kind: string }>(
    `SELECT d.id, d.url, d.body, d.attempts, r.secret, e.kind
     FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id JOIN alert_rules r ON r.id = e.rule_id
     WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (NOT r.muted OR e.kind = 'resolved')
     ORDER BY d.next_attempt_at, d.id LIMIT ${PER_RUN}`,
    [now],
  );
  let delivered = 0;
  let failed = 0;
  // `now` is the run's clock (a test's may be fixed); each attempt is logged at its own moments on
  // it: when it was sent (its signature's timestamp) and when it was answered, not at the run's start.
  const started = Date.now();
  const at = () => new Date(now.getTime() + (Date.now() - started));
  // The posts run at once; their results are written one by one (one client runs one query at a time).
  const results = await Promise.all(
    rows.map(async (d) => {
      const sentAt = at();
      const res = await postWebhook(d.url, d.secret, d.body, { event: d.kind, delivery: d.id, nowMs: sentAt.getTime() });
      return { d, res, sentAt, answeredAt: at() };
    }),
  );
  for (const { d, res, sentAt, answeredAt } of results) {
    const attempts = d.attempts + 1;
    const giveUp = !res.ok && attempts >= MAX_ATTEMPTS;
    if (res.ok) delivered++;
    else failed++;
    await c.query(
      `UPDATE alert_deliveries SET attempts = $2, last_status_code = $3, last_error = $4, last_attempt_at = $5,
         status = $6, next_attempt_at = $7, delivered_at = $8 WHERE id = $1`,
      [
        d.id,
        attempts,
        res.status,
        res.error,
        sentAt,
        res.ok ? 'delivered' : giveUp ? 'failed' : 'pending',
        res.ok || giveUp ? null : new Date(answeredAt.getTime() + backoffMs(attempts)),
        res.ok ? answeredAt : null,
      ],
    );
  }
  return { delivered, failed };
}
