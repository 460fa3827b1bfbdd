-- Hand-written (Prisma cannot express functions); schema.prisma is unchanged (prisma/unexpressible.sql
-- holds the same functions).
-- A session whose root span gives no outcome (it has not arrived, or never will: the agent crashed)
-- takes it from its rows: escalated when a tool call ended escalate_human, and now also when one
-- ended fail_reconcile (an uncertain side effect handed to reconciliation), as the SDK itself
-- closes such a session ("escalated", session-book.ts). Before, it read "success" (or "failed")
-- while its replay listed the reconcile escalation. An attempt's fail_reconcile does not count:
-- the runtime sends a call again after a not_committed reconcile, and only the call's last
-- decision says how it ended.
CREATE OR REPLACE FUNCTION guardtrace_session_rows_whole(projects uuid[], ids text[])
RETURNS TABLE (kind text, project_id uuid, id text, start_time timestamptz, end_time_unix_nano bigint,
  service_name text, is_root boolean, status_code int, attributes jsonb, escalated boolean, failed boolean,
  input_tokens int, output_tokens int, repair boolean, own_call boolean)
LANGUAGE sql STABLE SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
WITH t AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
)
SELECT 's', s.project_id, s.session_id, s.start_time, s.end_time_unix_nano, s.service_name, s.parent_span_id IS NULL,
  s.status_code, s.attributes, false, false, 0, 0, false, false
FROM t JOIN spans s ON s.project_id = t.project_id AND s.session_id = t.id
UNION ALL
SELECT 'c', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision IN ('escalate_human', 'fail_reconcile'), false, 0, 0, false, false
FROM t JOIN tool_calls d ON d.project_id = t.project_id AND d.session_id = t.id
UNION ALL
SELECT 'a', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human',
  d.outcome IS DISTINCT FROM 'success', 0, 0, false, d.tool_call_span_id IS NULL
FROM t JOIN attempts d ON d.project_id = t.project_id AND d.session_id = t.id
UNION ALL
SELECT 'm', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, false, false, d.input_tokens, d.output_tokens,
  d.repair_attempt_span_id IS NOT NULL OR d.repair_failure_class IS NOT NULL, false
FROM t JOIN model_calls d ON d.project_id = t.project_id AND d.session_id = t.id
$fn$;

CREATE OR REPLACE FUNCTION guardtrace_session_rows_listed(projects uuid[], ids text[], row_sessions int[],
  row_kinds text[], row_times timestamptz[], row_starts timestamptz[], row_traces text[], row_spans text[])
RETURNS TABLE (kind text, project_id uuid, id text, start_time timestamptz, end_time_unix_nano bigint,
  service_name text, is_root boolean, status_code int, attributes jsonb, escalated boolean, failed boolean,
  input_tokens int, output_tokens int, repair boolean, own_call boolean)
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
WITH r AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id, r.kind, r.start_time, r.trace_start, r.trace_id, r.span_id
  FROM unnest(row_sessions, row_kinds, row_times, row_starts, row_traces, row_spans)
    AS r(n, kind, start_time, trace_start, trace_id, span_id)
  JOIN unnest(projects, ids) WITH ORDINALITY AS t(project_id, id, n) ON t.n = r.n
)
SELECT 's', r.project_id, r.id, s.start_time, s.end_time_unix_nano, s.service_name, s.parent_span_id IS NULL,
  s.status_code, s.attributes, false, false, 0, 0, false, false
FROM r JOIN spans s ON s.project_id = r.project_id AND s.trace_start = r.trace_start AND s.trace_id = r.trace_id
  AND s.span_id = r.span_id AND s.session_id = r.id AND s.start_time = r.start_time
WHERE r.kind = 's'
UNION ALL
SELECT 'c', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision IN ('escalate_human', 'fail_reconcile'), false, 0, 0, false, false
FROM r JOIN tool_calls d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'c'
UNION ALL
SELECT 'a', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human',
  d.outcome IS DISTINCT FROM 'success', 0, 0, false, d.tool_call_span_id IS NULL
FROM r JOIN attempts d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'a'
UNION ALL
SELECT 'm', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, false, false, d.input_tokens, d.output_tokens,
  d.repair_attempt_span_id IS NOT NULL OR d.repair_failure_class IS NOT NULL, false
FROM r JOIN model_calls d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'm'
$fn$;
