-- A tool call the instrumented library refused without a span of its own (the Vercel AI SDK's
-- unknown tool or invalid input: an attempt stored under no tool call, shown by the replay under a
-- stand-in call) counts as a tool call of the session: it was one call of one attempt, so the
-- explorer counted one call too few and a retry that never happened (retry rate = attempts over
-- calls). The rows functions say which attempts stand for their own call (own_call; a new column
-- of their result: dropped and made again, the totals read them by name), and the totals count them.
DROP FUNCTION guardtrace_session_rows_whole(uuid[], text[]);
DROP FUNCTION guardtrace_session_rows_listed(uuid[], text[], int[], text[], timestamptz[], timestamptz[], text[], text[]);

-- Restated from prisma/unexpressible.sql.
CREATE FUNCTION guardtrace_session_rows_whole(projects uuid[], ids text[])
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
SELECT 'c', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human', false, 0, 0, false, false
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

CREATE FUNCTION guardtrace_session_rows_listed(projects uuid[], ids text[], row_sessions int[],
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
SELECT 'c', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human', false, 0, 0, false, false
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

CREATE OR REPLACE FUNCTION guardtrace_session_totals(projects uuid[], ids text[], whole boolean, row_sessions int[],
  row_kinds text[], row_times timestamptz[], row_starts timestamptz[], row_traces text[], row_spans text[])
RETURNS TABLE (project_id uuid, id text, started_at timestamptz, ended_at timestamptz, span_count int,
  error_span_count int, agent_name text, agent_at timestamptz, service_name text, service_at timestamptz, user_id text, user_any boolean,
  user_one text, outcome_attr text, outcome_attr_at timestamptz, derived_outcome text, outcome text,
  tool_call_count int, attempt_count int, failed_attempt_count int, model_call_count int, input_tokens bigint,
  output_tokens bigint, repair_tokens bigint, escalated boolean, root_error boolean, failure boolean,
  kept_weight float8, dropped_weight boolean, sampling_weight float8)
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
WITH x AS MATERIALIZED (
  SELECT * FROM guardtrace_session_rows_whole(projects, ids) WHERE whole
  UNION ALL
  SELECT * FROM guardtrace_session_rows_listed(projects, ids, row_sessions, row_kinds, row_times, row_starts, row_traces,
    row_spans)
  WHERE NOT whole
),
sp AS (
  SELECT s.project_id, s.id,
    min(s.start_time) AS started_at,
    max(timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond') AS ended_at,
    count(*)::int AS span_count,
    (count(*) FILTER (WHERE s.status_code = 2))::int AS error_span_count,
    (array_agg(s.attributes->>'gen_ai.agent.name' ORDER BY s.start_time, s.attributes->>'gen_ai.agent.name')
      FILTER (WHERE s.attributes ? 'gen_ai.agent.name'))[1] AS agent_name,
    min(s.start_time) FILTER (WHERE s.attributes ? 'gen_ai.agent.name') AS agent_at,
    (array_agg(s.service_name ORDER BY s.start_time, s.service_name) FILTER (WHERE s.service_name IS NOT NULL))[1] AS service_name,
    min(s.start_time) FILTER (WHERE s.service_name IS NOT NULL) AS service_at,
    -- Users: Guardtrace's own, else OpenTelemetry's user.id, else the Vercel AI SDK's, else
    -- Traceloop's user_id association property (userId: the AI SDK's, as Traceloop's SDK rewrites it).
    (array_agg(s.attributes->>'guardtrace.user.id' ORDER BY s.start_time, s.attributes->>'guardtrace.user.id')
      FILTER (WHERE s.attributes ? 'guardtrace.user.id'))[1] AS user_gt,
    bool_or(s.attributes ? 'guardtrace.user.id') AS user_gt_any,
    (array_agg(s.attributes->>'user.id' ORDER BY s.start_time, s.attributes->>'user.id') FILTER (WHERE s.attributes ? 'user.id'))[1] AS user_otel,
    bool_or(s.attributes ? 'user.id') AS user_otel_any,
    (array_agg(s.attributes->>'ai.telemetry.metadata.userId' ORDER BY s.start_time, s.attributes->>'ai.telemetry.metadata.userId')
      FILTER (WHERE s.attributes ? 'ai.telemetry.metadata.userId'))[1] AS user_ai,
    bool_or(s.attributes ? 'ai.telemetry.metadata.userId') AS user_ai_any,
    (array_agg(coalesce(s.attributes->>'traceloop.association.properties.user_id', s.attributes->>'traceloop.association.properties.userId') ORDER BY s.start_time, coalesce(s.attributes->>'traceloop.association.properties.user_id', s.attributes->>'traceloop.association.properties.userId'))
      FILTER (WHERE (s.attributes ? 'traceloop.association.properties.user_id' OR s.attributes ? 'traceloop.association.properties.userId')))[1] AS user_tl,
    bool_or(s.attributes ? 'traceloop.association.properties.user_id' OR s.attributes ? 'traceloop.association.properties.userId') AS user_tl_any,
    -- The verdict of the part that ended last (the agent's part ends after the tool services' it
    -- called, a conversation's last turn after the ones before it), by end time as ended_at reads it.
    (array_agg(s.attributes->>'guardtrace.session.outcome'
        ORDER BY timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond' DESC,
          s.attributes->>'guardtrace.session.outcome')
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome'))[1] AS outcome_attr,
    max(timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond')
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome') AS outcome_attr_at,
    min(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN nullif(greatest((s.attributes->>'guardtrace.sampling.weight')::float8, 0), 0) END) AS kept_weight,
    coalesce(bool_or(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN (s.attributes->>'guardtrace.sampling.weight')::float8 <= 0 END), false) AS dropped_weight,
    bool_or(s.is_root AND s.status_code = 2) AS root_error,
    bool_or(s.is_root) AS has_root
  FROM x s
  WHERE s.kind = 's'
  GROUP BY s.project_id, s.id
),
dr AS (
  SELECT d.project_id, d.id,
    -- A refused call's attempt is a call of its own (one attempt, not a retry of another).
    (count(*) FILTER (WHERE d.kind = 'c' OR (d.kind = 'a' AND d.own_call)))::int AS tool_call_count,
    (count(*) FILTER (WHERE d.kind = 'a'))::int AS attempt_count,
    (count(*) FILTER (WHERE d.kind = 'a' AND d.failed))::int AS failed_attempt_count,
    (count(*) FILTER (WHERE d.kind = 'm'))::int AS model_call_count,
    coalesce(sum(d.input_tokens), 0)::bigint AS input_tokens,
    coalesce(sum(d.output_tokens), 0)::bigint AS output_tokens,
    coalesce(sum(d.input_tokens + d.output_tokens) FILTER (WHERE d.repair), 0)::bigint AS repair_tokens,
    coalesce(bool_or(d.escalated), false) AS escalated
  FROM x d
  WHERE d.kind <> 's'
  GROUP BY d.project_id, d.id
),
v AS (
  SELECT sp.*, coalesce(dr.tool_call_count, 0) AS tool_call_count, coalesce(dr.attempt_count, 0) AS attempt_count,
    coalesce(dr.failed_attempt_count, 0) AS failed_attempt_count, coalesce(dr.model_call_count, 0) AS model_call_count,
    coalesce(dr.input_tokens, 0) AS input_tokens, coalesce(dr.output_tokens, 0) AS output_tokens,
    coalesce(dr.repair_tokens, 0) AS repair_tokens, coalesce(dr.escalated, false) AS escalated,
    CASE WHEN coalesce(dr.escalated, false) THEN 'escalated' WHEN sp.root_error THEN 'failed'
      WHEN sp.has_root THEN 'success' END AS derived_outcome,
    coalesce(dr.failed_attempt_count, 0) > 0 OR coalesce(dr.escalated, false) OR sp.root_error AS failure
  FROM sp LEFT JOIN dr ON dr.project_id = sp.project_id AND dr.id = sp.id
)
SELECT v.project_id, v.id, v.started_at, v.ended_at, v.span_count, v.error_span_count, v.agent_name, v.agent_at, v.service_name,
  v.service_at, coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl) AS user_id,
  v.user_gt_any OR v.user_otel_any OR v.user_ai_any OR v.user_tl_any AS user_any,
  CASE WHEN (NOT v.user_gt_any OR v.user_gt IS NOT NULL) AND (NOT v.user_otel_any OR v.user_otel IS NOT NULL)
      AND (NOT v.user_ai_any OR v.user_ai IS NOT NULL) AND (NOT v.user_tl_any OR v.user_tl IS NOT NULL)
      AND (NOT v.user_otel_any OR v.user_otel = coalesce(v.user_gt, v.user_otel))
      AND (NOT v.user_ai_any OR v.user_ai = coalesce(v.user_gt, v.user_otel, v.user_ai))
      AND (NOT v.user_tl_any OR v.user_tl = coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl))
    THEN coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl) END AS user_one,
  v.outcome_attr, v.outcome_attr_at, v.derived_outcome, coalesce(v.outcome_attr, v.derived_outcome) AS outcome,
  v.tool_call_count, v.attempt_count, v.failed_attempt_count, v.model_call_count, v.input_tokens, v.output_tokens,
  v.repair_tokens, v.escalated, v.root_error, v.failure, v.kept_weight, v.dropped_weight,
  guardtrace_sampling_weight(v.failure, v.kept_weight, v.dropped_weight) AS sampling_weight
FROM v
$fn$;

-- Sessions stored before with such an attempt: recounted.
SELECT guardtrace_refresh_sessions(array_agg(v.project_id), array_agg(v.session_id))
FROM (SELECT DISTINCT project_id, session_id FROM attempts WHERE tool_call_span_id IS NULL) AS v;
