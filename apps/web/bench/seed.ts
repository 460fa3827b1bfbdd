import { type PrismaClient, refreshAnalyticsRollup } from '@guardtrace/db';

const CLASSES = [
  'invalid_arguments',
  'transient',
  'unknown_tool',
  'missing_resource',
  'execution_feedback',
  'guard_violation',
  'uncertain_side_effect',
  'budget_exhausted',
];

/**
 * `sessions` sessions over the last ~30 days for one project, in bulk SQL: each with one
 * tool call (one of five tools) of three attempts (the first rejected with feedback, one class
 * of eight; `fatal` is rare; every 50th call runs out of its attempts), one guard check per
 * attempt and two model calls (the second repairs the first attempt), and the analytics rollup.
 */
export async function seedBulk(db: PrismaClient, projectId: string, sessions: number): Promise<void> {
  // 25 s apart: 100k sessions span 29 days, the analytics page's default range.
  const spacing = Math.max(1, Math.floor((29 * 86_400) / sessions));
  const classes = `ARRAY[${CLASSES.map((c) => `'${c}'`).join(',')}]`;
  const cls = `CASE WHEN g % 997 = 0 THEN 'fatal' ELSE (${classes})[1 + g % 8] END`;
  const start = `now() - (g * interval '${spacing} seconds')`;
  const trace = `lpad(to_hex(g), 32, '0')`;
  const p = `'${projectId}'::uuid`;
  await db.$executeRawUnsafe(`
    INSERT INTO sessions (project_id, id, agent_name, service_name, started_at, ended_at, outcome, span_count,
      tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens, output_tokens, repair_tokens)
    SELECT ${p}, 'sess_' || g, (ARRAY['code-agent','support-bot','billing-agent'])[1 + g % 3], 'bench', ${start},
      ${start} + interval '5 seconds',
      CASE WHEN g % 10 = 0 THEN 'failed' WHEN g % 25 = 0 THEN 'escalated' ELSE 'success' END,
      7, 1, 3, 1, 2, 3000, 280, 1300
    FROM generate_series(1, ${sessions}) g`);
  await db.$executeRawUnsafe(`
    INSERT INTO tool_calls (project_id, trace_id, span_id, session_id, tool_name, started_at, duration_ms, outcome,
      failure_class, decision, attempts, arguments)
    SELECT ${p}, ${trace}, lpad(to_hex(g * 8), 16, '0'), 'sess_' || g,
      (ARRAY['read_file','write_file','search','run_tests','fetch_url'])[1 + g % 5], ${start} + interval '1 second', 120,
      'success', ${cls}, 'proceed', 3, '{"path":"src/app.ts"}'
    FROM generate_series(1, ${sessions}) g`);
  await db.$executeRawUnsafe(`
    INSERT INTO attempts (project_id, trace_id, span_id, tool_call_span_id, session_id, tool_name, number, started_at,
      duration_ms, outcome, failure_class, decision, feedback, arguments, budget_exhausted)
    SELECT ${p}, ${trace}, lpad(to_hex(g * 8 + n), 16, '0'), lpad(to_hex(g * 8), 16, '0'), 'sess_' || g,
      (ARRAY['read_file','write_file','search','run_tests','fetch_url'])[1 + g % 5], n,
      ${start} + interval '1 second' + n * interval '40 ms', 30,
      CASE WHEN n = 1 THEN 'rejected' ELSE 'success' END,
      CASE WHEN n = 1 THEN ${cls} END,
      CASE WHEN n = 1 THEN 'reject_with_feedback' ELSE 'proceed' END,
      CASE WHEN n = 1 THEN (ARRAY['path: required (string)', 'path: expected string, got ' || g % 100,
        'unknown field "opt_' || g % 7 || '"'])[1 + g % 3] END,
      '{"path":"src/app.ts"}',
      CASE WHEN n = 3 AND g % 50 = 0 THEN 'attempts_per_call' END
    FROM generate_series(1, ${sessions}) g, generate_series(1, 3) n`);
  await db.$executeRawUnsafe(`
    INSERT INTO guard_checks (project_id, trace_id, span_id, attempt_span_id, session_id, guard_name, stage, verdict,
      reason, started_at, duration_us)
    SELECT ${p}, ${trace}, lpad(to_hex(g * 8 + 4 + n), 16, '0'), lpad(to_hex(g * 8 + n), 16, '0'), 'sess_' || g, 'schema',
      'schema', CASE WHEN n = 1 THEN 'fail' ELSE 'pass' END, CASE WHEN n = 1 THEN 'path: Required' END,
      ${start} + interval '1 second' + n * interval '40 ms', 12
    FROM generate_series(1, ${sessions}) g, generate_series(1, 3) n`);
  await db.$executeRawUnsafe(`
    INSERT INTO model_calls (project_id, trace_id, span_id, session_id, model, provider, started_at, duration_ms,
      input_tokens, output_tokens, repair_attempt_span_id, repair_failure_class)
    SELECT ${p}, ${trace}, 'a' || lpad(to_hex(g * 2), 15, '0'), 'sess_' || g, 'gpt-4.1-mini', 'openai',
      ${start}, 600, 1800, 180, NULL, NULL
    FROM generate_series(1, ${sessions}) g
    UNION ALL
    SELECT ${p}, ${trace}, 'a' || lpad(to_hex(g * 2 + 1), 15, '0'), 'sess_' || g, 'gpt-4.1-mini', 'openai',
      ${start} + interval '1100 ms', 600, 1200, 100, lpad(to_hex(g * 8 + 1), 16, '0'), ${cls}
    FROM generate_series(1, ${sessions}) g`);
  // The analytics rollup, as the collector would have kept it while storing these rows.
  await refreshAnalyticsRollup(db, projectId);
  await db.$executeRawUnsafe('ANALYZE');
}
