/**
 * Web data-layer benchmark: the queries behind each page on a large project, next to a
 * second project of the same size (scoping must not cost). Writes bench/results.json.
 *   pnpm --filter @guardtrace/web bench [--sessions=100000]
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createPrisma, createProject } from '@guardtrace/db';
import { createTestDatabase } from '@guardtrace/db/dev';
import { getSessionDetail } from '../src/server/queries/session.ts';
import { listSessions } from '../src/server/queries/sessions.ts';
import { benchAnalytics } from './analytics.ts';
import { seedBulk } from './seed.ts';

const arg = process.argv.find((a) => a.startsWith('--sessions='));
// 100k sessions per project: a busy month for one team, ~1.1M telemetry rows each.
const SESSIONS = arg ? Number(arg.split('=')[1]) : 100_000;
// 25 timed runs after 3 warm-ups: enough for a stable p95 on a noisy 2-core machine.
const RUNS = 25;
const WARMUP = 3;

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

const database = await createTestDatabase();
const db = createPrisma(database.url, { max: 4 });
const rows: Row[] = [];
try {
  const project = await createProject(db, 'bench');
  const other = await createProject(db, 'other');
  const t0 = performance.now();
  await seedBulk(db, project.id, SESSIONS);
  await seedBulk(db, other.id, SESSIONS);
  console.log(`seeded 2 × ${SESSIONS} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const measure = async (benchmark: string, targetMs: number, fn: () => Promise<unknown>) => {
    for (let i = 0; i < WARMUP; i++) await fn();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      await fn();
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(RUNS * 0.5)]!;
    const p95 = times[Math.min(RUNS - 1, Math.floor(RUNS * 0.95))]!;
    rows.push({
      benchmark,
      metric: 'p50 / p95 latency',
      value: `${p50.toFixed(1)} / ${p95.toFixed(1)} ms`,
      target: `p95 < ${targetMs} ms`,
      pass: p95 < targetMs,
    });
    console.log(`${benchmark.padEnd(48)} p50 ${p50.toFixed(1).padStart(7)} ms  p95 ${p95.toFixed(1).padStart(7)} ms`);
    return { p50, p95 };
  };

  // Targets: a page's queries together should stay well under the ~300 ms a click feels instant in.
  // The explorer: keyset pages (page 200 reached by its cursor), each filter of the query language, a sort.
  let deep = await listSessions(db, project.id, {});
  let page200: string | undefined;
  for (let i = 1; i < 200 && deep.next; i++) {
    page200 = deep.next;
    deep = await listSessions(db, project.id, { after: page200 });
  }
  await measure('sessions list, page 1', 100, () => listSessions(db, project.id, {}));
  await measure('sessions list, page 200 (keyset cursor)', 150, () => listSessions(db, project.id, { after: page200 }));
  await measure('sessions list, sort=tokens', 150, () => listSessions(db, project.id, { sort: 'tokens' }));
  await measure('sessions list, status:escalated', 150, () => listSessions(db, project.id, { filters: { status: 'escalated' } }));
  await measure('sessions list, class:transient', 200, () => listSessions(db, project.id, { filters: { classes: ['transient'] } }));
  await measure('sessions list, class:fatal (rare)', 300, () => listSessions(db, project.id, { filters: { classes: ['fatal'] } }));
  await measure('sessions list, tool:read_file attempts:>2', 300, () =>
    listSessions(db, project.id, { filters: { tools: ['read_file'], attempts: [{ op: '>', value: 2 }] } }),
  );
  await measure('sessions list, free text (trigram, rare)', 300, () => listSessions(db, project.id, { terms: ['sess_4242'] }));
  await measure('sessions list, free text (trigram, in every session)', 300, () => listSessions(db, project.id, { terms: ['required'] }));
  await measure('session page', 50, () => getSessionDetail(db, project.id, `sess_${Math.floor(SESSIONS / 2)}`));
  rows.push(await benchAnalytics(db, project.id, SESSIONS, measure));
} finally {
  await db.$disconnect();
  await database.close();
}

writeFileSync(
  new URL('./results.json', import.meta.url),
  `${JSON.stringify(
    {
      method: `Data-layer queries of each page on a project of ${SESSIONS.toLocaleString('en-US')} sessions (~${Math.round((SESSIONS * 11) / 1000)}k telemetry rows) beside another of the same size, throwaway embedded Postgres; ${RUNS} runs after ${WARMUP} warm-ups.`,
      date: new Date().toISOString(),
      rows,
    },
    null,
    2,
  )}\n`,
);
console.log('wrote bench/results.json');
