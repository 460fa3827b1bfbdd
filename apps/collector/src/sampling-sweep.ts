/**
 * The collector's half of cross-process session sampling (docs/collector.md, "Sampling").
 *
 * Every process of a session decides alike from the session id's hash and the project's rate,
 * and writes its verdict as `guardtrace.sampling.weight` on its part's root span; processes
 * that share sessions forward the parts they would drop (weight 0) instead of dropping them
 * (`sampling: { crossProcess: true }` in the SDK). The session's weight is then the rule of
 * sessionSamplingWeight (semconv; applied in SQL by guardtrace_sampling_weight): a failure seen
 * by any process keeps the whole session (weight 1). A session every process would drop is
 * stored with weight 0 (charts count it as 0) and held there until it has been quiet for the
 * decision wait; this sweep then deletes it, its spans, their GenAI events (genai_events),
 * derived rows and trace index, so a
 * failure arriving later from another process within the wait still keeps every part of it.
 */
import type pg from 'pg';
import { key } from './prepare.ts';
import { lockKeys, REMOVE_ALERT_SHARE } from './sql.ts';

export interface SweepOptions {
  /** How long a session every process would drop must have had no new span before it is deleted. */
  decisionWaitMs: number;
  /** Sessions deleted per call at most (each in its own short transaction). */
  limit?: number;
}

// 200 sessions a pass: each is one short transaction; a backlog is worked off over a few passes.
const DEFAULT_LIMIT = 200;

const CANDIDATES = `
SELECT project_id, id FROM sessions
WHERE sampling_weight = 0 AND updated_at < now() - make_interval(secs => $1::float8 / 1000)
ORDER BY updated_at LIMIT $2`;

/**
 * Deletes the sessions held for a decision whose wait is over; resolves to how many. Each goes
 * in a transaction that takes its traces' and then its own advisory lock (the writer's order),
 * and checks again that it is still undecided and quiet: a write that raced the sweep (a late
 * failure) has moved its `updated_at` and keeps it.
 */
export async function sweepHeldSessions(pool: pg.Pool, opts: SweepOptions): Promise<number> {
  const { rows } = await pool.query<{ project_id: string; id: string }>(CANDIDATES, [opts.decisionWaitMs, opts.limit ?? DEFAULT_LIMIT]);
  let deleted = 0;
  for (const r of rows) {
    if (await dropSession(pool, r.project_id, r.id, opts.decisionWaitMs)) deleted++;
  }
  return deleted;
}

async function dropSession(pool: pg.Pool, projectId: string, sessionId: string, waitMs: number): Promise<boolean> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const traces = await client.query<{ trace_id: string }>(
      'SELECT DISTINCT trace_id FROM spans WHERE project_id = $1 AND session_id = $2',
      [projectId, sessionId],
    );
    await client.query(lockKeys('$1'), [traces.rows.map((t) => `t:${key(projectId, t.trace_id)}`)]);
    await client.query(lockKeys('$1'), [[`s:${key(projectId, sessionId)}`]]);
    const still = await client.query(
      `SELECT 1 FROM sessions WHERE project_id = $1 AND id = $2 AND sampling_weight = 0
         AND updated_at < now() - make_interval(secs => $3::float8 / 1000)`,
      [projectId, sessionId, waitMs],
    );
    if (still.rowCount === 0) {
      await client.query('ROLLBACK');
      return false;
    }
    // Its share of the alerts' rollup first, computed from its rows before they go.
    await client.query(REMOVE_ALERT_SHARE, [[projectId], [sessionId]]);
    for (const table of ['tool_calls', 'attempts', 'guard_checks', 'model_calls']) {
      await client.query(`DELETE FROM ${table} WHERE project_id = $1 AND session_id = $2`, [projectId, sessionId]);
    }
    const gone = await client.query<{ trace_id: string; span_id: string }>(
      'DELETE FROM spans WHERE project_id = $1 AND session_id = $2 RETURNING trace_id, span_id',
      [projectId, sessionId],
    );
    // The GenAI events (log records) of its spans go with them.
    await client.query(
      `DELETE FROM genai_events e USING unnest($2::text[], $3::text[]) AS g(trace_id, span_id)
         WHERE e.project_id = $1 AND e.trace_id = g.trace_id AND e.span_id = g.span_id`,
      [projectId, gone.rows.map((g) => g.trace_id), gone.rows.map((g) => g.span_id)],
    );
    // A trace's index row goes with its last span (a trace may also hold other sessions' spans).
    await client.query(
      `DELETE FROM traces t WHERE t.project_id = $1 AND t.trace_id = ANY($2::text[])
         AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_start = t.start_time AND s.trace_id = t.trace_id)`,
      [projectId, [...new Set(gone.rows.map((g) => g.trace_id))]],
    );
    await client.query('DELETE FROM sessions WHERE project_id = $1 AND id = $2', [projectId, sessionId]);
    // Its share of the analytics rollups goes too: recomputed from no rows, it is subtracted.
    await client.query('SELECT guardtrace_refresh_analytics(ARRAY[$1]::uuid[], ARRAY[$2]::text[])', [projectId, sessionId]);
    await client.query('SELECT guardtrace_update_model_costs(ARRAY[$1]::uuid[], ARRAY[$2]::text[])', [projectId, sessionId]);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * Sweep every 30 s (or half the wait when shorter: a session is deleted at most that long after
 * its wait), one pass at a time, until the returned stop (which waits for a pass under way).
 * A wait of 0 turns the sweep off.
 */
export function startSweeps(pool: pg.Pool, decisionWaitMs: number, log: (msg: string, err?: unknown) => void): () => Promise<void> {
  if (decisionWaitMs <= 0) return async () => {};
  let sweeping: Promise<unknown> | undefined;
  const timer = setInterval(
    () => {
      sweeping ??= sweepHeldSessions(pool, { decisionWaitMs })
        .catch((err: unknown) => log('sampling sweep failed', err))
        .finally(() => {
          sweeping = undefined;
        });
    },
    Math.max(1_000, Math.min(30_000, decisionWaitMs / 2)),
  );
  timer.unref();
  return async () => {
    clearInterval(timer);
    await sweeping;
  };
}
