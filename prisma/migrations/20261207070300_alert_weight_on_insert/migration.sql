-- Hand-written (Prisma cannot express functions); schema.prisma is unchanged.
-- A session new in a batch gets its alert weight (sessions.alert_weight, the weight its attempts
-- are counted at in alert_minutes) in the INSERT that stores it, instead of an UPDATE of every new
-- session row by guardtrace_update_alert_minutes later in the same transaction (a second version
-- of each new row, with its eight sort indexes: ~8 µs a span of Postgres on the ingest benchmark).
-- Otherwise guardtrace_update_sessions as 20261205194519_session_error_span_count defines it.
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
    output_tokens, repair_tokens, sampling_weight, alert_weight, updated_at)
  SELECT v.project_id, v.id, v.agent_name, v.service_name, v.user_id, v.started_at, v.ended_at, v.outcome,
    v.span_count, v.error_span_count, v.tool_call_count, v.attempt_count, v.failed_attempt_count, v.model_call_count, v.input_tokens,
    v.output_tokens, v.repair_tokens, v.sampling_weight, v.alert_weight, now()
  FROM (
    SELECT b.project_id, b.id, b.agent_name, b.service_name, b.user_id, b.started_at, b.ended_at, b.outcome,
      b.span_count, b.error_span_count, b.tool_call_count, b.attempt_count, b.failed_attempt_count, b.model_call_count, b.input_tokens,
      b.output_tokens, b.repair_tokens, b.sampling_weight,
      -- A session new in this batch has all its attempts new: the alert rollup counts them at this
      -- weight in this transaction (guardtrace_update_alert_minutes), so it is set here, not by an
      -- UPDATE of every new session there.
      CASE WHEN b.attempt_count > 0 THEN b.sampling_weight END AS alert_weight
    FROM b WHERE NOT b.stored
    UNION ALL
    SELECT whole.project_id, whole.id, whole.agent_name, whole.service_name, whole.user_id, whole.started_at,
      whole.ended_at, whole.outcome, whole.span_count, whole.error_span_count, whole.tool_call_count, whole.attempt_count,
      whole.failed_attempt_count, whole.model_call_count, whole.input_tokens, whole.output_tokens, whole.repair_tokens,
      whole.sampling_weight, NULL::float8
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

