/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/explain-batch.ts [batches] [spans per batch]`:
 * the plans and times of one write transaction's statements, nested ones included (auto_explain
 * with ANALYZE, sent back as notices), for a batch of the ingest benchmark's spans after
 * `batches` batches like it. Writes through writeBatch itself on one connection (no collector
 * process), so every step of a real batch runs; prints each statement slower than 0.5 ms.
 * `--long`: every batch is 20 turns (100 spans) of one session instead, as bench/long-session.ts
 * sends it, so the explained batch is the last of a long session. `--plans` prints the plans.
 */
import { createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { Normalizer } from '../src/normalize.ts';
import { decodeJsonRequest } from '../src/otlp-decode.ts';
import { type Prepared, prepareSpan, requestArena } from '../src/prepare.ts';
import { writeBatch } from '../src/write-batch.ts';
import { longSession, request } from './payload.ts';

const LONG = process.argv.includes('--long');

function prepared(projectId: string, spans: number): Prepared[] {
  const json = LONG ? (longSession('long_explained', 1, Math.ceil(spans / 5))[0] as Record<string, unknown>) : request(Math.ceil(spans / 5));
  const body = Buffer.from(JSON.stringify(json));
  const { spans: norm } = new Normalizer().normalize(decodeJsonRequest(body));
  const arena = requestArena(norm.length);
  return norm.map((s) => prepareSpan(projectId, s, arena));
}

async function main() {
  const batches = Number(process.argv[2] ?? 20);
  const size = Number(process.argv[3] ?? 1500);
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'explain');
  await prisma.$disconnect();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const c = client as unknown as pg.PoolClient;
  for (let i = 0; i < batches; i++) await writeBatch(c, [{ projectId: project.id, spans: prepared(project.id, size) }], 'direct');
  if (process.argv.includes('--analyze')) await client.query('ANALYZE');
  const notices: string[] = [];
  client.on('notice', (n) => notices.push(n.message ?? ''));
  await client.query(`LOAD 'auto_explain'`);
  await client.query(`SET auto_explain.log_min_duration = '0.5ms'; SET auto_explain.log_analyze = on;
    SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice; SET auto_explain.log_timing = on`);
  const jobs = [{ projectId: project.id, spans: prepared(project.id, size) }];
  const t = performance.now();
  await writeBatch(c, jobs, 'direct');
  console.log(`batch of ${size} spans after ${batches}: ${(performance.now() - t).toFixed(1)} ms`);
  for (const n of notices) {
    const ms = /actual time=[\d.]+\.\.([\d.]+)/.exec(n)?.[1];
    const query = /Query Text: ([\s\S]*?)\n/.exec(n)?.[1]?.slice(0, 120);
    console.log(`=== ${ms} ms: ${query}`);
    if (process.argv.includes('--plans')) console.log(n);
  }
  await client.end();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
