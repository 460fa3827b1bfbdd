import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { applyRetention, maintainSpanPartitions, RETENTION_LOCK } from '../src/server.ts';

// Every date here is fixed and passed as the job's clock: nothing depends on the day the test runs.
let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase({ partitions: false });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // Partitions from February to May 2027.
  await maintainSpanPartitions(db.url, { now: new Date('2027-03-15T00:00:00Z') });
});
afterAll(async () => {
  await client?.end();
  await db?.close();
});

async function project(retentionDays: number | null): Promise<string> {
  const id = randomUUID();
  await client.query('INSERT INTO projects (id, name, retention_days) VALUES ($1, $2, $3)', [id, `p-${id.slice(0, 6)}`, retentionDays]);
  return id;
}

let spanSeq = 0;
/** A session of `project` from `start` to `end` with a span, a tool call, an attempt, a guard check, a model call and its trace index row. */
async function session(projectId: string, id: string, start: string, end: string | null) {
  await client.query('INSERT INTO sessions (project_id, id, started_at, ended_at) VALUES ($1, $2, $3, $4)', [projectId, id, start, end]);
  const trace = randomUUID().replaceAll('-', '');
  const span = () => (++spanSeq).toString(16).padStart(16, '0');
  await client.query('INSERT INTO traces (project_id, trace_id, session_id, start_time) VALUES ($1, $2, $3, $4)', [projectId, trace, id, start]);
  await client.query(
    `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
     VALUES ($1, $2, $2, $3, $4, $5, 'x', 0, 0)`,
    [projectId, start, trace, span(), id],
  );
  await client.query(
    'INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, 1)',
    [projectId, trace, span(), id, 't', start],
  );
  await client.query(
    'INSERT INTO attempts (project_id, trace_id, span_id, session_id, number, started_at, duration_ms) VALUES ($1, $2, $3, $4, 1, $5, 1)',
    [projectId, trace, span(), id, start],
  );
  await client.query(
    `INSERT INTO guard_checks (project_id, trace_id, span_id, session_id, guard_name, verdict, started_at, duration_us)
     VALUES ($1, $2, $3, $4, 'g', 'pass', $5, 1)`,
    [projectId, trace, span(), id, start],
  );
  await client.query('INSERT INTO model_calls (project_id, trace_id, span_id, session_id, started_at, duration_ms) VALUES ($1, $2, $3, $4, $5, 1)', [
    projectId,
    trace,
    span(),
    id,
    start,
  ]);
}

const TABLES = ['sessions', 'spans', 'tool_calls', 'attempts', 'guard_checks', 'model_calls', 'traces'] as const;
/** Per table, the sessions of `projectId` that have rows in it. */
async function left(projectId: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) {
    const col = t === 'sessions' ? 'id' : 'session_id';
    const { rows } = await client.query(`SELECT DISTINCT ${col} AS s FROM ${t} WHERE project_id = $1 ORDER BY 1`, [projectId]);
    out[t] = rows.map((r) => r.s);
  }
  return out;
}
const everywhere = (ids: string[]) => Object.fromEntries(TABLES.map((t) => [t, ids]));

it("deletes each project's sessions past its own retention, whole, and leaves every other project's rows", async () => {
  const week = await project(7);
  const month = await project(30);
  const forever = await project(null);
  for (const p of [week, month, forever]) {
    await session(p, 'jan', '2027-01-10T00:00:00Z', '2027-01-10T00:05:00Z');
    await session(p, 'mar-01', '2027-03-01T00:00:00Z', '2027-03-01T01:00:00Z');
    // Started long ago but ended recently: kept as long as its end is within the retention.
    await session(p, 'long', '2027-02-20T00:00:00Z', '2027-03-20T00:00:00Z');
    await session(p, 'mar-31', '2027-03-31T00:00:00Z', null);
  }
  // On 2027-04-05: a week back is Mar 29, a month back is Mar 6; the third project has none.
  const r = await applyRetention(db.url, { now: new Date('2027-04-05T00:00:00Z') });
  expect(r.ran).toBe(true);
  expect(r.deletedSessions).toBe(3 + 2);
  expect(await left(week)).toEqual(everywhere(['mar-31']));
  expect(await left(month)).toEqual(everywhere(['long', 'mar-31']));
  expect(await left(forever)).toEqual(everywhere(['jan', 'long', 'mar-01', 'mar-31']));
  // A project without a retention keeps every month: no partition may be dropped.
  expect(r.dropped).toEqual([]);

  // The collector's default applies to projects without their own: a 20-day default on the same day.
  const again = await applyRetention(db.url, { now: new Date('2027-04-05T00:00:00Z'), defaultDays: 20 });
  expect(again.deletedSessions).toBe(2);
  expect(await left(forever)).toEqual(everywhere(['long', 'mar-31']));
  expect(await left(week)).toEqual(everywhere(['mar-31']));
  await client.query('UPDATE projects SET retention_days = 1 WHERE retention_days IS NULL OR retention_days <> 1');
});

it('deletes in batches of the given size, one short transaction each', async () => {
  const p = await project(10);
  const other = await project(10);
  for (let i = 0; i < 5; i++) await session(p, `old-${i}`, '2027-03-02T00:00:00Z', '2027-03-02T00:01:00Z');
  await session(other, 'recent', '2027-03-20T00:00:00Z', '2027-03-20T00:01:00Z');
  // Track the other project's rows only: all rows of projects made by earlier tests are expired at retention 1.
  const r = await applyRetention(db.url, { now: new Date('2027-03-25T00:00:00Z'), batchSessions: 2 });
  expect(r.ran).toBe(true);
  expect(await left(p)).toEqual(everywhere([]));
  expect(await left(other)).toEqual(everywhere(['recent']));
  // 5 sessions of this project in batches of 2: 3 batches (other projects' count on top).
  expect(r.sessionBatches).toBeGreaterThanOrEqual(3);
  const deletedHere = 5;
  expect(r.deletedSessions).toBeGreaterThanOrEqual(deletedHere);
  await expect(applyRetention(db.url, { batchSessions: 0 })).rejects.toThrow(/batchSessions must be a whole number of at least 1, got 0/);
});

it('runs in one process at a time: while another holds the lock it skips, and two racing runs delete each session once', async () => {
  const p = await project(10);
  for (let i = 0; i < 6; i++) await session(p, `s-${i}`, '2027-03-02T00:00:00Z', '2027-03-02T00:01:00Z');
  const holder = new pg.Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query(`SELECT pg_advisory_lock(${RETENTION_LOCK})`);
    const skipped = await applyRetention(db.url, { now: new Date('2027-03-25T00:00:00Z') });
    expect(skipped).toEqual({ ran: false, deletedSessions: 0, sessionBatches: 0, deletedFromDefault: 0, dropped: [], deletedGenAiEvents: 0, releasedTraces: 0 });
    expect((await left(p)).sessions).toHaveLength(6);
    await holder.query(`SELECT pg_advisory_unlock(${RETENTION_LOCK})`);
  } finally {
    await holder.end();
  }
  const runs = await Promise.all(
    [1, 2].map(() => applyRetention(db.url, { now: new Date('2027-03-25T00:00:00Z'), batchSessions: 1 })),
  );
  expect(runs.filter((r) => r.ran).length).toBeGreaterThanOrEqual(1);
  expect(await left(p)).toEqual(everywhere([]));
  // Whether the runs overlapped or not, no session was counted twice.
  expect(runs.reduce((n, r) => n + r.deletedSessions, 0)).toBe(6);
  // The lock is released after a run: the next one runs.
  expect((await applyRetention(db.url, { now: new Date('2027-03-25T00:00:00Z') })).ran).toBe(true);
});

it('drops a month only once every project retention has passed it and no kept session has spans in it', async () => {
  const short = await project(10);
  const long = await project(90);
  await session(short, 'apr', '2027-04-10T00:00:00Z', '2027-04-10T00:01:00Z');
  await session(long, 'apr', '2027-04-11T00:00:00Z', '2027-04-11T00:01:00Z');
  // On Jun 20, April (ended May 1) is past 10 days but not past 90 days: it stays.
  const now = new Date('2027-06-20T00:00:00Z');
  const first = await applyRetention(db.url, { now });
  expect(first.dropped).toEqual([]);
  expect(await left(short)).toEqual(everywhere([]));
  expect(await left(long)).toEqual(everywhere(['apr']));
  // 30 days: May 21 is past the end of March and April for every project. (Earlier tests' projects keep 1 or 10 days.)
  await client.query('UPDATE projects SET retention_days = 30 WHERE id = $1', [long]);
  // A session still kept whose trace started in April keeps April.
  const other = await project(30);
  await session(other, 'alive', '2027-04-30T00:00:00Z', '2027-06-19T00:00:00Z');
  const second = await applyRetention(db.url, { now });
  expect(second.dropped).toEqual(['spans_p2027_03']);
  expect(await left(long)).toEqual(everywhere([]));
  expect(await left(other)).toEqual(everywhere(['alive']));
  // Once it is gone, April goes too, and with it the last trace index rows of the month.
  await client.query('DELETE FROM sessions WHERE project_id = $1', [other]);
  const third = await applyRetention(db.url, { now });
  expect(third.dropped).toEqual(['spans_p2027_04']);
  expect(third.releasedTraces).toBe(1);
  const parts = await client.query(`SELECT relname FROM pg_class WHERE relname LIKE 'spans_p2027_%' AND relkind = 'r' ORDER BY 1`);
  expect(parts.rows.map((r) => r.relname)).toEqual(['spans_p2027_05']);
});

it("takes a deleted session's share out of the analytics rollups, and leaves the kept session's", async () => {
  const p = await project(30);
  await session(p, 'old', '2027-01-01T00:00:00Z', '2027-01-01T00:05:00Z');
  await session(p, 'recent', '2027-03-30T00:00:00Z', null);
  // The rollups of both, as the collector keeps them in its write transaction.
  await client.query(`SELECT guardtrace_refresh_analytics(ARRAY[$1, $1]::uuid[], ARRAY['old', 'recent'])`, [p]);
  const days = async (table: string) =>
    (
      await client.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, sessions FROM ${table} WHERE project_id = $1 AND sessions <> 0 ORDER BY day`,
        [p],
      )
    ).rows;
  expect(await days('analytics_daily')).toEqual([
    { day: '2027-01-01', sessions: 1 },
    { day: '2027-03-30', sessions: 1 },
  ]);
  expect(await days('analytics_cost_daily')).toEqual([
    { day: '2027-01-01', sessions: 1 },
    { day: '2027-03-30', sessions: 1 },
  ]);
  const r = await applyRetention(db.url, { now: new Date('2027-04-05T00:00:00Z') });
  expect(r.deletedSessions).toBeGreaterThanOrEqual(1);
  expect(await days('analytics_daily')).toEqual([{ day: '2027-03-30', sessions: 1 }]);
  expect(await days('analytics_cost_daily')).toEqual([{ day: '2027-03-30', sessions: 1 }]);
  const parts = await client.query('SELECT DISTINCT session_id AS s FROM analytics_session_parts WHERE project_id = $1', [p]);
  expect(parts.rows.map((x) => x.s)).toEqual(['recent']);
});
