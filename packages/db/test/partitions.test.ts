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

it('routes spans to monthly partitions of their trace start', async () => {
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
