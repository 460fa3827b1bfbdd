import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { maintainSpanPartitions, partitionMonths } from '../src/server.ts';

let db: TestDatabase;
let client: pg.Client;
beforeAll(async () => {
  // No partitions from the day the test runs: the test makes its own, for its own dates.
  db = await createTestDatabase({ partitions: false });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.close();
});

const PROJECT = '00000000-0000-4000-8000-000000000001';
/** A span of `trace` (default a...a) starting at `start`; its trace started at `traceStart` (default the same). */
async function insertSpan(start: string, spanId: string, traceStart = start, trace = 'a'.repeat(32)) {
  await client.query(
    `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
     VALUES ($1, $2, $3, $4, $5, 's', 'x', 0, 0)`,
    [PROJECT, start, traceStart, trace, spanId],
  );
}
async function partitionOf(spanId: string): Promise<string> {
  const r = await client.query('SELECT tableoid::regclass::text AS t FROM spans WHERE span_id = $1', [spanId]);
  return r.rows[0].t;
}

it('routes spans to monthly partitions of their trace start and drops whole months past the retention', async () => {
  const now = new Date('2027-03-15T12:00:00Z');
  const made = await maintainSpanPartitions(db.url, { now });
  expect(made.created).toEqual(['spans_p2027_02', 'spans_p2027_03', 'spans_p2027_04', 'spans_p2027_05']);
  expect((await maintainSpanPartitions(db.url, { now })).created).toEqual([]);

  await insertSpan('2027-03-03T00:00:00Z', '0000000000000001');
  await insertSpan('2027-02-20T00:00:00Z', '0000000000000002');
  await insertSpan('2025-01-01T00:00:00Z', '0000000000000003');
  expect(await partitionOf('0000000000000001')).toBe('spans_p2027_03');
  expect(await partitionOf('0000000000000002')).toBe('spans_p2027_02');
  expect(await partitionOf('0000000000000003')).toBe('spans_default');
  // A span starting in March of a trace that started in February is February's.
  await insertSpan('2027-03-10T00:00:00Z', '0000000000000004', '2027-02-27T00:00:00Z', 'e'.repeat(32));
  expect(await partitionOf('0000000000000004')).toBe('spans_p2027_02');

  // The primary key rejects a duplicate span (ingest relies on it for idempotency), also one
  // that carries another start time of its own: 40 days earlier, in a month that has a partition.
  await expect(insertSpan('2027-03-03T00:00:00Z', '0000000000000001')).rejects.toThrow(/duplicate key/);
  await expect(insertSpan('2027-02-01T00:00:00Z', '0000000000000001', '2027-03-03T00:00:00Z')).rejects.toThrow(/duplicate key/);

  // 30 days of retention on 2027-04-05: February ended on Mar 1 (> 30 days ago: dropped), March stays.
  const later = await maintainSpanPartitions(db.url, { now: new Date('2027-04-05T00:00:00Z'), retentionDays: 30 });
  expect(later.dropped).toEqual(['spans_p2027_02']);
  expect(later.deletedFromDefault).toBe(1);
  expect(later.releasedTraces).toBe(0);
  const left = await client.query('SELECT span_id FROM spans ORDER BY span_id');
  expect(left.rows.map((r) => r.span_id)).toEqual(['0000000000000001']);
});

it('deletes sessions past the retention with every derived row, and keeps recent ones whole', async () => {
  const trace = 'b'.repeat(32);
  for (const [id, start, end] of [
    ['old', '2027-01-01T00:00:00Z', '2027-01-01T00:05:00Z'],
    ['recent', '2027-03-30T00:00:00Z', null],
  ] as const) {
    await client.query(
      'INSERT INTO sessions (project_id, id, started_at, ended_at) VALUES ($1, $2, $3, $4)',
      [PROJECT, id, start, end],
    );
    const span = id === 'old' ? '00000000000000a1' : '00000000000000b1';
    await client.query(
      `INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms) VALUES ($1, $2, $3, $4, 't', $5, 1)`,
      [PROJECT, trace, span, id, start],
    );
    await client.query(
      `INSERT INTO attempts (project_id, trace_id, span_id, session_id, number, started_at, duration_ms) VALUES ($1, $2, $3, $4, 1, $5, 1)`,
      [PROJECT, trace, `${span.slice(0, 15)}2`, id, start],
    );
    await client.query(
      `INSERT INTO guard_checks (project_id, trace_id, span_id, session_id, guard_name, verdict, started_at, duration_us) VALUES ($1, $2, $3, $4, 'g', 'pass', $5, 1)`,
      [PROJECT, trace, `${span.slice(0, 15)}3`, id, start],
    );
    await client.query(
      `INSERT INTO model_calls (project_id, trace_id, span_id, session_id, started_at, duration_ms) VALUES ($1, $2, $3, $4, $5, 1)`,
      [PROJECT, trace, `${span.slice(0, 15)}4`, id, start],
    );
    // The trace index row of a trace of this session.
    await client.query('INSERT INTO traces (project_id, trace_id, session_id, start_time) VALUES ($1, $2, $3, $4)', [
      PROJECT,
      (id === 'old' ? 'c' : 'd').repeat(32),
      id,
      start,
    ]);
    // A raw span in March: its partition is kept by a 30-day retention, the old session's span must still go.
    await client.query(
      `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
       VALUES ($1, '2027-03-31T00:00:00Z', '2027-03-31T00:00:00Z', $2, $3, $4, 'x', 0, 0)`,
      [PROJECT, trace, `${span.slice(0, 15)}5`, id],
    );
  }
  // The analytics rollup of both, as the collector keeps it.
  await client.query(`SELECT guardtrace_refresh_analytics(ARRAY[$1, $1]::uuid[], ARRAY['old', 'recent'])`, [PROJECT]);
  const rollupDays = async () =>
    (
      await client.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, attempts, sessions FROM analytics_daily
         WHERE project_id = $1 AND (attempts <> 0 OR sessions <> 0) ORDER BY day`,
        [PROJECT],
      )
    ).rows;
  expect(await rollupDays()).toEqual([
    { day: '2027-01-01', attempts: 1, sessions: 1 },
    { day: '2027-03-30', attempts: 1, sessions: 1 },
  ]);
  const r = await maintainSpanPartitions(db.url, { now: new Date('2027-04-05T00:00:00Z'), retentionDays: 30 });
  expect(r.deletedSessions).toBe(1);
  // The old session's share of the rollup went with it.
  expect(await rollupDays()).toEqual([{ day: '2027-03-30', attempts: 1, sessions: 1 }]);
  const costDays = await client.query(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, sessions FROM analytics_cost_daily WHERE project_id = $1 AND sessions <> 0`,
    [PROJECT],
  );
  expect(costDays.rows).toEqual([{ day: '2027-03-30', sessions: 1 }]);
  const parts = await client.query('SELECT DISTINCT session_id AS s FROM analytics_session_parts WHERE project_id = $1', [PROJECT]);
  expect(parts.rows.map((x) => x.s)).toEqual(['recent']);
  for (const table of ['sessions', 'tool_calls', 'attempts', 'guard_checks', 'model_calls', 'spans']) {
    const col = table === 'sessions' ? 'id' : 'session_id';
    // (The first test left a span of another trace behind: only this test's trace counts.)
    const rows =
      table === 'sessions'
        ? await client.query('SELECT id AS s FROM sessions WHERE project_id = $1', [PROJECT])
        : await client.query(`SELECT ${col} AS s FROM ${table} WHERE project_id = $1 AND trace_id = $2`, [PROJECT, trace]);
    expect({ table, sessions: rows.rows.map((x) => x.s) }).toEqual({ table, sessions: ['recent'] });
  }
  const traces = await client.query('SELECT session_id AS s FROM traces WHERE project_id = $1', [PROJECT]);
  expect(traces.rows.map((x) => x.s)).toEqual(['recent']);
});

it('lets go of the trace index rows of the traces whose partition the retention dropped', async () => {
  // Fixed dates of their own (July to October 2027), after the months the tests above use.
  await maintainSpanPartitions(db.url, { now: new Date('2027-08-15T00:00:00Z') });
  const P = '00000000-0000-4000-8000-000000000002';
  const trace = async (t: string, start: string, spans: boolean) => {
    await client.query('INSERT INTO traces (project_id, trace_id, session_id, start_time) VALUES ($1, $2, $3, $4)', [P, t, t, start]);
    if (!spans) return;
    await client.query(
      `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
       VALUES ($1, $2, $3, $4, '00000000000000f1', $5, 'x', 0, 0)`,
      [P, start, start, t, t],
    );
  };
  const [july, august, lateAugust, quiet] = ['1', '2', '3', '4'].map((c) => c.repeat(32)) as [string, string, string, string];
  await trace(july, '2027-07-10T00:00:00Z', true); // its partition goes: its key and index row go with it
  await trace(august, '2027-08-02T00:00:00Z', true); // before the cutoff, but its partition stays
  await trace(lateAugust, '2027-08-20T00:00:00Z', true);
  await trace(quiet, '2027-08-21T00:00:00Z', false); // no span (yet), after the cutoff: kept
  // A trace of two sessions: one past the retention goes with its span, the other's span stays,
  // so the trace keeps its row (its start is that span's key: a re-send must still find it).
  const mixed = '5'.repeat(32);
  await client.query(`INSERT INTO traces (project_id, trace_id, session_id, start_time) VALUES ($1, $2, 'gone', '2027-08-01T00:00:00Z')`, [P, mixed]);
  for (const [session, spanId, end] of [
    ['gone', '00000000000000f2', '2027-08-01T00:01:00Z'],
    ['alive', '00000000000000f3', '2027-08-30T00:00:00Z'],
  ] as const) {
    await client.query('INSERT INTO sessions (project_id, id, started_at, ended_at) VALUES ($1, $2, $3, $4)', [P, session, '2027-08-01T00:00:00Z', end]);
    await client.query(
      `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
       VALUES ($1, '2027-08-01T00:00:00Z', '2027-08-01T00:00:00Z', $2, $3, $4, 'x', 0, 0)`,
      [P, mixed, spanId, session],
    );
  }
  const r = await maintainSpanPartitions(db.url, { now: new Date('2027-09-05T00:00:00Z'), retentionDays: 30 });
  expect(r.dropped).toContain('spans_p2027_07');
  // (Counted over every project: the tests above left traces of their own.)
  expect(r.releasedTraces).toBeGreaterThanOrEqual(1);
  const left = await client.query('SELECT trace_id FROM traces WHERE project_id = $1 ORDER BY trace_id', [P]);
  expect(left.rows.map((x) => x.trace_id)).toEqual([august, lateAugust, quiet, mixed]);
  const spans = await client.query('SELECT trace_id, span_id FROM spans WHERE project_id = $1 ORDER BY trace_id, span_id', [P]);
  expect(spans.rows.map((x) => [x.trace_id, x.span_id])).toEqual([
    [august, '00000000000000f1'],
    [lateAugust, '00000000000000f1'],
    [mixed, '00000000000000f3'],
  ]);
});

it.each([
  // [the clock's reading, the partitions that must exist then]
  ['2027-01-31T23:59:59.999Z', ['spans_p2026_12', 'spans_p2027_01', 'spans_p2027_02', 'spans_p2027_03']],
  ['2027-12-31T23:59:59.999Z', ['spans_p2027_11', 'spans_p2027_12', 'spans_p2028_01', 'spans_p2028_02']],
  ['2028-01-01T00:00:00.000Z', ['spans_p2027_12', 'spans_p2028_01', 'spans_p2028_02', 'spans_p2028_03']],
  ['2028-02-29T12:00:00.000Z', ['spans_p2028_01', 'spans_p2028_02', 'spans_p2028_03', 'spans_p2028_04']],
])('at %s the partitions are last month to two months ahead, in UTC', (now, names) => {
  const months = partitionMonths(new Date(now), 2);
  expect(months.map((m) => m.name)).toEqual(names);
  // Each month ends where the next begins: no span falls between two partitions.
  for (let i = 1; i < months.length; i++) expect(months[i]?.from).toEqual(months[i - 1]?.to);
  expect(months.every((m) => m.from.getUTCDate() === 1 && m.from.getUTCHours() === 0)).toBe(true);
});
