/**
 * One evaluation of every alert rule, in one collector at a time: a session-level advisory lock
 * (pg_try_advisory_lock) is held for the run, and a collector that finds it held skips the run.
 * Each rule's subjects move ok → firing → ok; each move is stored (alert_events) with its webhook
 * delivery (alert_deliveries, sent by deliver.ts), so that a receiver hears of each alert it was
 * told of until its end, and of no other: a firing is not sent while the rule is muted (and is sent
 * when the rule is unmuted while still firing: the same event, and the same delivery when muting
 * cancelled one, so the receiver can tell it from a new alert); a resolution is sent when its
 * firing was delivered (muted or not: nothing stays open at the receiver), not when its firing
 * never reached the receiver (muted, given up); a firing still being retried is cancelled with its
 * resolution, and a resolution still being retried when the alert fires again is cancelled (the
 * receiver would hear "resolved" while it fires).
 * Evaluating again at the same time changes nothing, so two runs in a row (one collector after
 * another) are harmless.
 */
import { randomUUID } from 'node:crypto';
import { alertBody, alertFacts, firingSubjects, isNewKind, type Measure, measure, type QueryRows, type RuleRow, worstSession } from '@guardtrace/db/alerts';
import type pg from 'pg';
import { deliverDue, FIRED_AGAIN, MUTED, RESOLVED_FIRST } from './deliver.ts';

const LOCK = "hashtextextended('guardtrace:alerts', 0)";
/** alert_minutes is kept 2 days: the longest window (a day) and the part of its day before it. */
const KEEP_MINUTES_MS = 2 * 24 * 60 * 60 * 1000;
/** Firings, resolutions and their delivery log are kept 30 days: the page shows the latest, and a month answers "did it fire?". */
const KEEP_EVENTS_MS = 30 * 24 * 60 * 60 * 1000;

export interface TickOptions {
  /** The evaluation's time (tests pass a fixed one). */
  now: Date;
  /** Where browsers reach the web app, for the links (GUARDTRACE_BASE_URL); null: paths. */
  webUrl: string | null;
}

export interface TickResult {
  /** False when another collector held the lock (nothing done). */
  ran: boolean;
  fired: number;
  resolved: number;
  delivered: number;
  failed: number;
  /** Rules whose evaluation failed (each is retried next run; the others are evaluated regardless). */
  errors: { ruleId: string; message: string }[];
}

/** Evaluates every rule and sends the deliveries due, if no other collector is doing it. */
export async function runAlertTick(pool: pg.Pool, opts: TickOptions): Promise<TickResult> {
  const c = await pool.connect();
  const result: TickResult = { ran: false, fired: 0, resolved: 0, delivered: 0, failed: 0, errors: [] };
  try {
    const { rows } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${LOCK}) AS ok`);
    if (!rows[0]?.ok) return result;
    result.ran = true;
    try {
      const { fired, resolved, errors } = await evaluateRules(c, opts);
      result.fired = fired;
      result.resolved = resolved;
      result.errors = errors;
      await c.query('DELETE FROM alert_minutes WHERE minute < $1', [new Date(opts.now.getTime() - KEEP_MINUTES_MS)]);
      // Their deliveries go with them (ON DELETE CASCADE).
      await c.query('DELETE FROM alert_events WHERE at < $1', [new Date(opts.now.getTime() - KEEP_EVENTS_MS)]);
      const d = await deliverDue(c, opts.now);
      result.delivered = d.delivered;
      result.failed = d.failed;
    } finally {
      await c.query(`SELECT pg_advisory_unlock(${LOCK})`);
    }
    return result;
  } finally {
    c.release();
  }
}

async function evaluateRules(c: pg.ClientBase, opts: TickOptions): Promise<{ fired: number; resolved: number; errors: TickResult['errors'] }> {
  const { rows: rules } = await c.query<RuleRow>(
    `SELECT id, project_id, name, kind, failure_class, tool_name, window_minutes, comparison, threshold, webhook_url, format, muted
     FROM alert_rules ORDER BY project_id, id`,
  );
  let fired = 0;
  let resolved = 0;
  const errors: TickResult['errors'] = [];
  for (const r of rules) {
    try {
      const moved = await evaluateRule(c, r, opts);
      fired += moved.fired;
      resolved += moved.resolved;
    } catch (err) {
      // A rule deleted meanwhile, a bad row: the others are still evaluated (its transaction was rolled back).
      errors.push({ ruleId: r.id, message: (err as Error).message });
    }
  }
  return { fired, resolved, errors };
}

/** One rule: its measures, then its subjects' moves in one transaction. */
async function evaluateRule(c: pg.ClientBase, r: RuleRow, opts: TickOptions): Promise<{ fired: number; resolved: number }> {
  let fired = 0;
  let resolved = 0;
  const rows: QueryRows = async <T>(text: string, values: unknown[]) => (await c.query(text, values)).rows as T[];
  const measures = await measure(rows, r, opts.now);
  const firingNow = firingSubjects(r, measures);
  await c.query('BEGIN');
  try {
    const { rows: states } = await c.query<{ subject: string; state: string }>(
      'SELECT subject, state FROM alert_states WHERE rule_id = $1 FOR UPDATE',
      [r.id],
    );
    const firing = new Set(states.filter((s) => s.state === 'firing').map((s) => s.subject));
    for (const [subject, m] of firingNow) {
      if (firing.has(subject)) {
        // Still firing: told to the receiver now if it never was (it fired while the rule was muted).
        if (!r.muted) await sendHeldFiring(c, r, subject, m, opts);
        continue;
      }
      await transition(c, r, subject, 'firing', await withWorst(c, r, subject, m, opts.now), opts);
      fired++;
    }
    for (const subject of firing) {
      if (firingNow.has(subject)) continue;
      // What it measures now (a new_* subject no longer new: 0, as it left the window's news).
      const m = measures.get(subject) ?? { value: 0, worstSessionId: null };
      await transition(c, r, subject, 'resolved', isNewKind(r.kind) ? { value: 0, worstSessionId: null } : await withWorst(c, r, subject, m, opts.now), opts);
      resolved++;
    }
    await c.query('UPDATE alert_states SET last_value = $3 WHERE rule_id = $1 AND subject = $2', [r.id, '', measures.get('')?.value ?? 0]);
    await c.query('UPDATE alert_rules SET last_evaluated_at = $2 WHERE id = $1', [r.id, opts.now]);
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK').catch(() => {});
    throw err;
  }
  return { fired, resolved };
}

/** `m` with the session that holds the most of what it counts (none when it counts nothing): for an event that is sent. */
async function withWorst(c: pg.ClientBase, r: RuleRow, subject: string, m: Measure, now: Date): Promise<Measure> {
  if (m.value <= 0) return m;
  const rows: QueryRows = async <T>(text: string, values: unknown[]) => (await c.query(text, values)).rows as T[];
  return { ...m, worstSessionId: await worstSession(rows, r, subject, now) };
}

/** Stores the move of one subject, its event and its delivery (as the header says). */
async function transition(c: pg.ClientBase, r: RuleRow, subject: string, to: 'firing' | 'resolved', m: Measure, opts: TickOptions): Promise<void> {
  await c.query(
    `INSERT INTO alert_states (rule_id, subject, state, since, last_value) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (rule_id, subject) DO UPDATE SET state = excluded.state, since = excluded.since, last_value = excluded.last_value`,
    [r.id, subject, to === 'firing' ? 'firing' : 'ok', opts.now, m.value],
  );
  await record(c, r, subject, to, m, opts);
}

interface LatestFiring {
  id: string;
  at: Date;
  /** Its delivery: null when it has none (it fired while the rule was muted). */
  delivery: string | null;
  status: string | null;
  error: string | null;
}

async function latestFiring(c: pg.ClientBase, r: RuleRow, subject: string): Promise<LatestFiring | null> {
  const { rows } = await c.query<LatestFiring>(
    `SELECT e.id, e.at, d.id AS delivery, d.status, d.last_error AS error FROM alert_events e LEFT JOIN alert_deliveries d ON d.event_id = e.id
     WHERE e.rule_id = $1 AND e.subject = $2 AND e.kind = 'firing' ORDER BY e.at DESC LIMIT 1`,
    [r.id, subject],
  );
  return rows[0] ?? null;
}

/** Held back by muting: fired while muted (no delivery), or its delivery cancelled by muting. */
const heldBack = (f: LatestFiring) => f.delivery === null || (f.status === 'cancelled' && (f.error ?? '').startsWith(MUTED));

/**
 * A subject that still fires, its firing held back while the rule was muted: sent now. The muted
 * delivery goes again as it was (its id and body); one that never had a delivery gets one, with
 * its event's id and time.
 */
async function sendHeldFiring(c: pg.ClientBase, r: RuleRow, subject: string, m: Measure, opts: TickOptions): Promise<void> {
  const f = await latestFiring(c, r, subject);
  if (f === null || !heldBack(f)) return;
  if (f.delivery !== null) {
    await c.query(`UPDATE alert_deliveries SET status = 'pending', next_attempt_at = $2 WHERE id = $1`, [f.delivery, opts.now]);
    return;
  }
  // The event as it was when it fired (its time, window, value and worst session), not as now.
  const rows: QueryRows = async <T>(text: string, values: unknown[]) => (await c.query(text, values)).rows as T[];
  const then = (await measure(rows, r, f.at)).get(subject) ?? m;
  const facts = alertFacts(r, { eventId: f.id, type: 'firing', at: f.at, webUrl: opts.webUrl }, subject, await withWorst(c, r, subject, then, f.at));
  await c.query(
    `INSERT INTO alert_deliveries (id, event_id, project_id, url, body, status, attempts, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)`,
    [randomUUID(), f.id, r.project_id, r.webhook_url, alertBody(facts, r.format), opts.now],
  );
}

/** Stores an event of one subject and, when the receiver is to hear of it, its delivery. */
async function record(c: pg.ClientBase, r: RuleRow, subject: string, to: 'firing' | 'resolved', m: Measure, opts: TickOptions): Promise<void> {
  const eventId = randomUUID();
  const facts = alertFacts(r, { eventId, type: to, at: opts.now, webUrl: opts.webUrl }, subject, m);
  const body = alertBody(facts, r.format);
  await c.query(
    `INSERT INTO alert_events (id, rule_id, project_id, kind, subject, at, value, threshold, window_start, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [eventId, r.id, r.project_id, to, subject, opts.now, m.value, r.threshold, facts.windowStart, alertBody(facts, 'generic')],
  );
  if (to === 'firing') {
    // An earlier resolution still being retried is not sent now: the receiver would hear "resolved"
    // while the alert fires. (It still has the alert open: this firing tells it more of it.)
    await c.query(
      `UPDATE alert_deliveries d SET status = 'cancelled', next_attempt_at = NULL,
         last_error = $3 || coalesce(' (last attempt: ' || d.last_error || ')', '')
       FROM alert_events e WHERE e.id = d.event_id AND e.rule_id = $1 AND e.subject = $2 AND e.kind = 'resolved' AND d.status = 'pending'`,
      [r.id, subject, FIRED_AGAIN],
    );
    if (r.muted) return;
  }
  if (to === 'resolved') {
    const latest = await latestFiring(c, r, subject);
    const firing = latest === null || heldBack(latest) ? null : latest.status;
    // A firing the receiver never got (still being retried) is not sent now; nor is its resolution:
    // the receiver would get a firing after the alert ended, or the end of one it never heard of.
    if (firing === 'pending') {
      await c.query(
        `UPDATE alert_deliveries d SET status = 'cancelled', next_attempt_at = NULL,
         last_error = $3 || coalesce(' (last attempt: ' || d.last_error || ')', '')
         FROM alert_events e WHERE e.id = d.event_id AND e.rule_id = $1 AND e.subject = $2 AND e.kind = 'firing' AND d.status = 'pending'`,
        [r.id, subject, RESOLVED_FIRST],
      );
      return;
    }
    // Never delivered (fired while muted, muted before it was sent, given up): nothing to end.
    if (firing !== 'delivered') return;
  }
  await c.query(
    `INSERT INTO alert_deliveries (id, event_id, project_id, url, body, status, attempts, created_at, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', 0, $6, $6)`,
    [randomUUID(), eventId, r.project_id, r.webhook_url, body, opts.now],
  );
}
