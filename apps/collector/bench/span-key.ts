/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/span-key.ts`: what keeping one row per
 * (trace id, span id) costs Postgres, for the ways weighed, side by side in one run:
 *
 * - trace start (chosen): spans partitioned by their trace's start time, so the primary key is
 *   the span key; the writer adds nothing (the start comes with the trace lookup it makes anyway);
 * - key table: an unpartitioned (project_id, trace_id, span_id) table, its keys inserted first
 *   (ON CONFLICT DO NOTHING RETURNING: the new spans), then the rows;
 * - key table by hash: the same table partitioned by hash of the trace id (8 partitions).
 *
 * Each transaction writes one export's rows (500 guard-shaped spans, their derived rows) with
 * COPY, as the collector does; rounds interleave the variants, best round each. Prints ratios.
 */
import os from 'node:os';
import { createProject, createPrisma } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { copyRows } from './copy-rows.ts';
import { request } from './payload.ts';
import { tableRows } from './rows.ts';

const SESSIONS_PER_BATCH = 100; // 500 spans
const BATCHES = 24;
const ROUNDS = 3;

type Variant = { name: string; keys: string | null };
const VARIANTS: Variant[] = [
  { name: 'trace start (chosen)', keys: null },
  { name: 'key table', keys: 'bench_span_keys' },
  { name: 'key table by hash (8)', keys: 'bench_span_keys_hash' },
];

async function main() {
  const db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  const prisma = createPrisma(db.url, { max: 1 });
  try {
    await pool.query(`CREATE TABLE bench_span_keys (project_id uuid, trace_id varchar(32), span_id varchar(16),
      PRIMARY KEY (project_id, trace_id, span_id))`);
    await pool.query(`CREATE TABLE bench_span_keys_hash (project_id uuid, trace_id varchar(32), span_id varchar(16),
      PRIMARY KEY (project_id, trace_id, span_id)) PARTITION BY HASH (trace_id)`);
    for (let i = 0; i < 8; i++) {
      await pool.query(`CREATE TABLE bench_span_keys_hash_${i} PARTITION OF bench_span_keys_hash FOR VALUES WITH (MODULUS 8, REMAINDER ${i})`);
    }
    const best = new Map<string, number>();
    for (let round = 0; round < ROUNDS; round++) {
      // Rotated, so a burst of outside load does not always hit the same variant.
      for (let v = 0; v < VARIANTS.length; v++) {
        const variant = VARIANTS[(v + round) % VARIANTS.length] as Variant;
        const project = (await createProject(prisma, `bench-${round}-${v}`)).id;
        const batches = Array.from({ length: BATCHES }, () => tableRows(project, [request(SESSIONS_PER_BATCH)]));
        const client = await pool.connect();
        let spans = 0;
        const t = performance.now();
        for (const targets of batches) {
          const spanRows = targets[0]?.[1] ?? [];
          spans += spanRows.length;
          await client.query('BEGIN');
          if (variant.keys !== null) {
            const { rowCount } = await client.query(
              `INSERT INTO ${variant.keys} SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[])
               ON CONFLICT DO NOTHING RETURNING trace_id, span_id`,
              [spanRows.map((r) => r.project_id), spanRows.map((r) => r.trace_id), spanRows.map((r) => r.span_id)],
            );
            if (rowCount !== spanRows.length) throw new Error(`${variant.name}: ${rowCount} new keys of ${spanRows.length}`);
          }
          for (const [target, rows] of targets) await copyRows(client, target.table, rows, target.columns);
          await client.query('COMMIT');
        }
        const perSecond = spans / ((performance.now() - t) / 1000);
        client.release();
        console.log(`round ${round + 1}: ${variant.name} ${perSecond.toFixed(0)} spans/s`);
        best.set(variant.name, Math.max(best.get(variant.name) ?? 0, perSecond));
      }
    }
    const base = best.get('trace start (chosen)') as number;
    const size = await pool.query<{ t: string; bytes: string; n: string }>(
      `SELECT t, pg_total_relation_size(t::regclass) + coalesce((SELECT sum(pg_total_relation_size(inhrelid))
         FROM pg_inherits WHERE inhparent = t::regclass), 0) AS bytes,
         (SELECT count(*) FROM spans) AS n
       FROM unnest(ARRAY['bench_span_keys', 'bench_span_keys_hash']) AS t`,
    );
    console.log(`\n${os.cpus().length} x ${os.cpus()[0]?.model}, load ${os.loadavg()[0]?.toFixed(1)}, ${new Date().toISOString()}`);
    for (const [name, v] of best) console.log(`${name}: ${v.toFixed(0)} spans/s (${((100 * v) / base).toFixed(0)}% of trace start)`);
    for (const r of size.rows) console.log(`${r.t}: ${(Number(r.bytes) / (Number(r.n) / VARIANTS.length)).toFixed(0)} bytes per key`);
  } finally {
    await prisma.$disconnect();
    await pool.end();
    await db.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
