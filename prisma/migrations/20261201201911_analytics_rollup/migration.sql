-- CreateTable
CREATE TABLE "analytics_daily" (
    "project_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "tool_name" TEXT NOT NULL,
    "failure_class" TEXT NOT NULL,
    "feedback_template" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "rejections" INTEGER NOT NULL DEFAULT 0,
    "rejections_fixed" INTEGER NOT NULL DEFAULT 0,
    "retry_exhausted" INTEGER NOT NULL DEFAULT 0,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "failed_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_daily_pkey" PRIMARY KEY ("project_id","day","tool_name","failure_class","feedback_template")
);

-- CreateTable
CREATE TABLE "analytics_session_parts" (
    "project_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "tool_name" TEXT NOT NULL,
    "failure_class" TEXT NOT NULL,
    "feedback_template" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "rejections" INTEGER NOT NULL DEFAULT 0,
    "rejections_fixed" INTEGER NOT NULL DEFAULT 0,
    "retry_exhausted" INTEGER NOT NULL DEFAULT 0,
    "failed_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_session_parts_pkey" PRIMARY KEY ("project_id","session_id","day","tool_name","failure_class","feedback_template")
);

-- CreateTable
CREATE TABLE "analytics_cost_daily" (
    "project_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "bucket" INTEGER NOT NULL,
    "sessions" INTEGER NOT NULL DEFAULT 0,
    "estimated_sessions" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "repair_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_cost_daily_pkey" PRIMARY KEY ("project_id","day","bucket")
);

-- CreateTable
CREATE TABLE "analytics_session_costs" (
    "project_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "bucket" INTEGER NOT NULL,
    "weight" DOUBLE PRECISION NOT NULL,
    "tokens" BIGINT NOT NULL,
    "repair_tokens" BIGINT NOT NULL,

    CONSTRAINT "analytics_session_costs_pkey" PRIMARY KEY ("project_id","session_id")
);


-- Hand-written (Prisma cannot express functions).
-- The template of a feedback text: quoted values and numbers masked, whitespace collapsed,
-- so "path: \"a.ts\" not found" and "path: \"b.ts\" not found" rank as one template.
CREATE OR REPLACE FUNCTION guardtrace_feedback_template(feedback text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT left(btrim(regexp_replace(regexp_replace(regexp_replace(coalesce(feedback, ''),
    '"[^"]*"|''[^'']*''|`[^`]*`', '"…"', 'g'),
    '[-+]?\m[0-9]+([.][0-9]+)?\M', 'N', 'g'),
    '\s+', ' ', 'g')), 160)
$fn$;

-- The cost-per-session bucket of a session's tokens: 0 below 1k, then 1-2-5 steps up to 1M and
-- over (11 buckets; the web's COST_BUCKETS lists the same bounds for the labels).
CREATE OR REPLACE FUNCTION guardtrace_cost_bucket(tokens bigint) RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT width_bucket(tokens::float8,
    ARRAY[1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000]::float8[])
$fn$;

-- Replaces the contribution of the given sessions to analytics_daily and analytics_cost_daily:
-- their stored parts (analytics_session_parts, analytics_session_costs) are deleted and
-- subtracted, recomputed from the derived rows (attempts, tool_calls, model_calls) and the
-- sessions rows (totals, sampling weight), inserted and added, in one statement (the rollup
-- rows it changes are locked once, in key order). Run by the collector in the write
-- transaction of every batch for the sessions it touched, after their totals and under their
-- locks, so a re-sent span or an outcome arriving in a later batch never counts twice.
CREATE OR REPLACE FUNCTION guardtrace_refresh_analytics(projects uuid[], ids text[]) RETURNS void
LANGUAGE sql AS $fn$
WITH t AS (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
),
old AS (
  DELETE FROM analytics_session_parts x USING t
  WHERE x.project_id = t.project_id AND x.session_id = t.id
  RETURNING x.*
),
a AS (
  SELECT d.project_id, d.session_id, d.span_id, d.tool_call_span_id, d.number, d.outcome, d.decision,
    d.budget_exhausted,
    (d.started_at AT TIME ZONE 'UTC')::date AS day,
    coalesce(d.tool_name, c.tool_name, '') AS tool_name,
    coalesce(d.failure_class, '') AS failure_class,
    guardtrace_feedback_template(d.feedback) AS feedback_template
  FROM attempts d JOIN t ON d.project_id = t.project_id AND d.session_id = t.id
  -- An attempt span names no tool of its own: its tool call's (a later batch may bring it).
  LEFT JOIN tool_calls c ON c.project_id = d.project_id AND c.trace_id = d.trace_id AND c.span_id = d.tool_call_span_id
),
rows AS (
  SELECT a.project_id, a.session_id, a.day, a.tool_name, a.failure_class, a.feedback_template,
    1 AS attempts,
    (a.outcome IS DISTINCT FROM 'success')::int AS failed_attempts,
    (a.decision IS NOT DISTINCT FROM 'reject_with_feedback')::int AS rejections,
    (a.decision IS NOT DISTINCT FROM 'reject_with_feedback' AND EXISTS (
      SELECT 1 FROM a n WHERE n.project_id = a.project_id AND n.session_id = a.session_id
        AND n.tool_call_span_id = a.tool_call_span_id AND n.number = a.number + 1 AND n.outcome = 'success'
    ))::int AS rejections_fixed,
    (a.budget_exhausted IS NOT NULL)::int AS retry_exhausted,
    0::float8 AS failed_tokens
  FROM a
  UNION ALL
  SELECT m.project_id, m.session_id,
    coalesce(a.day, (m.started_at AT TIME ZONE 'UTC')::date),
    coalesce(a.tool_name, ''),
    coalesce(nullif(a.failure_class, ''), m.repair_failure_class, ''),
    coalesce(a.feedback_template, ''),
    0, 0, 0, 0, 0,
    (m.input_tokens + m.output_tokens) * coalesce(s.sampling_weight, 1)
  FROM model_calls m
  JOIN t ON m.project_id = t.project_id AND m.session_id = t.id
  LEFT JOIN sessions s ON s.project_id = m.project_id AND s.id = m.session_id
  LEFT JOIN a ON a.project_id = m.project_id AND a.session_id = m.session_id AND a.span_id = m.repair_attempt_span_id
  WHERE m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL
),
parts AS (
  SELECT project_id, session_id, day, tool_name, failure_class, feedback_template,
    sum(attempts)::int AS attempts, sum(failed_attempts)::int AS failed_attempts,
    sum(rejections)::int AS rejections, sum(rejections_fixed)::int AS rejections_fixed,
    sum(retry_exhausted)::int AS retry_exhausted, sum(failed_tokens)::float8 AS failed_tokens
  FROM rows
  GROUP BY project_id, session_id, day, tool_name, failure_class, feedback_template
),
delta AS (
  SELECT project_id, day, tool_name, failure_class, feedback_template,
    sum(attempts)::int AS attempts, sum(failed_attempts)::int AS failed_attempts,
    sum(rejections)::int AS rejections, sum(rejections_fixed)::int AS rejections_fixed,
    sum(retry_exhausted)::int AS retry_exhausted, sum(sessions)::int AS sessions,
    sum(failed_tokens)::float8 AS failed_tokens
  FROM (
    SELECT p.project_id, p.day, p.tool_name, p.failure_class, p.feedback_template, p.attempts, p.failed_attempts,
      p.rejections, p.rejections_fixed, p.retry_exhausted, 1 AS sessions, p.failed_tokens
    FROM parts p
    UNION ALL
    SELECT o.project_id, o.day, o.tool_name, o.failure_class, o.feedback_template, -o.attempts, -o.failed_attempts,
      -o.rejections, -o.rejections_fixed, -o.retry_exhausted, -1, -o.failed_tokens
    FROM old o
  ) AS d
  GROUP BY project_id, day, tool_name, failure_class, feedback_template
  HAVING sum(attempts) <> 0 OR sum(failed_attempts) <> 0 OR sum(rejections) <> 0 OR sum(rejections_fixed) <> 0
    OR sum(retry_exhausted) <> 0 OR sum(sessions) <> 0 OR sum(failed_tokens) <> 0
),
daily AS (
  INSERT INTO analytics_daily AS r (project_id, day, tool_name, failure_class, feedback_template, attempts,
    failed_attempts, rejections, rejections_fixed, retry_exhausted, sessions, failed_tokens)
  SELECT * FROM delta ORDER BY project_id, day, tool_name, failure_class, feedback_template
  ON CONFLICT (project_id, day, tool_name, failure_class, feedback_template) DO UPDATE SET
    attempts = r.attempts + EXCLUDED.attempts,
    failed_attempts = r.failed_attempts + EXCLUDED.failed_attempts,
    rejections = r.rejections + EXCLUDED.rejections,
    rejections_fixed = r.rejections_fixed + EXCLUDED.rejections_fixed,
    retry_exhausted = r.retry_exhausted + EXCLUDED.retry_exhausted,
    sessions = r.sessions + EXCLUDED.sessions,
    failed_tokens = r.failed_tokens + EXCLUDED.failed_tokens
  RETURNING 1
),
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
costs AS (
  INSERT INTO analytics_cost_daily AS r (project_id, day, bucket, sessions, estimated_sessions, tokens, repair_tokens)
  SELECT * FROM cost_delta ORDER BY project_id, day, bucket
  ON CONFLICT (project_id, day, bucket) DO UPDATE SET
    sessions = r.sessions + EXCLUDED.sessions,
    estimated_sessions = r.estimated_sessions + EXCLUDED.estimated_sessions,
    tokens = r.tokens + EXCLUDED.tokens,
    repair_tokens = r.repair_tokens + EXCLUDED.repair_tokens
  RETURNING 1
),
-- The new parts. Not read by the final SELECT, so they run after it, when the DELETEs above
-- (read through the rollup upserts it reads) have run to completion.
stored_parts AS (
  INSERT INTO analytics_session_parts (project_id, session_id, day, tool_name, failure_class, feedback_template,
    attempts, failed_attempts, rejections, rejections_fixed, retry_exhausted, failed_tokens)
  SELECT * FROM parts
),
stored_costs AS (
  INSERT INTO analytics_session_costs (project_id, session_id, day, bucket, weight, tokens, repair_tokens)
  SELECT * FROM new_cost
)
SELECT (SELECT count(*) FROM daily) + (SELECT count(*) FROM costs)
$fn$;

-- Backfill: the rollup of every stored session.
SELECT guardtrace_refresh_analytics(coalesce(array_agg(project_id), '{}'), coalesce(array_agg(id), '{}')) FROM sessions;
