-- Hand-written (Prisma cannot express functions); schema.prisma's comments say the same.
-- The per-model rollups (analytics_model_session_parts / _spend, analytics_model_daily /
-- _spend_daily) exist only to price tokens: the web prices their sums with costOf (packages/db
-- prices.ts), whose rule reads a call's cached input above its input as reported beside it,
-- leaving no uncached input. Summed per model before pricing, one call's surplus cached tokens
-- cancelled other calls' uncached input (a probe: two claude-sonnet-4-5 calls, 100 in + 1,000
-- cached and 5,000 in, priced $0.014 for the $0.017 of each call priced alone). Their input is now
-- summed per call as the larger of its input and its cached input, which prices every sum as the
-- sum of its calls priced alone (costOf of max(input, cached) and cached leaves the same uncached
-- input as costOf of the call). guardtrace_update_model_costs of migration
-- model_costs_one_upsert_per_table otherwise unchanged; the sessions with such a call are
-- recomputed at once (each session's shares are replaced whole, the daily rows by the difference).
CREATE OR REPLACE FUNCTION guardtrace_update_model_costs(projects uuid[], ids text[]) RETURNS int
LANGUAGE sql AS $fn$
WITH t AS MATERIALIZED (
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
-- Each session's repair turns per day (of the attempt they repair), tool, class and model: its share now.
parts AS MATERIALIZED (
  SELECT m.project_id, m.session_id, (coalesce(a.started_at, m.started_at) AT TIME ZONE 'UTC')::date AS day,
    coalesce(a.tool_name, c.tool_name, '') AS tool_name,
    coalesce(nullif(a.failure_class, ''), m.repair_failure_class, '') AS failure_class,
    coalesce(m.model, '') AS model,
    sum(greatest(m.input_tokens, m.cached_input_tokens) * s.sampling_weight)::float8 AS input_tokens,
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
-- The shares stored for them until now, out...
old AS (
  DELETE FROM analytics_model_session_parts p USING t
  WHERE p.project_id = t.project_id AND p.session_id = t.id
  RETURNING p.project_id, p.day, p.tool_name, p.failure_class, p.model, p.input_tokens, p.output_tokens, p.cached_input_tokens
),
-- ...and the new ones in, once the old ones are gone (the count reads all of old first).
put AS (
  INSERT INTO analytics_model_session_parts (project_id, session_id, day, tool_name, failure_class, model, input_tokens,
    output_tokens, cached_input_tokens)
  SELECT n.* FROM parts n WHERE (SELECT count(*) FROM old) >= 0
  RETURNING 1
),
-- analytics_model_daily: each key's net change, one upsert, in key order.
daily AS (
  INSERT INTO analytics_model_daily AS r (project_id, day, tool_name, failure_class, model, input_tokens, output_tokens,
    cached_input_tokens)
  SELECT project_id, day, tool_name, failure_class, model, sum(input_tokens), sum(output_tokens), sum(cached_input_tokens)
  FROM (
    SELECT project_id, day, tool_name, failure_class, model, -input_tokens AS input_tokens, -output_tokens AS output_tokens,
      -cached_input_tokens AS cached_input_tokens
    FROM old
    UNION ALL
    SELECT project_id, day, tool_name, failure_class, model, input_tokens, output_tokens, cached_input_tokens FROM parts
  ) d
  GROUP BY 1, 2, 3, 4, 5
  HAVING sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(cached_input_tokens) <> 0
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (project_id, day, tool_name, failure_class, model) DO UPDATE SET
    input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
    cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens
  RETURNING 1
)
SELECT (SELECT count(*) FROM put)::int;

-- Every model call of the sessions, on the day its session started, likewise into
-- analytics_model_spend_daily (after analytics_model_daily, in every transaction).
WITH t AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
spend AS MATERIALIZED (
  SELECT m.project_id, m.session_id, (s.started_at AT TIME ZONE 'UTC')::date AS day, coalesce(m.model, '') AS model,
    sum(greatest(m.input_tokens, m.cached_input_tokens) * s.sampling_weight)::float8 AS input_tokens,
    sum(m.output_tokens * s.sampling_weight)::float8 AS output_tokens,
    sum(m.cached_input_tokens * s.sampling_weight)::float8 AS cached_input_tokens
  FROM t
  JOIN sessions s ON s.project_id = t.project_id AND s.id = t.id
  JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id
  GROUP BY 1, 2, 3, 4
),
old AS (
  DELETE FROM analytics_model_session_spend p USING t
  WHERE p.project_id = t.project_id AND p.session_id = t.id
  RETURNING p.project_id, p.day, p.model, p.input_tokens, p.output_tokens, p.cached_input_tokens
),
put AS (
  INSERT INTO analytics_model_session_spend (project_id, session_id, day, model, input_tokens, output_tokens, cached_input_tokens)
  SELECT n.* FROM spend n WHERE (SELECT count(*) FROM old) >= 0
  RETURNING 1
),
daily AS (
  INSERT INTO analytics_model_spend_daily AS r (project_id, day, model, input_tokens, output_tokens, cached_input_tokens)
  SELECT project_id, day, model, sum(input_tokens), sum(output_tokens), sum(cached_input_tokens)
  FROM (
    SELECT project_id, day, model, -input_tokens AS input_tokens, -output_tokens AS output_tokens, -cached_input_tokens AS cached_input_tokens
    FROM old
    UNION ALL
    SELECT project_id, day, model, input_tokens, output_tokens, cached_input_tokens FROM spend
  ) d
  GROUP BY 1, 2, 3
  HAVING sum(input_tokens) <> 0 OR sum(output_tokens) <> 0 OR sum(cached_input_tokens) <> 0
  ORDER BY 1, 2, 3
  ON CONFLICT (project_id, day, model) DO UPDATE SET
    input_tokens = r.input_tokens + EXCLUDED.input_tokens, output_tokens = r.output_tokens + EXCLUDED.output_tokens,
    cached_input_tokens = r.cached_input_tokens + EXCLUDED.cached_input_tokens
  RETURNING 1
)
SELECT (SELECT count(*) FROM put)::int;
$fn$;

SELECT guardtrace_update_model_costs(array_agg(project_id), array_agg(session_id))
FROM (SELECT DISTINCT project_id, session_id FROM model_calls WHERE cached_input_tokens > input_tokens) s;
