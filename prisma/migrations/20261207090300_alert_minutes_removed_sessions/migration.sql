-- Hand-written (Prisma cannot express functions); schema.prisma is unchanged.
-- The share of the alerts' rollup (alert_minutes) that these sessions' stored rows hold, taken
-- out, with their rows still stored: each attempt at the weight its session's attempts are counted
-- at (sessions.alert_weight), each rejection counted unfixed at its minute (attempts.alert_unfixed_at),
-- each repair turn under the tool and class of the attempt it answers, as
-- guardtrace_update_alert_minutes counted them. A rollup row whose example session
-- (worst_session_id) is one of them loses the example; a row left with no count is deleted. Called
-- by whatever deletes sessions (the sampling sweep, retention) in the transaction that does it:
-- before, alert_minutes kept counting what no longer was. Returns the number of rollup rows changed.
CREATE FUNCTION guardtrace_alert_minutes_remove(projects uuid[], ids text[]) RETURNS int
LANGUAGE plpgsql SET enable_seqscan = off AS $fn$
DECLARE
  n int;
  z_projects uuid[];
  z_minutes timestamptz[];
  z_tools text[];
  z_classes text[];
  z_models text[];
BEGIN
WITH t AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id,
    coalesce((SELECT coalesce(s.alert_weight, s.sampling_weight) FROM sessions s WHERE s.project_id = t.project_id AND s.id = t.id), 1)::float8 AS weight
  FROM unnest(projects, ids) AS t(project_id, id)
),
att AS MATERIALIZED (
  SELECT x.project_id, date_trunc('minute', x.started_at) AS minute, x.alert_unfixed_at,
    coalesce(x.tool_name, (SELECT c.tool_name FROM tool_calls c
      WHERE c.span_id = x.tool_call_span_id AND c.trace_id = x.trace_id AND c.project_id = x.project_id LIMIT 1), '') AS tool_name,
    coalesce(x.failure_class, '') AS failure_class,
    (x.outcome IS DISTINCT FROM 'success') AS failed, x.decision, x.budget_exhausted, t.weight
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id
),
parts AS (
  SELECT project_id, minute, tool_name, failure_class, '' AS model,
    1 AS attempts, weight AS weighted_attempts, failed::int AS failed_attempts,
    coalesce(failed AND decision IN ('escalate_human', 'fail_reconcile', 'abort'), false)::int AS escalations,
    (budget_exhausted IS NOT NULL)::int AS exhausted,
    0 AS rejections_unfixed, 0::float8 AS input_tokens, 0::float8 AS output_tokens, 0::float8 AS cached_input_tokens
  FROM att
  UNION ALL
  SELECT project_id, date_trunc('minute', alert_unfixed_at), tool_name, failure_class, '', 0, 0, 0, 0, 0, 1, 0, 0, 0
  FROM att WHERE alert_unfixed_at IS NOT NULL
  UNION ALL
  SELECT m.project_id, date_trunc('minute', m.started_at), coalesce(r.tool_name, ''), coalesce(r.failure_class, m.repair_failure_class, ''),
    coalesce(m.model, ''), 0, 0, 0, 0, 0, 0, m.input_tokens, m.output_tokens, m.cached_input_tokens
  FROM t JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id
  LEFT JOIN LATERAL (
    SELECT coalesce(a.tool_name, (SELECT c.tool_name FROM tool_calls c
        WHERE c.span_id = a.tool_call_span_id AND c.trace_id = a.trace_id AND c.project_id = a.project_id LIMIT 1)) AS tool_name,
      a.failure_class
    FROM attempts a
    WHERE a.span_id = m.repair_attempt_span_id AND a.project_id = m.project_id LIMIT 1
  ) r ON true
  WHERE m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL
),
d AS (
  SELECT project_id, minute, tool_name, failure_class, model,
    sum(attempts)::int AS attempts, sum(weighted_attempts) AS weighted_attempts, sum(failed_attempts)::int AS failed_attempts,
    sum(escalations)::int AS escalations, sum(exhausted)::int AS exhausted, sum(rejections_unfixed)::int AS rejections_unfixed,
    sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cached_input_tokens) AS cached_input_tokens
  FROM parts GROUP BY project_id, minute, tool_name, failure_class, model
),
-- The rows, locked in the order every writer's upsert locks them (a key already pruned is left alone).
l AS (
  SELECT d.* FROM d JOIN alert_minutes a USING (project_id, minute, tool_name, failure_class, model)
  ORDER BY d.project_id, d.minute, d.tool_name, d.failure_class, d.model
  FOR UPDATE OF a
),
upd AS (
  UPDATE alert_minutes a SET
    attempts = a.attempts - l.attempts,
    weighted_attempts = a.weighted_attempts - l.weighted_attempts,
    failed_attempts = a.failed_attempts - l.failed_attempts,
    escalations = a.escalations - l.escalations,
    exhausted = a.exhausted - l.exhausted,
    rejections_unfixed = a.rejections_unfixed - l.rejections_unfixed,
    repair_input_tokens = a.repair_input_tokens - l.input_tokens,
    repair_output_tokens = a.repair_output_tokens - l.output_tokens,
    repair_cached_input_tokens = a.repair_cached_input_tokens - l.cached_input_tokens,
    worst_session_id = CASE WHEN EXISTS (SELECT 1 FROM t WHERE t.project_id = a.project_id AND t.id = a.worst_session_id)
      THEN NULL ELSE a.worst_session_id END,
    worst_failures = CASE WHEN EXISTS (SELECT 1 FROM t WHERE t.project_id = a.project_id AND t.id = a.worst_session_id)
      THEN 0 ELSE a.worst_failures END
  FROM l
  WHERE a.project_id = l.project_id AND a.minute = l.minute AND a.tool_name = l.tool_name AND a.failure_class = l.failure_class
    AND a.model = l.model
  RETURNING a.project_id, a.minute, a.tool_name, a.failure_class, a.model,
    a.attempts = 0 AND abs(a.weighted_attempts) < 1e-9 AND a.failed_attempts = 0 AND a.escalations = 0 AND a.exhausted = 0
      AND a.rejections_unfixed = 0 AND a.repair_input_tokens = 0 AND a.repair_output_tokens = 0 AND a.repair_cached_input_tokens = 0 AS zero
)
SELECT count(*)::int, array_agg(project_id) FILTER (WHERE zero), array_agg(minute) FILTER (WHERE zero),
  array_agg(tool_name) FILTER (WHERE zero), array_agg(failure_class) FILTER (WHERE zero), array_agg(model) FILTER (WHERE zero)
INTO n, z_projects, z_minutes, z_tools, z_classes, z_models
FROM upd;
-- Rows left with no count hold nothing a rebuild from the stored rows would have.
IF z_projects IS NOT NULL THEN
  DELETE FROM alert_minutes a USING unnest(z_projects, z_minutes, z_tools, z_classes, z_models) AS z(project_id, minute, tool_name, failure_class, model)
  WHERE a.project_id = z.project_id AND a.minute = z.minute AND a.tool_name = z.tool_name AND a.failure_class = z.failure_class
    AND a.model = z.model;
END IF;
RETURN n;
END
$fn$;
