-- The per-model cost rollups' upserts take their rows' locks in key order (ORDER BY the conflict key),
-- so two write transactions that touch the same days and models of a project wait for each other
-- instead of deadlocking (seen once under concurrent batches: 40P01, answered 503 and retried).
-- Otherwise guardtrace_update_model_costs as 20261206030000_ingest_lookups_by_session defines it.

CREATE OR REPLACE FUNCTION guardtrace_update_model_costs(projects uuid[], ids text[]) RETURNS int
LANGUAGE sql AS $fn$
WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
old AS (
  DELETE FROM analytics_model_session_parts p USING t
  WHERE p.project_id = t.project_id AND p.session_id = t.id
  RETURNING p.project_id, p.day, p.tool_name, p.failure_class, p.model, p.input_tokens, p.output_tokens, p.cached_input_tokens
)
INSERT INTO analytics_model_daily AS r (project_id, day, tool_name, failure_class, model, input_tokens, output_tokens,
  cached_input_tokens)
SELECT project_id, day, tool_name, failure_class, model, -sum(input_tokens), -sum(output_tokens), -sum(cached_input_tokens)
FROM old
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5
ON CONFLICT (project_id, day, tool_name, failure_class, model) DO UPDATE SET
  input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
  cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens;

-- Every model call of the session, on the day its session started: the old share out...
WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
old AS (
  DELETE FROM analytics_model_session_spend p USING t
  WHERE p.project_id = t.project_id AND p.session_id = t.id
  RETURNING p.project_id, p.day, p.model, p.input_tokens, p.output_tokens, p.cached_input_tokens
)
INSERT INTO analytics_model_spend_daily AS r (project_id, day, model, input_tokens, output_tokens, cached_input_tokens)
SELECT project_id, day, model, -sum(input_tokens), -sum(output_tokens), -sum(cached_input_tokens)
FROM old
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
ON CONFLICT (project_id, day, model) DO UPDATE SET
  input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
  cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens;

-- ...and the new one in.
WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
spend AS MATERIALIZED (
  SELECT m.project_id, m.session_id, (s.started_at AT TIME ZONE 'UTC')::date AS day, coalesce(m.model, '') AS model,
    sum(m.input_tokens * s.sampling_weight)::float8 AS input_tokens,
    sum(m.output_tokens * s.sampling_weight)::float8 AS output_tokens,
    sum(m.cached_input_tokens * s.sampling_weight)::float8 AS cached_input_tokens
  FROM t
  JOIN sessions s ON s.project_id = t.project_id AND s.id = t.id
  JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id
  GROUP BY 1, 2, 3, 4
),
ins AS (
  INSERT INTO analytics_model_session_spend (project_id, session_id, day, model, input_tokens, output_tokens, cached_input_tokens)
  SELECT * FROM spend
  RETURNING 1
)
INSERT INTO analytics_model_spend_daily AS r (project_id, day, model, input_tokens, output_tokens, cached_input_tokens)
SELECT project_id, day, model, sum(input_tokens), sum(output_tokens), sum(cached_input_tokens)
FROM spend
GROUP BY 1, 2, 3
ORDER BY 1, 2, 3
ON CONFLICT (project_id, day, model) DO UPDATE SET
  input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
  cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens;

WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
-- The attempts of the touched sessions, read once through the session index (one per span id,
-- the first by trace id): a lookup per repair turn read every attempt of the session again.
-- Only sessions with a repair turn naming an attempt: the others need none of them.
att AS MATERIALIZED (
  SELECT DISTINCT ON (x.project_id, x.session_id, x.span_id) x.project_id, x.session_id, x.span_id, x.trace_id,
    x.tool_call_span_id, x.tool_name, x.failure_class, x.started_at
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id
  WHERE EXISTS (SELECT 1 FROM model_calls m WHERE m.project_id = t.project_id AND m.session_id = t.id
    AND m.repair_attempt_span_id IS NOT NULL)
  ORDER BY x.project_id, x.session_id, x.span_id, x.trace_id
),
parts AS MATERIALIZED (
  SELECT m.project_id, m.session_id, (coalesce(a.started_at, m.started_at) AT TIME ZONE 'UTC')::date AS day,
    coalesce(a.tool_name, c.tool_name, '') AS tool_name,
    coalesce(nullif(a.failure_class, ''), m.repair_failure_class, '') AS failure_class,
    coalesce(m.model, '') AS model,
    sum(m.input_tokens * s.sampling_weight)::float8 AS input_tokens,
    sum(m.output_tokens * s.sampling_weight)::float8 AS output_tokens,
    sum(m.cached_input_tokens * s.sampling_weight)::float8 AS cached_input_tokens
  FROM t
  JOIN sessions s ON s.project_id = t.project_id AND s.id = t.id
  JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id
  -- The attempt it repairs (one, should a span id repeat in the session), and its tool call's tool.
  LEFT JOIN att a ON a.project_id = m.project_id AND a.session_id = m.session_id AND a.span_id = m.repair_attempt_span_id
  LEFT JOIN LATERAL (
    SELECT d.tool_name FROM tool_calls d
    WHERE a.tool_name IS NULL AND d.span_id = a.tool_call_span_id AND d.trace_id = a.trace_id AND d.project_id = m.project_id
    LIMIT 1
  ) c ON true
  WHERE m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5, 6
),
ins AS (
  INSERT INTO analytics_model_session_parts (project_id, session_id, day, tool_name, failure_class, model, input_tokens,
    output_tokens, cached_input_tokens)
  SELECT * FROM parts
  RETURNING 1
),
added AS (
  INSERT INTO analytics_model_daily AS r (project_id, day, tool_name, failure_class, model, input_tokens, output_tokens,
    cached_input_tokens)
  SELECT project_id, day, tool_name, failure_class, model, sum(input_tokens), sum(output_tokens), sum(cached_input_tokens)
  FROM parts
  GROUP BY 1, 2, 3, 4, 5
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (project_id, day, tool_name, failure_class, model) DO UPDATE SET
    input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
    cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens
  RETURNING 1
)
SELECT (SELECT count(*) FROM ins)::int
$fn$;
