/**
 * `SIZES=300,1500,6000 pnpm --filter @guardtrace/collector exec tsx bench/coalesce.ts [sessions]
 * [rounds] [--functions]`: what the per-session steps of a write transaction (session totals,
 * analytics rollup, correction links, model costs, alert minutes) cost, and would applying them
 * for several batches at once cost less than once a batch (issue 26, point 8)? Writes `sessions`
 * new sessions of the ingest benchmark's shape (5 spans each) through writeBatch on one
 * connection, in batches of each size (sessions a batch, default 100, 300, 1,500), alternating
 * with the same batches written without the steps (their statements left out of the
 * transaction's script), `rounds` times; prints per session the wall time and the Postgres
 * backend's CPU (/proc), and with `--functions` each step's time (pg_stat_user_functions,
 * track_functions = all, which slows the SQL functions it tracks). The steps' cost is the
 * difference with and without; one that falls with the batch size gains from coalescing.
 */

import { createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';
import { Normalizer } from '../src/normalize.ts';
import { decodeJsonRequest } from '../src/otlp-decode.ts';
import { type Prepared, prepareSpan, requestArena } from '../src/prepare.ts';
import { writeBatch } from '../src/write-batch.ts';
import { request } from './payload.ts';
import { cpuSeconds } from './proc-cpu.ts';

const SIZES = (process.env.SIZES ?? '100,300,1500').split(',').map(Number);
const TRACK = process.argv.includes('--functions');
// The per-session steps' statements in a write transaction (write-batch.ts, step 5).
const STEP_STATEMENT = /^SELECT guardtrace_(update_sessions|update_analytics|link_corrections|update_model_costs|update_alert_minutes)\(/;
const STEPS = [
  'guardtrace_update_sessions',
  'guardtrace_update_analytics',
  'guardtrace_link_corrections',
  'guardtrace_update_model_costs',
  'guardtrace_update_alert_minutes',
];

function prepared(projectId: string, sessions: number): Prepared[] {
  const body = Buffer.from(JSON.stringify(request(sessions)));
  const { spans: norm } = new Normalizer().normalize(decodeJsonRequest(body));
  const arena = requestArena(norm.length);
  return norm.map((s) => prepareSpan(projectId, s, arena));
}


async function main() {
  const total = Number(process.argv[2] ?? 3000);
  const rounds = Number(process.argv[3] ?? 3);
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'coalesce');
  await prisma.$disconnect();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  if (TRACK) await client.query(`SET track_functions = 'all'`);
  const c = client as unknown as pg.PoolClient;
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  // Without the steps: the write transaction's script (copy-script.ts) with their statements left out.
  let skip = false;
  const query = client.query.bind(client) as (...a: unknown[]) => unknown;
  (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
    const q = a[0] as { sql?: string };
    if (skip && typeof q === 'object' && q !== null && typeof q.sql === 'string') {
      Object.assign(q, { sql: q.sql.split(';\n').filter((st) => !STEP_STATEMENT.test(st)).join(';\n') });
    }
    return query(...a);
  };
  // Warm-up: plans, caches, statistics of a project with some sessions.
  for (let i = 0; i < 10; i++) await writeBatch(c, [{ projectId: project.id, spans: prepared(project.id, 300) }], 'direct');
  await client.query('ANALYZE');
  const sums = new Map<string, { wall: number; cpu: number; steps: Map<string, number>; sessions: number }>();
  for (let r = 0; r < rounds; r++) {
    for (const [size, without] of SIZES.flatMap((n) => [[n, false], [n, true]] as const)) {
      skip = without;
      const label = `${size}${without ? ' without steps' : ''}`;
      const batches = Array.from({ length: Math.ceil(total / size) }, () => prepared(project.id, size));
      await client.query('SELECT pg_stat_clear_snapshot(), pg_stat_reset()');
      const t = performance.now();
      const cpu = cpuSeconds(backend);
      for (const spans of batches) await writeBatch(c, [{ projectId: project.id, spans }], 'direct');
      const wall = performance.now() - t;
      const used = (cpuSeconds(backend) - cpu) * 1000;
      // Function statistics are sent at the end of a transaction; a fresh snapshot reads them.
      await client.query('SELECT pg_stat_clear_snapshot(), pg_stat_force_next_flush()');
      const { rows } = await client.query<{ funcname: string; total_time: number }>(
        'SELECT funcname, total_time FROM pg_stat_user_functions',
      );
      const s = sums.get(label) ?? { wall: 0, cpu: 0, steps: new Map(), sessions: 0 };
      s.wall += wall;
      s.cpu += used;
      s.sessions += batches.length * size;
      for (const row of rows) if (STEPS.includes(row.funcname)) s.steps.set(row.funcname, (s.steps.get(row.funcname) ?? 0) + row.total_time);
      sums.set(label, s);
    }
  }
  console.log(`µs a session (5 spans): wall, the backend's CPU, steps (with --functions), ${rounds} rounds of ${total} sessions per batch size`);
  console.log(['batch sessions', 'transaction', 'Postgres CPU', ...STEPS.map((f) => f.replace('guardtrace_', '')), 'steps'].join(' | '));
  for (const [size, s] of sums) {
    const per = (ms: number) => ((ms * 1000) / s.sessions).toFixed(1);
    const steps = STEPS.map((f) => s.steps.get(f) ?? 0);
    console.log([size, per(s.wall), per(s.cpu), ...steps.map(per), per(steps.reduce((a, b) => a + b, 0))].join(' | '));
  }
  await client.end();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
