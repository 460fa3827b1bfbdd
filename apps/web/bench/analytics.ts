/**
 * The analytics page's queries at scale, for `bench/run.ts`: every panel over the daily rollup
 * (each, and the whole page as it runs them, in parallel), the same main panel computed from
 * the derived rows through time indexes (the alternative to a rollup, measured in the same run),
 * and what keeping the rollup adds to a write transaction of 100 sessions.
 */
import type { PrismaClient } from '@guardtrace/db';
import {
  getClassShares,
  getRejectionEffectiveness,
  getRepairTokensByDay,
  getRetryExhaustion,
  getSessionCosts,
  getToolClassCosts,
  lastDays,
} from '../src/server/queries/analytics.ts';

type Measure = (benchmark: string, targetMs: number, fn: () => Promise<unknown>) => Promise<{ p50: number; p95: number }>;

// The analytics page's target: its server time at 100k sessions (issue 12).
const PAGE_TARGET_MS = 300;
// A collector batch holds ~100 sessions' spans at the flood benchmark's request sizes.
const BATCH_SESSIONS = 100;

/** Tool × class by tokens spent on failed attempts, straight from the derived rows. */
async function toolClassFromDerived(db: PrismaClient, projectId: string, since: string) {
  return db.$queryRaw`
    SELECT coalesce(a.tool_name, c.tool_name, '') AS tool, a.failure_class AS cls,
      coalesce(sum((m.input_tokens + m.output_tokens) * s.sampling_weight), 0)::float8 AS tokens,
      count(DISTINCT a.span_id)::int AS failed, count(DISTINCT a.session_id)::int AS sessions
    FROM attempts a
    LEFT JOIN tool_calls c ON c.project_id = a.project_id AND c.trace_id = a.trace_id AND c.span_id = a.tool_call_span_id
    LEFT JOIN model_calls m ON m.project_id = a.project_id AND m.session_id = a.session_id AND m.repair_attempt_span_id = a.span_id
    LEFT JOIN sessions s ON s.project_id = a.project_id AND s.id = a.session_id
    WHERE a.project_id = ${projectId}::uuid AND a.started_at >= ${since}::date AND a.failure_class IS NOT NULL
    GROUP BY 1, 2 ORDER BY 3 DESC, 4 DESC LIMIT 25`;
}

interface Row {
  benchmark: string;
  metric: string;
  value: string;
  target: string;
  pass: boolean;
}

/** Measures the analytics queries; returns the side-by-side ratio (derived rows / rollup) as a row. */
export async function benchAnalytics(db: PrismaClient, projectId: string, sessions: number, measure: Measure): Promise<Row> {
  const w = lastDays(30);
  await measure('analytics: tool × class by failed tokens (30 d)', 100, () => getToolClassCosts(db, projectId, w));
  await measure('analytics: retry exhaustion by tool (30 d)', 100, () => getRetryExhaustion(db, projectId, w));
  await measure('analytics: rejection effectiveness (30 d)', 100, () => getRejectionEffectiveness(db, projectId, w));
  await measure('analytics: token share per class (30 d)', 100, () => getClassShares(db, projectId, w));
  await measure('analytics: repair tokens per day (30 d)', 100, () => getRepairTokensByDay(db, projectId, w));
  await measure('analytics: session costs and histogram (30 d)', 200, () => getSessionCosts(db, projectId, w));
  const page = await measure('analytics page: every panel, in parallel (30 d)', PAGE_TARGET_MS, () =>
    Promise.all([
      getSessionCosts(db, projectId, w),
      getToolClassCosts(db, projectId, w),
      getClassShares(db, projectId, w),
      getRejectionEffectiveness(db, projectId, w),
      getRetryExhaustion(db, projectId, w),
      getRepairTokensByDay(db, projectId, w),
    ]),
  );
  await measure('analytics page: every panel (90 d)', PAGE_TARGET_MS, () => {
    const q = lastDays(90);
    return Promise.all([
      getSessionCosts(db, projectId, q),
      getToolClassCosts(db, projectId, q),
      getClassShares(db, projectId, q),
      getRejectionEffectiveness(db, projectId, q),
      getRetryExhaustion(db, projectId, q),
      getRepairTokensByDay(db, projectId, q),
    ]);
  });
  // The alternative: no rollup, the derived rows behind time indexes (made here, after every
  // other page's measurement, so they do not change those).
  await db.$executeRawUnsafe('CREATE INDEX IF NOT EXISTS bench_attempts_time ON attempts (project_id, started_at)');
  await db.$executeRawUnsafe('CREATE INDEX IF NOT EXISTS bench_model_calls_repair ON model_calls (project_id, session_id, repair_attempt_span_id)');
  await db.$executeRawUnsafe('ANALYZE attempts, model_calls');
  const derived = await measure('analytics: tool × class from derived rows + time index (30 d)', PAGE_TARGET_MS, () =>
    toolClassFromDerived(db, projectId, w.from),
  );
  const single = await measure('analytics: tool × class from the rollup, same run', 100, () => getToolClassCosts(db, projectId, w));
  const ratio = derived.p50 / single.p50;
  console.log(`derived rows / rollup, tool × class panel: ${ratio.toFixed(0)}× at p50; page p95 ${page.p95.toFixed(1)} ms`);
  // What the collector's transaction pays: the rollup of 100 stored sessions replaced.
  let next = 0;
  await measure(`rollup refresh of ${BATCH_SESSIONS} sessions (write transaction)`, 50, async () => {
    const ids = Array.from({ length: BATCH_SESSIONS }, () => `sess_${1 + (next++ % sessions)}`);
    await db.$queryRaw`SELECT guardtrace_refresh_analytics(
      array_fill(${projectId}::uuid, ARRAY[${ids.length}::int]), ${ids}::text[])::text AS done`;
  });
  return {
    benchmark: 'analytics: tool × class, derived rows + time index ÷ rollup (same run)',
    metric: 'p50 ratio',
    value: `${ratio.toFixed(1)}×`,
    target: 'rollup chosen if > 1×',
    pass: ratio > 1,
  };
}
