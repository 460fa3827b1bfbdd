import pg from 'pg';

/** Partition name for the month starting at `d` (UTC): spans_p2026_11. */
function partitionName(d: Date): string {
  return `spans_p${d.getUTCFullYear()}_${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

function monthStart(d: Date, offset = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
}

/**
 * The monthly partitions that should exist at `now`: last month to `ahead` months ahead,
 * each with its name and UTC bounds [from, to).
 */
export function partitionMonths(now: Date, ahead: number): { name: string; from: Date; to: Date }[] {
  const months = [];
  for (let m = -1; m <= ahead; m++) {
    const from = monthStart(now, m);
    months.push({ name: partitionName(from), from, to: monthStart(now, m + 1) });
  }
  return months;
}

export interface PartitionReport {
  created: string[];
  dropped: string[];
  /** Rows deleted from spans_default because they were older than the retention. */
  deletedFromDefault: number;
  /**
   * Sessions past the retention deleted, with their spans, tool calls, attempts, guard checks,
   * model calls and their share of the analytics rollup.
   */
  deletedSessions: number;
  /**
   * Traces started before the retention whose spans are all gone (their partition dropped, or
   * their session deleted): removed from the trace index, so it does not grow forever. (A
   * span's key lives in its partition: dropping the partition drops the keys.)
   */
  releasedTraces: number;
}

/**
 * Spans are partitioned by month of their trace's start time (`trace_start`, fixed in the
 * trace index when the trace is first stored), so all spans of a trace share a partition and a
 * span re-sent with another start time of its own has the same primary key.
 *
 * Creates monthly span partitions from last month to `monthsAhead` ahead and, when
 * `retentionDays` is set, drops partitions entirely older than it. Idempotent; safe to run
 * from every process at start and daily. A month whose rows already sit in spans_default
 * (data older or newer than the partitions made so far) is left to the default partition.
 */
export async function maintainSpanPartitions(
  connectionString: string,
  opts: { now?: Date; monthsAhead?: number; retentionDays?: number } = {},
): Promise<PartitionReport> {
  const now = opts.now ?? new Date();
  // Two months ahead: a collector that is not restarted for weeks still finds its partition.
  const ahead = opts.monthsAhead ?? 2;
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  const report: PartitionReport = { created: [], dropped: [], deletedFromDefault: 0, deletedSessions: 0, releasedTraces: 0 };
  try {
    const existing = new Set(
      (
        await client.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i
           JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
           WHERE p.relname = 'spans'`,
        )
      ).rows.map((r) => r.name),
    );
    for (const { name, from, to } of partitionMonths(now, ahead)) {
      if (existing.has(name)) continue;
      const inDefault = await client.query(
        'SELECT 1 FROM spans_default WHERE trace_start >= $1 AND trace_start < $2 LIMIT 1',
        [from, to],
      );
      if (inDefault.rowCount) continue;
      try {
        await client.query(
          `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF spans FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
        );
        report.created.push(name);
      } catch (err) {
        // Another process created it first, or rows arrived in default meanwhile: both fine.
        if (!/already exists|would be violated/.test((err as Error).message)) throw err;
      }
    }
    if (opts.retentionDays !== undefined) {
      const cutoff = new Date(now.getTime() - opts.retentionDays * 86_400_000);
      const bounds = await client.query<{ name: string; upper: string }>(
        `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS upper FROM pg_inherits i
         JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
         WHERE p.relname = 'spans' AND c.relname <> 'spans_default'`,
      );
      for (const b of bounds.rows) {
        const m = /TO \('([^']+)'\)/.exec(b.upper);
        if (m?.[1] && new Date(m[1]) <= cutoff) {
          await client.query(`DROP TABLE "${b.name}"`);
          report.dropped.push(b.name);
        }
      }
      const del = await client.query('DELETE FROM spans_default WHERE trace_start < $1', [cutoff]);
      report.deletedFromDefault = del.rowCount ?? 0;
      // Derived rows go with their session: a session is past the retention when it ended
      // (or, still open, started) before the cutoff, so a long session is never cut in half.
      const gone = await client.query(
        `WITH old AS (
           DELETE FROM sessions WHERE coalesce(ended_at, started_at) < $1 RETURNING project_id, id
         ), tc AS (
           DELETE FROM tool_calls t USING old WHERE t.project_id = old.project_id AND t.session_id = old.id
         ), at AS (
           DELETE FROM attempts a USING old WHERE a.project_id = old.project_id AND a.session_id = old.id
         ), gc AS (
           DELETE FROM guard_checks g USING old WHERE g.project_id = old.project_id AND g.session_id = old.id
         ), mc AS (
           DELETE FROM model_calls m USING old WHERE m.project_id = old.project_id AND m.session_id = old.id
         ), sp AS (
           -- Its raw spans too, even in a partition not old enough to drop: a session is gone whole
           -- (the collector relies on a session having a row whenever any of its rows are stored).
           DELETE FROM spans x USING old WHERE x.project_id = old.project_id AND x.session_id = old.id
         ), ap AS (
           -- Its share of the analytics rollup (analytics_daily) is taken out with its parts.
           DELETE FROM analytics_session_parts p USING old WHERE p.project_id = old.project_id AND p.session_id = old.id
           RETURNING p.*
         ), ad AS (
           UPDATE analytics_daily r SET attempts = r.attempts - d.attempts, failed_attempts = r.failed_attempts - d.failed_attempts,
             rejections = r.rejections - d.rejections, rejections_fixed = r.rejections_fixed - d.rejections_fixed,
             retry_exhausted = r.retry_exhausted - d.retry_exhausted, sessions = r.sessions - d.sessions,
             failed_tokens = r.failed_tokens - d.failed_tokens
           FROM (
             SELECT project_id, day, tool_name, failure_class, feedback_template, sum(attempts) AS attempts,
               sum(failed_attempts) AS failed_attempts, sum(rejections) AS rejections, sum(rejections_fixed) AS rejections_fixed,
               sum(retry_exhausted) AS retry_exhausted, count(*) AS sessions, sum(failed_tokens) AS failed_tokens
             FROM ap GROUP BY 1, 2, 3, 4, 5
           ) d
           WHERE r.project_id = d.project_id AND r.day = d.day AND r.tool_name = d.tool_name
             AND r.failure_class = d.failure_class AND r.feedback_template = d.feedback_template
         ), ac AS (
           DELETE FROM analytics_session_costs c USING old WHERE c.project_id = old.project_id AND c.session_id = old.id
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
         )
         SELECT count(*)::int AS n FROM old`,
        [cutoff],
      );
      report.deletedSessions = gone.rows[0]?.n ?? 0;
      // Traces with no span left that started before the cutoff: those of the dropped months, of
      // default rows past it and of the sessions just deleted (a trace of a deleted session
      // started before the session ended). Looked up by the spans' primary key prefix, so only
      // each trace's own partition is read. A trace that still has spans keeps its row, also
      // when one of its sessions went: its start stays its spans' key, so a re-sent span of it
      // is still found. A span of a released trace that arrives again is stored as new: its old
      // copy is gone.
      const released = await client.query(
        `DELETE FROM traces t WHERE t.start_time < $1 AND NOT EXISTS (
           SELECT 1 FROM spans s WHERE s.project_id = t.project_id AND s.trace_start = t.start_time AND s.trace_id = t.trace_id
         )`,
        [cutoff],
      );
      report.releasedTraces = released.rowCount ?? 0;
    }
    return report;
  } finally {
    await client.end().catch(() => {});
  }
}
