/**
 * `pnpm --filter @guardtrace/db bench:datasets`: dataset creation from an explorer query
 * (packages/db/src/datasets.ts, what `POST /v1/datasets` and the web app's "Save as dataset" run)
 * matching 100,000 tool calls in 50,000 sessions, on a throwaway embedded Postgres seeded with
 * set-based SQL (each call: 1-2 attempts with arguments and feedback, a guard check each, every
 * tenth with a definition summary). Target: ≤ 10 s, with progress. Writes bench/datasets.json.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createDataset, pgQueryable } from '../src/datasets.ts';
import { createTestDatabase } from '../src/dev.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const SESSIONS = Number(process.env.GUARDTRACE_BENCH_DATASET_SESSIONS ?? 50_000);
const CALLS_PER_SESSION = 2;
const TARGET_S = 10;

const db = await createTestDatabase({ partitions: false });
const client = new pg.Client({ connectionString: db.url });
await client.connect();
const project = '00000000-0000-4000-8000-0000000000d5';
const results: { benchmark: string; metric: string; value: string; target: string; pass: boolean }[] = [];
let progressEvents = 0;
let seconds = 0;
let items = 0;
try {
  await client.query('INSERT INTO projects (id, name) VALUES ($1, $2)', [project, 'bench-datasets']);
  const seedStart = performance.now();
  await client.query(
    `INSERT INTO sessions (project_id, id, started_at, ended_at)
     SELECT $1::uuid, 's' || n, timestamptz '2026-11-01' + n * interval '1 second', timestamptz '2026-11-01' + n * interval '1 second'
     FROM generate_series(1, $2::int) n`,
    [project, SESSIONS],
  );
  // Calls: span ids c<session>_<i>; trace per session.
  await client.query(
    `INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms, outcome, failure_class, definition_hash, arguments)
     SELECT $1::uuid, lpad(to_hex(n), 32, '0'), lpad(to_hex(n * 4 + i), 16, '0'), 's' || n, 'read_file',
       timestamptz '2026-11-01' + n * interval '1 second' + i * interval '1 ms', 3, 'success', NULL,
       CASE WHEN n % 10 = 0 THEN lpad(to_hex(n % 7), 16, '0') END, '{"path":"src/f' || n || '.ts"}'
     FROM generate_series(1, $2::int) n, generate_series(1, $3::int) i`,
    [project, SESSIONS, CALLS_PER_SESSION],
  );
  await client.query(
    `INSERT INTO tool_definitions (project_id, hash, tool_name, summary, first_seen_at)
     SELECT $1::uuid, lpad(to_hex(k), 16, '0'), 'read_file', jsonb_build_object('tool', 'read_file', 'schema', jsonb_build_object('type', 'object'), 'guards', '[]'::jsonb, 'flags', '{}'::jsonb, 'policy', '{}'::jsonb), now()
     FROM generate_series(0, 6) k`,
    [project],
  );
  // Attempts: every call one, every third call a rejected first attempt too; a guard check each.
  await client.query(
    `INSERT INTO attempts (project_id, trace_id, span_id, session_id, tool_call_span_id, tool_name, number, started_at, duration_ms, outcome, failure_class, decision, feedback, arguments)
     SELECT t.project_id, t.trace_id, lpad(to_hex(('x' || t.span_id)::bit(64)::bigint * 2 + a), 16, '0') , t.session_id, t.span_id, 'read_file', a, t.started_at, 1,
       CASE WHEN a = 1 AND n_rej THEN 'rejected' ELSE 'success' END, CASE WHEN a = 1 AND n_rej THEN 'guard_violation' END,
       CASE WHEN a = 1 AND n_rej THEN 'reject_with_feedback' ELSE 'proceed' END, CASE WHEN a = 1 AND n_rej THEN 'path is outside the workspace' END,
       '{"path":"src/f.ts","attempt":' || a || '}'
     FROM (SELECT *, (('x' || span_id)::bit(64)::bigint % 3 = 0) AS n_rej FROM tool_calls WHERE project_id = $1::uuid) t,
       LATERAL generate_series(1, CASE WHEN t.n_rej THEN 2 ELSE 1 END) a`,
    [project],
  );
  await client.query(
    `INSERT INTO guard_checks (project_id, trace_id, span_id, session_id, attempt_span_id, guard_name, stage, verdict, reason, started_at, duration_us, failed_pointers)
     SELECT project_id, trace_id, lpad(to_hex(('x' || span_id)::bit(64)::bigint + (1::bigint << 40)), 16, '0'), session_id, span_id, 'insideWorkspace', 'logical',
       CASE WHEN outcome = 'rejected' THEN 'fail' ELSE 'pass' END, CASE WHEN outcome = 'rejected' THEN 'outside the workspace' END, started_at, 4,
       CASE WHEN outcome = 'rejected' THEN '["/path"]'::jsonb END
     FROM attempts WHERE project_id = $1::uuid`,
    [project],
  );
  await client.query('ANALYZE');
  const seedS = (performance.now() - seedStart) / 1000;
  const counts = (await client.query('SELECT (SELECT count(*) FROM tool_calls)::int AS calls, (SELECT count(*) FROM attempts)::int AS attempts, (SELECT count(*) FROM guard_checks)::int AS checks')).rows[0];
  console.log(`seeded in ${seedS.toFixed(1)} s:`, counts);

  const started = performance.now();
  const made = await createDataset(pgQueryable(client), {
    projectId: project,
    name: 'bench',
    source: { kind: 'query', query: 'tool:read_file started:>=2026-11-01' },
    onProgress: (p) => {
      progressEvents++;
      console.log(`  ${((performance.now() - started) / 1000).toFixed(1)} s: ${p.items} items, ${p.sessionsDone}/${p.sessions} sessions`);
    },
  });
  seconds = (performance.now() - started) / 1000;
  items = made.itemCount;
  const size = (await client.query(`SELECT pg_size_pretty(pg_total_relation_size('dataset_items')) AS s`)).rows[0].s;
  console.log(`dataset of ${items} items in ${seconds.toFixed(2)} s (${progressEvents} progress updates), dataset_items ${size}`);
  results.push({
    benchmark: `Dataset from a query matching ${(SESSIONS * CALLS_PER_SESSION).toLocaleString('en-US')} calls in ${SESSIONS.toLocaleString('en-US')} sessions`,
    metric: 'time to a ready dataset',
    value: `${seconds.toFixed(2)} s (${items.toLocaleString('en-US')} items, ${progressEvents} progress updates; ${size})`,
    target: `≤ ${TARGET_S} s`,
    pass: seconds <= TARGET_S && items === SESSIONS * CALLS_PER_SESSION,
  });
} finally {
  await client.end();
  await db.close();
}
writeFileSync(
  path.join(here, 'datasets.json'),
  `${JSON.stringify(
    {
      machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, Node ${process.version}`,
      date: new Date().toISOString(),
      method:
        'bench/datasets.ts: a throwaway embedded Postgres seeded with set-based SQL (each session 2 read_file calls; a third of the calls ' +
        'a rejected attempt before the passing one; a guard check per attempt; every tenth call a definition hash with its summary); ' +
        'createDataset (packages/db/src/datasets.ts) from the query `tool:read_file started:>=2026-11-01`, timed from the call to a ready ' +
        `dataset; load average ${os.loadavg()[0]?.toFixed(1)} at the end (shared 2-core machine, other builds running).`,
      rows: results,
    },
    null,
    2,
  )}\n`,
);
