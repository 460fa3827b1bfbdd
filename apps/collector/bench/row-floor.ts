/**
 * `pnpm --filter @guardtrace/collector exec tsx bench/row-floor.ts [rounds]`: what writing a new
 * session's own rows costs Postgres, whatever computes their values (issue 26, point 8). Inserts
 * batches of 300 rows (the sessions a lane's batch brings at the benchmark's peak) into each
 * table a write transaction adds one row per new session to: `sessions` (its primary key, the
 * explorer's time index and eight sort indexes, the key-text trigger), `analytics_session_parts`
 * and `analytics_session_costs`; beside copies of `sessions` with its primary key only and with
 * the time index too, and the same SELECT inserting nothing. Alternating, `rounds` times; prints the Postgres backend's CPU
 * (/proc) per row, less the SELECT's. The values are fixed literals: this is the floor of any
 * way of computing them (read back, given by the collector, or deferred).
 */
import { readFileSync } from 'node:fs';
import { createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import pg from 'pg';

const BATCH = 300;
const BATCHES = 20;

/** CPU seconds of a process so far (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One row per generated session `g` (ids unique per call through `$2`, an offset). */
const SESSION_ID = `'sess-' || md5(($2::int + g)::text)`;
const TARGETS: [string, string][] = [
  ['SELECT only', `SELECT count(*) FROM (SELECT $1::uuid, ${SESSION_ID} FROM generate_series(1, ${BATCH}) g) x`],
  [
    'sessions',
    `INSERT INTO sessions (project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count,
      tool_call_count, attempt_count, failed_attempt_count)
     SELECT $1::uuid, ${SESSION_ID}, 'coder', 'agent-svc', 'user-' || (g % 50), timestamptz '2026-11-20' + g * interval '1 second',
       timestamptz '2026-11-20' + g * interval '2 second', 'failed', 5, 1, 1, 1 FROM generate_series(1, ${BATCH}) g`,
  ],
  [
    'sessions, primary key only',
    `INSERT INTO sessions_pkey_only (project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count,
      tool_call_count, attempt_count, failed_attempt_count)
     SELECT $1::uuid, ${SESSION_ID}, 'coder', 'agent-svc', 'user-' || (g % 50), timestamptz '2026-11-20' + g * interval '1 second',
       timestamptz '2026-11-20' + g * interval '2 second', 'failed', 5, 1, 1, 1 FROM generate_series(1, ${BATCH}) g`,
  ],
  [
    'sessions, primary key and time index',
    `INSERT INTO sessions_time_only (project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome, span_count,
      tool_call_count, attempt_count, failed_attempt_count)
     SELECT $1::uuid, ${SESSION_ID}, 'coder', 'agent-svc', 'user-' || (g % 50), timestamptz '2026-11-20' + g * interval '1 second',
       timestamptz '2026-11-20' + g * interval '2 second', 'failed', 5, 1, 1, 1 FROM generate_series(1, ${BATCH}) g`,
  ],
  [
    'analytics_session_parts',
    `INSERT INTO analytics_session_parts (project_id, session_id, day, tool_name, failure_class, feedback_template, attempts,
      failed_attempts, rejections, row_count)
     SELECT $1::uuid, ${SESSION_ID}, date '2026-11-20', 'write_file', 'invalid_arguments',
       'Missing required field "…" (string). Allowed fields: path, content, mode.', 1, 1, 1, 1 FROM generate_series(1, ${BATCH}) g`,
  ],
  [
    'analytics_session_costs',
    `INSERT INTO analytics_session_costs (project_id, session_id, day, bucket, weight, tokens, repair_tokens)
     SELECT $1::uuid, ${SESSION_ID}, date '2026-11-20', 1, 1, 500, 0 FROM generate_series(1, ${BATCH}) g`,
  ],
];

async function main() {
  const rounds = Number(process.argv[2] ?? 3);
  const db = await createTestDatabase();
  const prisma = createPrisma(db.url, { max: 1 });
  const project = await createProject(prisma, 'row-floor');
  await prisma.$disconnect();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(`CREATE TABLE sessions_pkey_only (LIKE sessions INCLUDING DEFAULTS, PRIMARY KEY (project_id, id));
    CREATE TABLE sessions_time_only (LIKE sessions INCLUDING DEFAULTS, PRIMARY KEY (project_id, id));
    CREATE INDEX ON sessions_time_only (project_id, started_at, id)`);
  const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid as number;
  let offset = 0;
  const cpu = new Map<string, number>();
  for (let round = 0; round <= rounds; round++) {
    for (const [label, sql] of TARGETS) {
      const before = cpuSeconds(backend);
      for (let i = 0; i < BATCHES; i++) {
        await client.query('BEGIN');
        await client.query(sql, [project.id, offset]);
        await client.query('COMMIT');
        offset += BATCH;
      }
      // Round 0 warms up (plans, caches, the tables' first pages): not counted.
      if (round > 0) cpu.set(label, (cpu.get(label) ?? 0) + cpuSeconds(backend) - before);
    }
  }
  const rows = rounds * BATCHES * BATCH;
  const base = (cpu.get('SELECT only') ?? 0) / rows;
  console.log(`Postgres backend CPU per row, less the SELECT's (${(base * 1e6).toFixed(1)} µs), ${rounds} rounds of ${BATCHES} x ${BATCH} rows`);
  for (const [label] of TARGETS.slice(1)) {
    const us = ((cpu.get(label) ?? 0) / rows - base) * 1e6;
    console.log(`${label}: ${us.toFixed(1)} µs a row (${(us / 5).toFixed(1)} µs a span of 5-span sessions)`);
  }
  await client.end();
  await db.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
