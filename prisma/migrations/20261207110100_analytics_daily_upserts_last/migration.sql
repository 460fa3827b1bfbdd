-- The shared daily rows of the analytics rollup (analytics_daily, analytics_cost_daily: one row per
-- project, day, tool, class and template, or day and bucket, that every batch of the day adds to)
-- were upserted in the middle of the write transaction, so their row locks were held through the
-- correction links, the model costs and the alerts' rollup until COMMIT, and a second write
-- transaction of the same project waited for all of that (half of guardtrace_update_analytics'
-- time under the ingest benchmark's two lanes; apps/collector/bench/notes.md). Now
-- guardtrace_update_analytics keeps its change of those rows for the end of the transaction (a
-- transaction-local setting, guardtrace.analytics_pending), and guardtrace_apply_analytics_pending,
-- the writer's last step before COMMIT, adds it: the locks are held for that step and the COMMIT only.
-- The same per-session parts and cost rows as before, in the same statement; the same figures.
CREATE OR REPLACE FUNCTION guardtrace_update_analytics(projects uuid[], ids text[], listed boolean[],
  row_kinds text[], row_projects uuid[], row_traces text[], row_spans text[]) RETURNS void
LANGUAGE sql SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
WITH nr AS (
  SELECT DISTINCT r.kind, r.project_id::text AS project, r.trace_id, r.span_id
  FROM unnest(row_kinds, row_projects, row_traces, row_spans) AS r(kind, project_id, trace_id, span_id)
),
t AS (
  SELECT t.project_id, t.id,
    bool_and(t.listed AND c.session_id IS NOT NULL AND s.id IS NOT NULL AND c.weight = s.sampling_weight) AS incremental,
    coalesce(max(s.sampling_weight), 1) AS weight,
    -- A session with no cost row has no parts either (both are written for every session with a
    -- row by this function, and removed together by retention): nothing stored to take out.
    bool_or(c.session_id IS NOT NULL) AS costed
  FROM unnest(projects, ids, listed) AS t(project_id, id, listed)
  -- One primary-key lookup each (LIMIT 1 keeps them from being joined whole).
  LEFT JOIN LATERAL (
    SELECT c.session_id, c.weight FROM analytics_session_costs c WHERE c.project_id = t.project_id AND c.session_id = t.id LIMIT 1
  ) c ON true
  LEFT JOIN LATERAL (
    SELECT s.id, s.sampling_weight FROM sessions s WHERE s.project_id = t.project_id AND s.id = t.id LIMIT 1
  ) s ON true
  GROUP BY t.project_id, t.id
),
-- The batch's new attempts, tool calls and repair turns.
na AS MATERIALIZED (
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.tool_name,
    x.failure_class, x.feedback, x.outcome, x.decision, x.budget_exhausted, x.fixed
  FROM nr JOIN attempts x ON x.span_id = nr.span_id AND x.trace_id = nr.trace_id AND x.project_id::text = nr.project
  WHERE nr.kind = 'a'
),
nc AS MATERIALIZED (
  SELECT c.project_id, c.span_id, c.session_id
  FROM nr JOIN tool_calls c ON c.span_id = nr.span_id AND c.trace_id = nr.trace_id AND c.project_id::text = nr.project
  WHERE nr.kind = 'c'
),
nm AS MATERIALIZED (
  SELECT m.project_id, m.trace_id, m.span_id, m.session_id, m.started_at, m.input_tokens, m.output_tokens,
    m.repair_attempt_span_id, m.repair_failure_class
  FROM nr JOIN model_calls m ON m.span_id = nr.span_id AND m.trace_id = nr.trace_id AND m.project_id::text = nr.project
    AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)
  WHERE nr.kind = 'm'
),
-- The attempts to count: all of a whole session's; a listed session's new and affected ones.
aff_a AS (
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.tool_name,
    x.failure_class, x.feedback, x.outcome, x.decision, x.budget_exhausted, x.fixed, false AS incremental, t.weight
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id
  WHERE NOT t.incremental
  UNION
  SELECT x.*, true, t.weight FROM na x JOIN t ON t.project_id = x.project_id AND t.id = x.session_id AND t.incremental
  UNION
  -- The attempts of a new tool call (they take its tool name).
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.tool_name,
    x.failure_class, x.feedback, x.outcome, x.decision, x.budget_exhausted, x.fixed, true, t.weight
  FROM nc c JOIN t ON t.project_id = c.project_id AND t.id = c.session_id AND t.incremental
  JOIN attempts x ON x.tool_call_span_id = c.span_id AND x.session_id = c.session_id AND x.project_id::text = c.project_id::text
),
-- Each in the states it is counted in: now (+1), and before the batch (-1) when it was stored then.
a_st AS (
  SELECT f.*, g.sign
  FROM aff_a f CROSS JOIN (VALUES (1), (-1)) AS g(sign)
  WHERE g.sign = 1 OR (f.incremental AND NOT EXISTS (
    SELECT 1 FROM nr WHERE nr.kind = 'a' AND nr.span_id = f.span_id AND nr.trace_id = f.trace_id AND nr.project = f.project_id::text))
),
a_rows AS (
  SELECT a.project_id, a.session_id, a.sign, (a.started_at AT TIME ZONE 'UTC')::date AS day,
    coalesce(a.tool_name, tc.tool_name, '') AS tool_name,
    coalesce(a.failure_class, '') AS failure_class,
    guardtrace_feedback_template(a.feedback) AS feedback_template,
    (a.outcome IS DISTINCT FROM 'success')::int AS failed_attempts,
    -- A rejection: a failed attempt whose feedback went back to the model (guardtrace_link_corrections).
    coalesce(a.decision IN ('reject_with_feedback', 'replan') OR (a.decision IS NULL AND a.outcome IS DISTINCT FROM 'success'), false)::int AS rejections,
    -- Fixed by its correction, as linked (stored on the attempt, read by the replay too).
    coalesce((a.decision IN ('reject_with_feedback', 'replan') OR (a.decision IS NULL AND a.outcome IS DISTINCT FROM 'success'))
      AND a.fixed IS TRUE, false)::int AS rejections_fixed,
    (a.budget_exhausted IS NOT NULL)::int AS retry_exhausted,
    -- Repaired in code (the SDK's auto-repair): corrected without a model turn, not a rejection.
    (a.decision IS NOT DISTINCT FROM 'auto_repair')::int AS repairs_in_code,
    -- The attempts it stands for: its session's sampling weight (a changed weight recounts the session whole).
    a.weight::float8 AS weighted_attempts
  FROM a_st a
  -- An attempt span names no tool of its own: its tool call's (a later batch may bring it).
  LEFT JOIN LATERAL (
    SELECT c.tool_name FROM tool_calls c
    WHERE c.span_id = a.tool_call_span_id AND c.trace_id = a.trace_id AND c.project_id::text = a.project_id::text
      AND (a.sign = 1 OR NOT EXISTS (SELECT 1 FROM nr WHERE nr.kind = 'c' AND nr.span_id = c.span_id
        AND nr.trace_id = c.trace_id AND nr.project = c.project_id::text))
    LIMIT 1
  ) tc ON a.tool_name IS NULL
),
-- The repair turns to count: all of a whole session's; a listed session's new ones and those of its affected attempts.
aff_m AS (
  SELECT m.project_id, m.trace_id, m.span_id, m.session_id, m.started_at, m.input_tokens, m.output_tokens,
    m.repair_attempt_span_id, m.repair_failure_class, false AS incremental, t.weight
  FROM t JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id
  WHERE NOT t.incremental AND (m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL)
  UNION
  SELECT m.*, true, t.weight FROM nm m JOIN t ON t.project_id = m.project_id AND t.id = m.session_id AND t.incremental
  UNION
  SELECT m.project_id, m.trace_id, m.span_id, m.session_id, m.started_at, m.input_tokens, m.output_tokens,
    m.repair_attempt_span_id, m.repair_failure_class, true, f.weight
  FROM aff_a f
  JOIN model_calls m ON m.repair_attempt_span_id = f.span_id AND m.session_id = f.session_id
    AND m.project_id::text = f.project_id::text
  WHERE f.incremental
),
m_st AS (
  SELECT f.*, g.sign
  FROM aff_m f CROSS JOIN (VALUES (1), (-1)) AS g(sign)
  WHERE g.sign = 1 OR (f.incremental AND NOT EXISTS (
    SELECT 1 FROM nr WHERE nr.kind = 'm' AND nr.span_id = f.span_id AND nr.trace_id = f.trace_id AND nr.project = f.project_id::text))
),
m_rows AS (
  SELECT m.project_id, m.session_id, m.sign,
    coalesce((r.started_at AT TIME ZONE 'UTC')::date, (m.started_at AT TIME ZONE 'UTC')::date) AS day,
    coalesce(r.tool_name, rc.tool_name, '') AS tool_name,
    coalesce(nullif(r.failure_class, ''), m.repair_failure_class, '') AS failure_class,
    CASE WHEN r.found THEN guardtrace_feedback_template(r.feedback) ELSE '' END AS feedback_template,
    (m.input_tokens + m.output_tokens) * m.weight AS failed_tokens,
    m.weight::float8 AS repair_turns
  FROM m_st m
  -- The attempt it repairs, as it was in the same state (one, should a span id repeat in the session).
  LEFT JOIN LATERAL (
    SELECT true AS found, x.trace_id, x.tool_call_span_id, x.tool_name, x.failure_class, x.feedback, x.started_at
    FROM attempts x
    WHERE x.span_id = m.repair_attempt_span_id AND x.session_id = m.session_id AND x.project_id::text = m.project_id::text
      AND (m.sign = 1 OR NOT EXISTS (SELECT 1 FROM nr WHERE nr.kind = 'a' AND nr.span_id = x.span_id
        AND nr.trace_id = x.trace_id AND nr.project = x.project_id::text))
    ORDER BY x.trace_id
    LIMIT 1
  ) r ON m.repair_attempt_span_id IS NOT NULL
  LEFT JOIN LATERAL (
    SELECT c.tool_name FROM tool_calls c
    WHERE c.span_id = r.tool_call_span_id AND c.trace_id = r.trace_id AND c.project_id::text = m.project_id::text
      AND (m.sign = 1 OR NOT EXISTS (SELECT 1 FROM nr WHERE nr.kind = 'c' AND nr.span_id = c.span_id
        AND nr.trace_id = c.trace_id AND nr.project = c.project_id::text))
    LIMIT 1
  ) rc ON r.found AND r.tool_name IS NULL
),
-- The change of each session's part per key: what is counted now, minus what was (recounted
-- for a listed session, the stored part for a whole one).
delta AS (
  SELECT project_id, session_id, day, tool_name, failure_class, feedback_template,
    sum(n)::int AS n, sum(attempts)::int AS attempts, sum(failed_attempts)::int AS failed_attempts,
    sum(rejections)::int AS rejections, sum(rejections_fixed)::int AS rejections_fixed,
    sum(retry_exhausted)::int AS retry_exhausted, sum(failed_tokens)::float8 AS failed_tokens,
    sum(repairs_in_code)::int AS repairs_in_code, sum(repair_turns)::float8 AS repair_turns,
    sum(weighted_attempts)::float8 AS weighted_attempts
  FROM (
    SELECT project_id, session_id, day, tool_name, failure_class, feedback_template, sign AS n, sign AS attempts,
      sign * failed_attempts AS failed_attempts, sign * rejections AS rejections,
      sign * rejections_fixed AS rejections_fixed, sign * retry_exhausted AS retry_exhausted, 0::float8 AS failed_tokens,
      sign * repairs_in_code AS repairs_in_code, 0::float8 AS repair_turns, sign * weighted_attempts AS weighted_attempts
    FROM a_rows
    UNION ALL
    SELECT project_id, session_id, day, tool_name, failure_class, feedback_template, sign, 0, 0, 0, 0, 0,
      sign * failed_tokens, 0, sign * repair_turns, 0::float8
    FROM m_rows
    UNION ALL
    SELECT p.project_id, p.session_id, p.day, p.tool_name, p.failure_class, p.feedback_template, -p.row_count,
      -p.attempts, -p.failed_attempts, -p.rejections, -p.rejections_fixed, -p.retry_exhausted, -p.failed_tokens,
      -p.repairs_in_code, -p.repair_turns, -p.weighted_attempts
    FROM t JOIN analytics_session_parts p ON p.project_id = t.project_id AND p.session_id = t.id
    WHERE NOT t.incremental AND t.costed
  ) AS d
  GROUP BY project_id, session_id, day, tool_name, failure_class, feedback_template
  HAVING sum(n) <> 0 OR sum(attempts) <> 0 OR sum(failed_attempts) <> 0 OR sum(rejections) <> 0
    OR sum(rejections_fixed) <> 0 OR sum(retry_exhausted) <> 0 OR sum(failed_tokens) <> 0 OR sum(repairs_in_code) <> 0
    OR sum(repair_turns) <> 0 OR sum(weighted_attempts) <> 0
),
part AS (
  SELECT d.*, coalesce(p.row_count, 0) AS old_n, coalesce(p.row_count, 0) + d.n AS new_n,
    coalesce(p.attempts, 0) + d.attempts AS new_attempts,
    coalesce(p.failed_attempts, 0) + d.failed_attempts AS new_failed_attempts,
    coalesce(p.rejections, 0) + d.rejections AS new_rejections,
    coalesce(p.rejections_fixed, 0) + d.rejections_fixed AS new_rejections_fixed,
    coalesce(p.retry_exhausted, 0) + d.retry_exhausted AS new_retry_exhausted,
    coalesce(p.failed_tokens, 0) + d.failed_tokens AS new_failed_tokens,
    coalesce(p.repairs_in_code, 0) + d.repairs_in_code AS new_repairs_in_code,
    coalesce(p.repair_turns, 0) + d.repair_turns AS new_repair_turns,
    coalesce(p.weighted_attempts, 0) + d.weighted_attempts AS new_weighted_attempts
  FROM delta d
  LEFT JOIN analytics_session_parts p ON p.project_id = d.project_id AND p.session_id = d.session_id AND p.day = d.day
    AND p.tool_name = d.tool_name AND p.failure_class = d.failure_class AND p.feedback_template = d.feedback_template
),
stored_parts AS (
  INSERT INTO analytics_session_parts AS x (project_id, session_id, day, tool_name, failure_class, feedback_template,
    attempts, failed_attempts, rejections, rejections_fixed, retry_exhausted, failed_tokens, row_count, repairs_in_code,
    repair_turns, weighted_attempts)
  SELECT project_id, session_id, day, tool_name, failure_class, feedback_template, new_attempts, new_failed_attempts,
    new_rejections, new_rejections_fixed, new_retry_exhausted, new_failed_tokens, new_n, new_repairs_in_code,
    new_repair_turns, new_weighted_attempts
  FROM part WHERE new_n > 0
  ON CONFLICT (project_id, session_id, day, tool_name, failure_class, feedback_template) DO UPDATE SET
    attempts = EXCLUDED.attempts, failed_attempts = EXCLUDED.failed_attempts, rejections = EXCLUDED.rejections,
    rejections_fixed = EXCLUDED.rejections_fixed, retry_exhausted = EXCLUDED.retry_exhausted,
    failed_tokens = EXCLUDED.failed_tokens, row_count = EXCLUDED.row_count, repairs_in_code = EXCLUDED.repairs_in_code,
    repair_turns = EXCLUDED.repair_turns, weighted_attempts = EXCLUDED.weighted_attempts
),
removed_parts AS (
  DELETE FROM analytics_session_parts x USING part
  WHERE part.new_n <= 0 AND part.old_n > 0 AND x.project_id = part.project_id AND x.session_id = part.session_id
    AND x.day = part.day AND x.tool_name = part.tool_name AND x.failure_class = part.failure_class
    AND x.feedback_template = part.feedback_template
),
-- The change of the shared daily rows, added to them by guardtrace_apply_analytics_pending.
daily AS (
  SELECT project_id, day, tool_name, failure_class, feedback_template, sum(attempts)::int AS attempts,
    sum(failed_attempts)::int AS failed_attempts, sum(rejections)::int AS rejections,
    sum(retry_exhausted)::int AS retry_exhausted, sum((new_n > 0)::int - (old_n > 0)::int)::int AS sessions,
    sum(failed_tokens)::float8 AS failed_tokens, sum(weighted_attempts)::float8 AS weighted_attempts
  FROM part
  GROUP BY project_id, day, tool_name, failure_class, feedback_template
),
-- The cost-per-session rollup: one row per session, replaced (its bucket, weight and tokens).
old_cost AS (
  DELETE FROM analytics_session_costs x USING t
  WHERE x.project_id = t.project_id AND x.session_id = t.id
  RETURNING x.*
),
new_cost AS (
  SELECT s.project_id, s.id AS session_id, (s.started_at AT TIME ZONE 'UTC')::date AS day,
    guardtrace_cost_bucket(s.input_tokens + s.output_tokens) AS bucket, s.sampling_weight AS weight,
    s.input_tokens + s.output_tokens AS tokens, s.repair_tokens
  FROM sessions s JOIN t ON s.project_id = t.project_id AND s.id = t.id
),
cost_delta AS (
  SELECT project_id, day, bucket, sum(n)::int AS sessions, sum(weight)::float8 AS estimated_sessions,
    sum(tokens * weight)::float8 AS tokens, sum(repair_tokens * weight)::float8 AS repair_tokens
  FROM (
    SELECT project_id, day, bucket, 1 AS n, weight, tokens, repair_tokens FROM new_cost
    UNION ALL
    SELECT project_id, day, bucket, -1, -weight, tokens, repair_tokens FROM old_cost
  ) AS d
  GROUP BY project_id, day, bucket
  HAVING sum(n) <> 0 OR sum(weight) <> 0 OR sum(tokens * weight) <> 0 OR sum(repair_tokens * weight) <> 0
),
-- The new cost rows. Not read by the final SELECT, so they run after it, when the DELETE above
-- (read through the upsert it feeds) has run to completion.
stored_costs AS (
  INSERT INTO analytics_session_costs (project_id, session_id, day, bucket, weight, tokens, repair_tokens)
  SELECT * FROM new_cost
)
-- Both changes kept for the end of the transaction, after any kept before in it.
SELECT set_config('guardtrace.analytics_pending', jsonb_build_object(
  'daily', coalesce(nullif(current_setting('guardtrace.analytics_pending', true), '')::jsonb->'daily', '[]'::jsonb)
    || coalesce((SELECT jsonb_agg(daily) FROM daily), '[]'::jsonb),
  'costs', coalesce(nullif(current_setting('guardtrace.analytics_pending', true), '')::jsonb->'costs', '[]'::jsonb)
    || coalesce((SELECT jsonb_agg(cost_delta) FROM cost_delta), '[]'::jsonb))::text, true)
$fn$;

-- The pending change of the shared daily rows (guardtrace_update_analytics) added to them, in key
-- order (as every writer takes them, so two writers never wait for each other in a cycle), then
-- cleared.
CREATE OR REPLACE FUNCTION guardtrace_apply_analytics_pending() RETURNS void LANGUAGE sql AS $fn$
INSERT INTO analytics_daily AS r (project_id, day, tool_name, failure_class, feedback_template, attempts,
  failed_attempts, rejections, retry_exhausted, sessions, failed_tokens, weighted_attempts)
SELECT d.project_id, d.day, d.tool_name, d.failure_class, d.feedback_template, sum(d.attempts)::int,
  sum(d.failed_attempts)::int, sum(d.rejections)::int, sum(d.retry_exhausted)::int, sum(d.sessions)::int,
  sum(d.failed_tokens)::float8, sum(d.weighted_attempts)::float8
FROM jsonb_to_recordset(coalesce(nullif(current_setting('guardtrace.analytics_pending', true), '')::jsonb->'daily', '[]'::jsonb))
  AS d(project_id uuid, day date, tool_name text, failure_class text, feedback_template text, attempts int,
    failed_attempts int, rejections int, retry_exhausted int, sessions int, failed_tokens float8, weighted_attempts float8)
GROUP BY d.project_id, d.day, d.tool_name, d.failure_class, d.feedback_template
ORDER BY d.project_id, d.day, d.tool_name, d.failure_class, d.feedback_template
ON CONFLICT (project_id, day, tool_name, failure_class, feedback_template) DO UPDATE SET
  attempts = r.attempts + EXCLUDED.attempts,
  failed_attempts = r.failed_attempts + EXCLUDED.failed_attempts,
  rejections = r.rejections + EXCLUDED.rejections,
  retry_exhausted = r.retry_exhausted + EXCLUDED.retry_exhausted,
  sessions = r.sessions + EXCLUDED.sessions,
  failed_tokens = r.failed_tokens + EXCLUDED.failed_tokens,
  weighted_attempts = r.weighted_attempts + EXCLUDED.weighted_attempts;

INSERT INTO analytics_cost_daily AS r (project_id, day, bucket, sessions, estimated_sessions, tokens, repair_tokens)
SELECT c.project_id, c.day, c.bucket, sum(c.sessions)::int, sum(c.estimated_sessions)::float8, sum(c.tokens)::float8,
  sum(c.repair_tokens)::float8
FROM jsonb_to_recordset(coalesce(nullif(current_setting('guardtrace.analytics_pending', true), '')::jsonb->'costs', '[]'::jsonb))
  AS c(project_id uuid, day date, bucket int, sessions int, estimated_sessions float8, tokens float8, repair_tokens float8)
GROUP BY c.project_id, c.day, c.bucket
ORDER BY c.project_id, c.day, c.bucket
ON CONFLICT (project_id, day, bucket) DO UPDATE SET
  sessions = r.sessions + EXCLUDED.sessions,
  estimated_sessions = r.estimated_sessions + EXCLUDED.estimated_sessions,
  tokens = r.tokens + EXCLUDED.tokens,
  repair_tokens = r.repair_tokens + EXCLUDED.repair_tokens;

SELECT set_config('guardtrace.analytics_pending', '', true);
$fn$;
