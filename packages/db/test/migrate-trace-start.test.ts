/**
 * The migration that partitions spans by their trace's start time, on a database made before
 * it: spans stored twice (re-sent with another start time) are kept once, each trace gets its
 * start time, the monthly partitions keep their names and bounds, and the sessions that
 * counted a duplicate count it once.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../src/dev.ts';
import { migrate } from '../src/server.ts';
import { migrateUntil } from './migrate-until.ts';

let db: TestDatabase;
let c: pg.Client;
beforeAll(async () => {
  db = await createTestDatabase({ migrate: false });
  await migrateUntil(db.url, '_span_trace_start');
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
});
afterAll(async () => {
  await c?.end();
  await db?.close();
});

const P = '00000000-0000-4000-8000-000000000001';
const [T1, T2] = ['a'.repeat(32), 'b'.repeat(32)];

it('keeps each span once, anchors each trace at its earliest start, and keeps the partitions', async () => {
  // Partitions by span start time, as maintainSpanPartitions made them before: October and November 2026.
  await c.query(`CREATE TABLE spans_p2026_10 PARTITION OF spans FOR VALUES FROM ('2026-10-01T00:00:00Z') TO ('2026-11-01T00:00:00Z')`);
  await c.query(`CREATE TABLE spans_p2026_11 PARTITION OF spans FOR VALUES FROM ('2026-11-01T00:00:00Z') TO ('2026-12-01T00:00:00Z')`);
  const span = (trace: string, id: string, start: string, received: string, name = 'x') =>
    c.query(
      `INSERT INTO spans (project_id, start_time, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano, received_at)
       VALUES ($1, $2, $3, $4, 'sess-1', $5, 0, 0, $6)`,
      [P, start, trace, id, name, received],
    );
  await span(T1, '0000000000000001', '2026-11-20T10:00:00Z', '2026-11-20T10:00:01Z', 'first');
  await span(T1, '0000000000000001', '2026-11-20T10:00:00.001Z', '2026-11-20T10:05:00Z', 'again +1 ms');
  await span(T1, '0000000000000001', '2026-10-11T10:00:00Z', '2026-11-20T10:06:00Z', 'again -40 days');
  await span(T1, '0000000000000002', '2026-11-20T10:00:02Z', '2026-11-20T10:00:03Z');
  await span(T2, '0000000000000003', '2025-01-01T00:00:00Z', '2025-01-01T00:00:01Z'); // in spans_default
  await c.query(`INSERT INTO traces (project_id, trace_id, session_id) VALUES ($1, $2, 'sess-1'), ($1, $3, 'sess-1')`, [P, T1, T2]);
  await c.query(
    `INSERT INTO sessions (project_id, id, started_at, span_count) VALUES ($1, 'sess-1', '2025-01-01T00:00:00Z', 5)`,
    [P],
  );

  await migrate(db.url);

  const spans = await c.query(
    `SELECT span_id, name, start_time, trace_start, tableoid::regclass::text AS part FROM spans ORDER BY span_id`,
  );
  const oct11 = new Date('2026-10-11T10:00:00Z');
  expect(spans.rows).toEqual([
    { span_id: '0000000000000001', name: 'first', start_time: new Date('2026-11-20T10:00:00Z'), trace_start: oct11, part: 'spans_p2026_10' },
    { span_id: '0000000000000002', name: 'x', start_time: new Date('2026-11-20T10:00:02Z'), trace_start: oct11, part: 'spans_p2026_10' },
    { span_id: '0000000000000003', name: 'x', start_time: new Date('2025-01-01T00:00:00Z'), trace_start: new Date('2025-01-01T00:00:00Z'), part: 'spans_default' },
  ]);
  const traces = await c.query('SELECT trace_id, start_time FROM traces ORDER BY trace_id');
  expect(traces.rows).toEqual([
    { trace_id: T1, start_time: oct11 },
    { trace_id: T2, start_time: new Date('2025-01-01T00:00:00Z') },
  ]);
  const parts = await c.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits i
     JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = 'spans' ORDER BY 1`,
  );
  expect(parts.rows.map((r) => r.name)).toEqual(['spans_default', 'spans_p2026_10', 'spans_p2026_11']);
  expect(parts.rows[1]?.bound).toMatch(/FROM \('2026-10-01 .*'\) TO \('2026-11-01 .*'\)/);
  // Nothing of the old table is left, and its partitions' indexes gave their names back.
  const old = await c.query(`SELECT relname FROM pg_class WHERE relname LIKE 'old\\_%' OR relname LIKE 'spans\\_by\\_start%'`);
  expect(old.rows).toEqual([]);
  // The re-sends are rejected by the key now, whatever their start time.
  await expect(
    c.query(
      `INSERT INTO spans (project_id, start_time, trace_start, trace_id, span_id, session_id, name, start_time_unix_nano, end_time_unix_nano)
       VALUES ($1, '2026-11-25T00:00:00Z', $2, $3, '0000000000000001', 'sess-1', 'y', 0, 0)`,
      [P, oct11, T1],
    ),
  ).rejects.toThrow(/duplicate key/);
  const session = await c.query(`SELECT span_count FROM sessions WHERE project_id = $1 AND id = 'sess-1'`, [P]);
  expect(session.rows).toEqual([{ span_count: 3 }]);
});
