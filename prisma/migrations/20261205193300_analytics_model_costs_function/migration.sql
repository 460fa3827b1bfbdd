-- Hand-written (Prisma cannot express functions); schema.prisma is unchanged.
-- The per-model rollup of repair turns (issue 24, cost in dollars): analytics_model_daily has the
-- tokens of the model turns that repaired failed attempts per project, UTC day, tool, failure
-- class and model, scaled by sampling weight; the web prices them when it reads them. Like
-- analytics_daily it is the sum of per-session parts (analytics_model_session_parts), but a touched
-- session's part is recomputed whole from its stored rows (its repair turns are few: a 5,000-span
-- session has a few hundred), so re-sent spans, late attempts, re-keyed sessions and a changed
-- sampling weight all come out right without tracking which rows a batch changed.

-- The repair turns of each session (`projects[i]`, `ids[i]`) recounted: each session's old part is
-- subtracted from analytics_model_daily and deleted, then its new part (none for a session with no
-- repair turns left, or deleted) inserted and added. A turn counts on the day of the attempt it
-- repairs (else its own), under that attempt's tool (else its tool call's) and failure class
-- (else the class the turn names), as guardtrace_update_analytics counts its failed_tokens. Run
-- after the session totals (it reads their sampling weight), under the sessions' locks. Returns
-- the number of parts written.
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
ON CONFLICT (project_id, day, tool_name, failure_class, model) DO UPDATE SET
  input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
  cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens;

WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
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
  LEFT JOIN LATERAL (
    SELECT x.trace_id, x.tool_call_span_id, x.tool_name, x.failure_class, x.started_at FROM attempts x
    WHERE m.repair_attempt_span_id IS NOT NULL AND x.span_id = m.repair_attempt_span_id
      AND x.session_id = m.session_id AND x.project_id = m.project_id
    ORDER BY x.trace_id
    LIMIT 1
  ) a ON true
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
  ON CONFLICT (project_id, day, tool_name, failure_class, model) DO UPDATE SET
    input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
    cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens
  RETURNING 1
)
SELECT (SELECT count(*) FROM ins)::int
$fn$;
