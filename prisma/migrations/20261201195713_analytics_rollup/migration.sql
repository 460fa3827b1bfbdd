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

-- Replaces the contribution of the given sessions to analytics_daily: their stored parts are
-- deleted and subtracted, their parts recomputed from the derived rows (attempts, model_calls)
-- and the sessions row (sampling weight), inserted and added, in one statement (the rollup rows
-- it changes are locked once, in key order). Run by the collector in the write transaction of
-- every batch for the sessions it touched, after their totals and under their locks, so a
-- re-sent span or an outcome arriving in a later batch never counts twice.
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
    (a.decision = 'reject_with_feedback')::int AS rejections,
    (a.decision = 'reject_with_feedback' AND EXISTS (
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
-- Not read by the statement below: runs after it, when the DELETE above has run to completion.
stored AS (
  INSERT INTO analytics_session_parts (project_id, session_id, day, tool_name, failure_class, feedback_template,
    attempts, failed_attempts, rejections, rejections_fixed, retry_exhausted, failed_tokens)
  SELECT * FROM parts
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
)
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
$fn$;

-- Backfill: the rollup of every stored session.
SELECT guardtrace_refresh_analytics(coalesce(array_agg(project_id), '{}'), coalesce(array_agg(id), '{}')) FROM sessions;
