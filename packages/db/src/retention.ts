import pg from 'pg';

/**
 * The key of the session-level advisory lock the retention job holds while it runs: one
 * collector at a time applies retention, the others skip (pg_try_advisory_lock).
 */
export const RETENTION_LOCK = "hashtextextended('guardtrace:retention', 0)";

/** Sessions deleted per transaction: each batch is short, so writers are never held up long. */
const DEFAULT_BATCH_SESSIONS = 200;
/** Raw rows (spans_default, trace index) deleted per transaction. */
const DEFAULT_BATCH_ROWS = 5_000;
/** A batch never waits longer than this for a lock a writer holds: it gives up and the next run retries. */
const LOCK_TIMEOUT = '5s';

export interface RetentionOptions {
  /** The clock's reading (default: now). Tests pass a fixed one. */
  now?: Date;
  /** Days for projects without a retention of their own (GUARDTRACE_RETENTION_DAYS); unset: they keep everything. */
  defaultDays?: number;
  /** Sessions deleted per transaction (default 200). */
  batchSessions?: number;
  /** Raw rows deleted per transaction (default 5,000). */
  batchRows?: number;
}

export interface RetentionReport {
  /** False when another process held the retention lock: nothing was done. */
  ran: boolean;
  /** Sessions past their project's retention deleted, with their spans and derived rows. */
  deletedSessions: number;
  /** Transactions that deleted sessions (each at most `batchSessions`). */
  sessionBatches: number;
  /** Rows of spans_default past their project's retention deleted. */
  deletedFromDefault: number;
  /** Span partitions dropped: every project's retention had passed them. */
  dropped: string[];
  /** GenAI events (genai_events, from /v1/logs) past the retention whose span is gone (or never came). */
  deletedGenAiEvents: number;
  /** Trace index rows of traces past the retention with no span left. */
  releasedTraces: number;
}

/**
 * Applies each project's retention (`projects.retention_days`, else `defaultDays`): a
 * session past it (it ended, or still open started, before now minus the retention) is
 * deleted whole, its raw spans and derived rows with it (and the GenAI events of its spans), in short transactions of at most
 * `batchSessions` sessions that take the writer's lock of each session first (so a session
 * is never deleted while a batch of it is being written). A monthly span partition is
 * dropped once every project's retention has passed its end.
 *
 * Runs in one process at a time: it holds a session-level advisory lock for the whole run
 * and returns `{ ran: false }` at once when another process holds it.
 */
export async function applyRetention(connectionString: string, opts: RetentionOptions = {}): Promise<RetentionReport> {
  const now = opts.now ?? new Date();
  const batchSessions = opts.batchSessions ?? DEFAULT_BATCH_SESSIONS;
  const batchRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  for (const [name, v] of [
    ['defaultDays', opts.defaultDays],
    ['batchSessions', batchSessions],
    ['batchRows', batchRows],
  ] as const) {
    if (v !== undefined && !(Number.isInteger(v) && v >= 1)) {
      throw new RangeError(`applyRetention: ${name} must be a whole number of at least 1, got ${v}`);
    }
  }
  const report: RetentionReport = {
    ran: false,
    deletedSessions: 0,
    sessionBatches: 0,
    deletedFromDefault: 0,
    dropped: [],
    deletedGenAiEvents: 0,
    releasedTraces: 0,
  };
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  try {
    const lock = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(${RETENTION_LOCK}) AS ok`);
    if (!lock.rows[0]?.ok) return report;
    report.ran = true;
    try {
      await client.query(`SET lock_timeout = '${LOCK_TIMEOUT}'`);
      const projects = await client.query<{ id: string; days: number | null }>(
        'SELECT id::text AS id, retention_days AS days FROM projects ORDER BY id',
      );
      const cutoffs: [string, Date][] = [];
      let allExpire = true;
      for (const p of projects.rows) {
        const days = p.days ?? opts.defaultDays;
        if (days === undefined) allExpire = false;
        else cutoffs.push([p.id, new Date(now.getTime() - days * 86_400_000)]);
      }
      if (projects.rows.length === 0 && opts.defaultDays === undefined) allExpire = false;
      // Each project's sessions, batch by batch; then the months every project's retention has
      // passed (the earliest cutoff; with no project, the default's) and that hold no span of a
      // session still kept; then the trace index rows left without spans.
      for (const [id, cutoff] of cutoffs) await expireSessions(client, id, cutoff, batchSessions, batchRows, report);
      let earliest = cutoffs.length === 0 ? new Date(now.getTime() - (opts.defaultDays ?? 0) * 86_400_000) : now;
      for (const [, c] of cutoffs) if (c < earliest) earliest = c;
      if (allExpire) await dropPartitions(client, earliest, report);
      for (const [id, cutoff] of cutoffs) await expireGenAiEvents(client, id, cutoff, batchRows, report);
      for (const [id, cutoff] of cutoffs) await releaseTraces(client, id, cutoff, batchRows, report);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${RETENTION_LOCK})`).catch(() => {});
    }
    return report;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Deletes one project's sessions and default-partition spans past `cutoff`, batch by batch. */
async function expireSessions(
  client: pg.Client,
  projectId: string,
  cutoff: Date,
  batchSessions: number,
  batchRows: number,
  report: RetentionReport,
): Promise<void> {
  for (;;) {
    // Candidates through the (project_id, started_at) index: a session that ended before the
    // cutoff started before it too.
    const { rows } = await client.query<{ id: string }>(
      `SELECT id FROM sessions WHERE project_id = $1 AND started_at < $2 AND coalesce(ended_at, started_at) < $2
       ORDER BY started_at LIMIT $3`,
      [projectId, cutoff, batchSessions],
    );
    if (rows.length === 0) break;
    const ids = rows.map((r) => r.id);
    await client.query('BEGIN');
    try {
      // The writer's session locks (apps/collector/src/sql.ts lockKeys: `s:<project>/<session>`,
      // in hash order): a batch writing one of these sessions finishes first, and the check
      // below sees what it wrote.
      await client.query(
        `SELECT count(pg_advisory_xact_lock(k)) FROM (
           SELECT DISTINCT hashtextextended('s:' || $1 || '/' || id, 0) AS k FROM unnest($2::text[]) AS id ORDER BY 1
         ) AS keys`,
        [projectId, ids],
      );
      // Their share of the alerts' per-minute rollup (alert_minutes), computed from their rows
      // before they go (guardtrace_alert_minutes_remove): its "seen before" then forgets them, as
      // analytics_daily does below.
      await client.query(
        `SELECT guardtrace_alert_minutes_remove(array_agg(project_id), array_agg(id)) FROM sessions
         WHERE project_id = $1 AND id = ANY($2::text[]) AND coalesce(ended_at, started_at) < $3`,
        [projectId, ids, cutoff],
      );
      const gone = await client.query<{ n: number }>(
        `WITH old AS (
           DELETE FROM sessions WHERE project_id = $1 AND id = ANY($2::text[]) AND coalesce(ended_at, started_at) < $3
           RETURNING id
         ), tc AS (
           DELETE FROM tool_calls d WHERE d.project_id = $1 AND d.session_id IN (SELECT id FROM old)
         ), at AS (
           DELETE FROM attempts d WHERE d.project_id = $1 AND d.session_id IN (SELECT id FROM old)
         ), gc AS (
           DELETE FROM guard_checks d WHERE d.project_id = $1 AND d.session_id IN (SELECT id FROM old)
         ), mc AS (
           DELETE FROM model_calls d WHERE d.project_id = $1 AND d.session_id IN (SELECT id FROM old)
         ), sp AS (
           -- Its raw spans too, in whatever partition: a session is gone whole (the collector
           -- relies on a session having a row whenever any of its rows are stored).
           DELETE FROM spans d WHERE d.project_id = $1 AND d.session_id IN (SELECT id FROM old)
         ), ap AS (
           -- Its share of the analytics rollup (analytics_daily) goes with its parts.
           DELETE FROM analytics_session_parts p WHERE p.project_id = $1 AND p.session_id IN (SELECT id FROM old)
           RETURNING p.*
         ), ad AS (
           UPDATE analytics_daily r SET attempts = r.attempts - d.attempts, failed_attempts = r.failed_attempts - d.failed_attempts,
             rejections = r.rejections - d.rejections,
             retry_exhausted = r.retry_exhausted - d.retry_exhausted, sessions = r.sessions - d.sessions,
             failed_tokens = r.failed_tokens - d.failed_tokens, weighted_attempts = r.weighted_attempts - d.weighted_attempts
           FROM (
             SELECT project_id, day, tool_name, failure_class, feedback_template, sum(attempts) AS attempts,
               sum(failed_attempts) AS failed_attempts, sum(rejections) AS rejections,
               sum(retry_exhausted) AS retry_exhausted, count(*) AS sessions, sum(failed_tokens) AS failed_tokens,
               sum(weighted_attempts) AS weighted_attempts
             FROM ap GROUP BY 1, 2, 3, 4, 5
           ) d
           WHERE r.project_id = d.project_id AND r.day = d.day AND r.tool_name = d.tool_name
             AND r.failure_class = d.failure_class AND r.feedback_template = d.feedback_template
         ), ac AS (
           -- And its share of the cost histogram (analytics_cost_daily).
           DELETE FROM analytics_session_costs c WHERE c.project_id = $1 AND c.session_id IN (SELECT id FROM old)
           RETURNING c.*
         ), acd AS (
           UPDATE analytics_cost_daily r SET sessions = r.sessions - d.sessions,
             estimated_sessions = r.estimated_sessions - d.weight, tokens = r.tokens - d.tokens,
             repair_tokens = r.repair_tokens - d.repair_tokens
           FROM (
             SELECT project_id, day, bucket, count(*) AS sessions, sum(weight) AS weight, sum(tokens * weight) AS tokens,
               sum(repair_tokens * weight) AS repair_tokens
             FROM ac GROUP BY 1, 2, 3
           ) d
           WHERE r.project_id = d.project_id AND r.day = d.day AND r.bucket = d.bucket
         ), amp AS (
           -- And its repair turns' tokens per model (analytics_model_daily).
           DELETE FROM analytics_model_session_parts p WHERE p.project_id = $1 AND p.session_id IN (SELECT id FROM old)
           RETURNING p.*
         ), amd AS (
           UPDATE analytics_model_daily r SET input_tokens = r.input_tokens - d.input_tokens,
             output_tokens = r.output_tokens - d.output_tokens, cached_input_tokens = r.cached_input_tokens - d.cached_input_tokens
           FROM (
             SELECT project_id, day, tool_name, failure_class, model, sum(input_tokens) AS input_tokens,
               sum(output_tokens) AS output_tokens, sum(cached_input_tokens) AS cached_input_tokens
             FROM amp GROUP BY 1, 2, 3, 4, 5
           ) d
           WHERE r.project_id = d.project_id AND r.day = d.day AND r.tool_name = d.tool_name
             AND r.failure_class = d.failure_class AND r.model = d.model
         ), asp AS (
           -- And its model calls' tokens per model (analytics_model_spend_daily).
           DELETE FROM analytics_model_session_spend p WHERE p.project_id = $1 AND p.session_id IN (SELECT id FROM old)
           RETURNING p.*
         ), asd AS (
           UPDATE analytics_model_spend_daily r SET input_tokens = r.input_tokens - d.input_tokens,
             output_tokens = r.output_tokens - d.output_tokens, cached_input_tokens = r.cached_input_tokens - d.cached_input_tokens
           FROM (
             SELECT project_id, day, model, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
               sum(cached_input_tokens) AS cached_input_tokens
             FROM asp GROUP BY 1, 2, 3
           ) d
           WHERE r.project_id = d.project_id AND r.day = d.day AND r.model = d.model
         )
         SELECT count(*)::int AS n FROM old`,
        [projectId, ids, cutoff],
      );
      await client.query('COMMIT');
      const n = gone.rows[0]?.n ?? 0;
      report.deletedSessions += n;
      report.sessionBatches++;
      // Every candidate was extended by a writer meanwhile: the next query finds others or none.
      if (n === 0 && rows.length < batchSessions) break;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  }
  // Spans in the default partition (months without a partition of their own) past the cutoff
  // that belong to no session (a session's own spans went with it above).
  for (;;) {
    const del = await client.query(
      `DELETE FROM spans_default WHERE ctid IN (
         SELECT ctid FROM spans_default x WHERE x.project_id = $1 AND x.trace_start < $2
           AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.project_id = x.project_id AND s.id = x.session_id)
         LIMIT $3)`,
      [projectId, cutoff, batchRows],
    );
    report.deletedFromDefault += del.rowCount ?? 0;
    if ((del.rowCount ?? 0) < batchRows) break;
  }
}

/**
 * GenAI events (log records of /v1/logs) older than the cutoff whose span is gone: deleted with
 * its session or partition above, or never stored (a sampled-out process's, a lost export's).
 * Their span is looked up through the trace index and the spans' primary key. An event of a
 * span still kept stays, whatever its age: it is that span's prompt or completion.
 */
async function expireGenAiEvents(client: pg.Client, projectId: string, cutoff: Date, batchRows: number, report: RetentionReport) {
  for (;;) {
    const del = await client.query(
      `DELETE FROM genai_events WHERE ctid IN (
         SELECT e.ctid FROM genai_events e WHERE e.project_id = $1 AND e.time < $2 AND NOT EXISTS (
           SELECT 1 FROM traces t JOIN spans s ON s.project_id = t.project_id AND s.trace_start = t.start_time AND s.trace_id = t.trace_id
           WHERE t.project_id = e.project_id AND t.trace_id = e.trace_id AND s.span_id = e.span_id
         ) LIMIT $3)`,
      [projectId, cutoff, batchRows],
    );
    report.deletedGenAiEvents += del.rowCount ?? 0;
    if ((del.rowCount ?? 0) < batchRows) break;
  }
}

/**
 * Traces started before the cutoff with no span left (their session deleted, their
 * partition dropped): out of the trace index, so it does not grow forever. Looked up by the
 * spans' primary key prefix. A trace that still has spans keeps its row: its start is their key.
 */
async function releaseTraces(client: pg.Client, projectId: string, cutoff: Date, batchRows: number, report: RetentionReport) {
  for (;;) {
    const del = await client.query(
      `DELETE FROM traces WHERE project_id = $1 AND trace_id IN (
         SELECT t.trace_id FROM traces t WHERE t.project_id = $1 AND t.start_time < $2 AND NOT EXISTS (
           SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_start = t.start_time AND s.trace_id = t.trace_id
         ) LIMIT $3)`,
      [projectId, cutoff, batchRows],
    );
    report.releasedTraces += del.rowCount ?? 0;
    if ((del.rowCount ?? 0) < batchRows) break;
  }
}

/**
 * Drops the monthly span partitions that end at or before `cutoff` (every project's retention
 * passed them) and hold no span of a session that is still kept (a long session that started
 * in the month and ended within its retention keeps the month).
 */
async function dropPartitions(client: pg.Client, cutoff: Date, report: RetentionReport): Promise<void> {
  const bounds = await client.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
     JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = 'spans' AND c.relname <> 'spans_default' ORDER BY 1`,
  );
  for (const b of bounds.rows) {
    const m = /TO \('([^']+)'\)/.exec(b.bound);
    if (!m?.[1] || new Date(m[1]) > cutoff) continue;
    const kept = await client.query(
      `SELECT 1 FROM "${b.name}" x WHERE EXISTS (
         SELECT 1 FROM sessions s WHERE s.project_id = x.project_id AND s.id = x.session_id) LIMIT 1`,
    );
    if (kept.rowCount) continue;
    await client.query(`DROP TABLE IF EXISTS "${b.name}"`);
    report.dropped.push(b.name);
  }
}
