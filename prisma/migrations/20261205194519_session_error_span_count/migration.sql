-- Sessions count their spans with status ERROR (error_span_count): with failed attempts, what the
-- explorer's has:errors finds whatever a session's outcome. The totals' functions (also in
-- prisma/unexpressible.sql) return and merge it; guardtrace_session_totals returns one more column,
-- so it is dropped and made anew.
-- AlterTable
ALTER TABLE "sessions" ADD COLUMN     "error_span_count" INTEGER NOT NULL DEFAULT 0;


DROP FUNCTION IF EXISTS guardtrace_session_totals(uuid[], text[], boolean, int[], text[], timestamptz[], timestamptz[], text[], text[]);

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
    -- Users: Guardtrace's own, else OpenTelemetry's user.id, else the Vercel AI SDK's.
    (array_agg(s.attributes->>'guardtrace.user.id' ORDER BY s.start_time, s.attributes->>'guardtrace.user.id')
      FILTER (WHERE s.attributes ? 'guardtrace.user.id'))[1] AS user_gt,
    bool_or(s.attributes ? 'guardtrace.user.id') AS user_gt_any,
    (array_agg(s.attributes->>'user.id' ORDER BY s.start_time, s.attributes->>'user.id') FILTER (WHERE s.attributes ? 'user.id'))[1] AS user_otel,
    bool_or(s.attributes ? 'user.id') AS user_otel_any,
    (array_agg(s.attributes->>'ai.telemetry.metadata.userId' ORDER BY s.start_time, s.attributes->>'ai.telemetry.metadata.userId')
      FILTER (WHERE s.attributes ? 'ai.telemetry.metadata.userId'))[1] AS user_ai,
    bool_or(s.attributes ? 'ai.telemetry.metadata.userId') AS user_ai_any,
    (array_agg(s.attributes->>'guardtrace.session.outcome' ORDER BY s.start_time DESC, s.attributes->>'guardtrace.session.outcome')
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome'))[1] AS outcome_attr,
    max(s.start_time) FILTER (WHERE s.attributes ? 'guardtrace.session.outcome') AS outcome_attr_at,
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
    (count(*) FILTER (WHERE d.kind = 'c'))::int AS tool_call_count,
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
  v.service_at, coalesce(v.user_gt, v.user_otel, v.user_ai) AS user_id,
  v.user_gt_any OR v.user_otel_any OR v.user_ai_any AS user_any,
  CASE WHEN (NOT v.user_gt_any OR v.user_gt IS NOT NULL) AND (NOT v.user_otel_any OR v.user_otel IS NOT NULL)
      AND (NOT v.user_ai_any OR v.user_ai IS NOT NULL)
      AND (NOT v.user_otel_any OR v.user_otel = coalesce(v.user_gt, v.user_otel))
      AND (NOT v.user_ai_any OR v.user_ai = coalesce(v.user_gt, v.user_otel, v.user_ai))
    THEN coalesce(v.user_gt, v.user_otel, v.user_ai) END AS user_one,
  v.outcome_attr, v.outcome_attr_at, v.derived_outcome, coalesce(v.outcome_attr, v.derived_outcome) AS outcome,
  v.tool_call_count, v.attempt_count, v.failed_attempt_count, v.model_call_count, v.input_tokens, v.output_tokens,
  v.repair_tokens, v.escalated, v.root_error, v.failure, v.kept_weight, v.dropped_weight,
  guardtrace_sampling_weight(v.failure, v.kept_weight, v.dropped_weight) AS sampling_weight
FROM v
$fn$;

CREATE OR REPLACE FUNCTION guardtrace_update_sessions(projects uuid[], ids text[], listed boolean[], row_sessions int[],
  row_kinds text[], row_times timestamptz[], row_starts timestamptz[], row_traces text[], row_spans text[]) RETURNS int
LANGUAGE sql SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
WITH t AS MATERIALIZED (
  SELECT t.project_id, t.id, bool_and(t.listed) AS listed
  FROM unnest(projects, ids, listed) AS t(project_id, id, listed)
  GROUP BY t.project_id, t.id
),
-- The listed rows' totals of the listed sessions, with the stored row if there is one.
b AS MATERIALIZED (
  SELECT b.*, x.project_id IS NOT NULL AS stored
  FROM guardtrace_session_totals(projects, ids, false, row_sessions, row_kinds, row_times, row_starts, row_traces,
    row_spans) b
  JOIN t ON t.project_id = b.project_id AND t.id = b.id AND t.listed
  LEFT JOIN sessions x ON x.project_id = b.project_id AND x.id = b.id
),
m AS MATERIALIZED (
  SELECT b.project_id, b.id,
    -- First values by start time: the stored one came from a span at or after started_at.
    CASE WHEN b.agent_at IS NULL THEN x.agent_name
      WHEN x.agent_name IS NULL OR b.agent_at < x.started_at THEN b.agent_name ELSE x.agent_name END AS agent_name,
    CASE WHEN b.service_at IS NULL THEN x.service_name
      WHEN x.service_name IS NULL OR b.service_at < x.started_at THEN b.service_name ELSE x.service_name END AS service_name,
    CASE WHEN b.user_any THEN b.user_one ELSE x.user_id END AS user_id,
    least(x.started_at, b.started_at) AS started_at,
    greatest(x.ended_at, b.ended_at) AS ended_at,
    CASE WHEN b.outcome_attr_at IS NOT NULL THEN b.outcome_attr
      WHEN b.derived_outcome IS NULL THEN x.outcome
      WHEN x.outcome IS NULL THEN b.derived_outcome
      ELSE x.outcome END AS outcome,
    x.span_count + b.span_count AS span_count,
    x.error_span_count + b.error_span_count AS error_span_count,
    x.tool_call_count + b.tool_call_count AS tool_call_count,
    x.attempt_count + b.attempt_count AS attempt_count,
    x.failed_attempt_count + b.failed_attempt_count AS failed_attempt_count,
    x.model_call_count + b.model_call_count AS model_call_count,
    x.input_tokens + b.input_tokens AS input_tokens,
    x.output_tokens + b.output_tokens AS output_tokens,
    x.repair_tokens + b.repair_tokens AS repair_tokens,
    -- The weight rule (guardtrace_sampling_weight): a failure anywhere keeps it at 1.
    CASE WHEN b.failure THEN 1 ELSE x.sampling_weight END AS sampling_weight
  FROM b JOIN sessions x ON x.project_id = b.project_id AND x.id = b.id
  WHERE b.stored
    -- A value present but null (an empty AnyValue) is not merged: the stored row cannot tell it from absent.
    AND NOT (b.agent_at IS NOT NULL AND b.agent_name IS NULL)
    AND NOT (b.outcome_attr_at IS NOT NULL AND b.outcome_attr IS NULL)
    -- Each value is decided by the stored row: the same either way, or the batch's is earlier than every stored span.
    AND (b.agent_at IS NULL OR x.agent_name IS NULL OR x.agent_name = b.agent_name OR b.agent_at < x.started_at)
    AND (b.service_at IS NULL OR x.service_name IS NULL OR x.service_name = b.service_name OR b.service_at < x.started_at)
    -- Users: every user value of the batch is the stored one (or none is stored).
    AND (NOT b.user_any OR (b.user_one IS NOT NULL AND (x.user_id IS NULL OR x.user_id = b.user_one)))
    -- Outcome: the batch's attribute is the stored outcome or later than every stored span; without one, the
    -- stored outcome stays whether it came from an attribute or from the escalated > failed > success rule.
    AND CASE WHEN b.outcome_attr_at IS NOT NULL THEN b.outcome_attr = x.outcome OR b.outcome_attr_at > x.ended_at
      WHEN b.derived_outcome IS NULL OR x.outcome IS NULL OR x.outcome = 'escalated' THEN true
      WHEN x.outcome = 'failed' THEN NOT b.escalated
      WHEN x.outcome = 'success' THEN NOT b.escalated AND NOT b.root_error
      ELSE true END
    -- Weight: a batch failure decides it (1); a batch with no weight leaves the stored one; any
    -- other weight depends on every process's (smallest positive, else 0): recomputed.
    AND (b.failure OR (b.kept_weight IS NULL AND NOT b.dropped_weight))
),
merged AS (
  UPDATE sessions x SET agent_name = m.agent_name, service_name = m.service_name, user_id = m.user_id,
    started_at = m.started_at, ended_at = m.ended_at, outcome = m.outcome, span_count = m.span_count,
    error_span_count = m.error_span_count,
    tool_call_count = m.tool_call_count, attempt_count = m.attempt_count, failed_attempt_count = m.failed_attempt_count,
    model_call_count = m.model_call_count, input_tokens = m.input_tokens, output_tokens = m.output_tokens,
    repair_tokens = m.repair_tokens, sampling_weight = m.sampling_weight, updated_at = now()
  FROM m WHERE x.project_id = m.project_id AND x.id = m.id
  RETURNING 1
),
-- Every other touched session: recomputed from all its stored rows.
w AS MATERIALIZED (
  SELECT t.project_id, t.id FROM t
  WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.project_id = t.project_id AND b.id = t.id AND NOT b.stored)
    AND NOT EXISTS (SELECT 1 FROM m WHERE m.project_id = t.project_id AND m.id = t.id)
),
-- (Not called at all when there is none: most batches of a long session have none.)
whole AS MATERIALIZED (
  SELECT * FROM guardtrace_session_totals((SELECT array_agg(w.project_id) FROM w), (SELECT array_agg(w.id) FROM w), true,
    '{}', '{}', '{}', '{}', '{}', '{}')
  WHERE EXISTS (SELECT 1 FROM w)
),
upserted AS (
  INSERT INTO sessions AS x (project_id, id, agent_name, service_name, user_id, started_at, ended_at, outcome,
    span_count, error_span_count, tool_call_count, attempt_count, failed_attempt_count, model_call_count, input_tokens,
    output_tokens, repair_tokens, sampling_weight, updated_at)
  SELECT v.project_id, v.id, v.agent_name, v.service_name, v.user_id, v.started_at, v.ended_at, v.outcome,
    v.span_count, v.error_span_count, v.tool_call_count, v.attempt_count, v.failed_attempt_count, v.model_call_count, v.input_tokens,
    v.output_tokens, v.repair_tokens, v.sampling_weight, now()
  FROM (
    SELECT b.project_id, b.id, b.agent_name, b.service_name, b.user_id, b.started_at, b.ended_at, b.outcome,
      b.span_count, b.error_span_count, b.tool_call_count, b.attempt_count, b.failed_attempt_count, b.model_call_count, b.input_tokens,
      b.output_tokens, b.repair_tokens, b.sampling_weight
    FROM b WHERE NOT b.stored
    UNION ALL
    SELECT whole.project_id, whole.id, whole.agent_name, whole.service_name, whole.user_id, whole.started_at,
      whole.ended_at, whole.outcome, whole.span_count, whole.error_span_count, whole.tool_call_count, whole.attempt_count,
      whole.failed_attempt_count, whole.model_call_count, whole.input_tokens, whole.output_tokens, whole.repair_tokens,
      whole.sampling_weight
    FROM whole
  ) AS v
  ON CONFLICT (project_id, id) DO UPDATE SET
    agent_name = EXCLUDED.agent_name, service_name = EXCLUDED.service_name, user_id = EXCLUDED.user_id,
    started_at = EXCLUDED.started_at, ended_at = EXCLUDED.ended_at, outcome = EXCLUDED.outcome,
    span_count = EXCLUDED.span_count, error_span_count = EXCLUDED.error_span_count, tool_call_count = EXCLUDED.tool_call_count,
    attempt_count = EXCLUDED.attempt_count, failed_attempt_count = EXCLUDED.failed_attempt_count,
    model_call_count = EXCLUDED.model_call_count, input_tokens = EXCLUDED.input_tokens,
    output_tokens = EXCLUDED.output_tokens, repair_tokens = EXCLUDED.repair_tokens,
    sampling_weight = EXCLUDED.sampling_weight, updated_at = now()
  RETURNING 1
),
deleted AS (
  DELETE FROM sessions x USING w
  WHERE x.project_id = w.project_id AND x.id = w.id
    AND NOT EXISTS (SELECT 1 FROM whole WHERE whole.project_id = w.project_id AND whole.id = w.id)
  RETURNING 1
)
SELECT ((SELECT count(*) FROM merged) + (SELECT count(*) FROM upserted) + (SELECT count(*) FROM deleted))::int
$fn$;

-- Sessions stored before: their error spans counted once (one pass over the spans with an error).
UPDATE sessions s SET error_span_count = e.n
FROM (SELECT project_id, session_id, count(*)::int AS n FROM spans WHERE status_code = 2 GROUP BY project_id, session_id) e
WHERE s.project_id = e.project_id AND s.id = e.session_id;
