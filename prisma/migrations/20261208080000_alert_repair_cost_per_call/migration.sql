-- The Repair cost alert priced each minute's sums of a model's repair input and cached input, so
-- one turn's cached input above its input (reported beside it, as Anthropic's API does) offset
-- another turn's uncached input (the analytics' costs had the same fault: migration
-- 20261208070000_model_costs_priced_per_call). alert_minutes now also keeps the repair turns'
-- uncached input as each turn is priced (max(input - cached, 0)), which alert-measure.ts prices.
-- Prisma's ALTER TABLE first (existing rows: their sums' uncached input, as they were priced
-- before), then the two functions of migration 20261208040000_alert_minutes_without_example with
-- the column kept beside the others, hand-written.

-- AlterTable
ALTER TABLE "alert_minutes" ADD COLUMN     "repair_uncached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0;

UPDATE alert_minutes SET repair_uncached_input_tokens = greatest(repair_input_tokens - repair_cached_input_tokens, 0)
WHERE repair_input_tokens <> 0;

CREATE OR REPLACE FUNCTION guardtrace_update_alert_minutes(projects uuid[], ids text[], row_kinds text[], row_projects uuid[], row_traces text[], row_spans text[],
  old_projects uuid[], old_ids text[], old_weights float8[])
RETURNS void
LANGUAGE plpgsql SET enable_seqscan = off AS $fn$
BEGIN
WITH nr AS (
  SELECT DISTINCT r.kind, r.project_id, r.trace_id, r.span_id
  FROM unnest(row_kinds, row_projects, row_traces, row_spans) AS r(kind, project_id, trace_id, span_id)
  WHERE r.kind IN ('a', 'm', 'A', 'c')
),
-- The batch's new attempts, with their tool (an attempt span names none of its own: its tool call's).
na AS MATERIALIZED (
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, date_trunc('minute', x.started_at) AS minute,
    coalesce(x.tool_name, (SELECT c.tool_name FROM tool_calls c
      WHERE c.span_id = x.tool_call_span_id AND c.trace_id = x.trace_id AND c.project_id = x.project_id LIMIT 1), '') AS tool_name,
    coalesce(x.failure_class, '') AS failure_class, x.failure_class AS own_class,
    (x.outcome IS DISTINCT FROM 'success') AS failed,
    x.decision, x.budget_exhausted,
    coalesce((SELECT s.sampling_weight FROM sessions s WHERE s.project_id = x.project_id AND s.id = x.session_id), 1) AS weight
  FROM nr JOIN attempts x ON x.span_id = nr.span_id AND x.trace_id = nr.trace_id AND x.project_id = nr.project_id
  WHERE nr.kind = 'a'
),
-- Attempts a re-key moved into one of the batch's sessions ('A'), with the weight their old session
-- (keyed by the trace id) had them counted at.
mva AS MATERIALIZED (
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, date_trunc('minute', x.started_at) AS minute,
    coalesce(x.tool_name, (SELECT c.tool_name FROM tool_calls c
      WHERE c.span_id = x.tool_call_span_id AND c.trace_id = x.trace_id AND c.project_id = x.project_id LIMIT 1), '') AS tool_name,
    coalesce(x.failure_class, '') AS failure_class, o.weight AS counted
  FROM nr JOIN attempts x ON x.span_id = nr.span_id AND x.trace_id = nr.trace_id AND x.project_id = nr.project_id
  JOIN (SELECT DISTINCT ON (o.project_id, o.id) o.project_id, o.id, o.weight
    FROM unnest(old_projects, old_ids, old_weights) AS o(project_id, id, weight)) o ON o.project_id = x.project_id AND o.id = x.trace_id
  WHERE nr.kind = 'A'
),
-- The batch's sessions: their weight now, and the one their earlier attempts were counted at.
ss AS MATERIALIZED (
  SELECT s.project_id, s.id, s.sampling_weight AS weight, s.alert_weight AS counted,
    EXISTS (SELECT 1 FROM na WHERE na.project_id = s.project_id AND na.session_id = s.id)
      OR EXISTS (SELECT 1 FROM mva WHERE mva.project_id = s.project_id AND mva.session_id = s.id) AS has_new
  FROM (SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)) t
  JOIN LATERAL (SELECT s.* FROM sessions s WHERE s.project_id = t.project_id AND s.id = t.id LIMIT 1) s ON true
),
-- A session whose weight changed since its attempts were counted (the root brought the SDK's
-- weight, a failure kept it whole): its earlier attempts again, by the difference.
rw AS (
  SELECT x.project_id, date_trunc('minute', x.started_at) AS minute,
    coalesce(x.tool_name, (SELECT c.tool_name FROM tool_calls c
      WHERE c.span_id = x.tool_call_span_id AND c.trace_id = x.trace_id AND c.project_id = x.project_id LIMIT 1), '') AS tool_name,
    coalesce(x.failure_class, '') AS failure_class, (ss.weight - ss.counted)::float8 AS dw
  FROM ss JOIN attempts x ON x.project_id = ss.project_id AND x.session_id = ss.id
  WHERE ss.counted IS NOT NULL AND ss.counted <> ss.weight
    AND NOT EXISTS (SELECT 1 FROM na WHERE na.span_id = x.span_id AND na.trace_id = x.trace_id AND na.project_id = x.project_id)
    AND NOT EXISTS (SELECT 1 FROM mva WHERE mva.span_id = x.span_id AND mva.trace_id = x.trace_id AND mva.project_id = x.project_id)
),
-- The weight they are counted at from now on (a session with no attempt counted yet: once it has one).
counted AS (
  UPDATE sessions s SET alert_weight = ss.weight
  FROM ss
  WHERE s.project_id = ss.project_id AND s.id = ss.id AND s.alert_weight IS DISTINCT FROM ss.weight
    AND (ss.counted IS NOT NULL OR ss.has_new)
  RETURNING 1
),
-- Rejections whose count in rejections_unfixed is not where their link says (the partial index
-- attempts_alert_unfixed_moved_idx holds just these): newly linked to a correction that failed, or
-- relinked by this batch (a call that started earlier arrived: fixed now, or failed at another minute).
rj AS MATERIALIZED (
  SELECT x.project_id, x.trace_id, x.span_id, x.tool_name, x.tool_call_span_id, x.failure_class,
    x.alert_unfixed_at AS was,
    CASE WHEN x.fixed IS FALSE AND x.correction_started_at IS NOT NULL
      AND (x.decision IN ('reject_with_feedback', 'replan') OR (x.decision IS NULL AND x.outcome IS DISTINCT FROM 'success'))
      THEN x.correction_started_at END AS now_at
  FROM ss JOIN attempts x ON x.project_id = ss.project_id AND x.session_id = ss.id
  WHERE x.alert_unfixed_at IS DISTINCT FROM (CASE WHEN x.fixed IS FALSE AND x.correction_started_at IS NOT NULL
      AND (x.decision IN ('reject_with_feedback', 'replan') OR (x.decision IS NULL AND x.outcome IS DISTINCT FROM 'success'))
      THEN x.correction_started_at END)
),
-- Where each is counted from now on.
moved AS (
  UPDATE attempts a SET alert_unfixed_at = rj.now_at
  FROM rj WHERE a.project_id = rj.project_id AND a.trace_id = rj.trace_id AND a.span_id = rj.span_id
  RETURNING 1
),
-- Counted (+1) at its correction's minute, and taken out (-1) of the minute it was counted at.
rjd AS (
  SELECT rj.*, d.minute, d.n
  FROM rj CROSS JOIN LATERAL (VALUES (date_trunc('minute', rj.now_at), 1), (date_trunc('minute', rj.was), -1)) AS d(minute, n)
  WHERE d.minute IS NOT NULL
),
-- The batch's new repair turns, under the class and tool of the attempt they answer.
nm AS (
  SELECT m.project_id, m.session_id, date_trunc('minute', m.started_at) AS minute, coalesce(m.model, '') AS model,
    coalesce(r.tool_name, '') AS tool_name, coalesce(r.failure_class, m.repair_failure_class, '') AS failure_class,
    m.input_tokens, m.output_tokens, m.cached_input_tokens, greatest(m.input_tokens - m.cached_input_tokens, 0) AS uncached_input_tokens
  FROM nr JOIN model_calls m ON m.span_id = nr.span_id AND m.trace_id = nr.trace_id AND m.project_id = nr.project_id
  LEFT JOIN LATERAL (
    SELECT coalesce(a.tool_name, (SELECT c.tool_name FROM tool_calls c
        WHERE c.span_id = a.tool_call_span_id AND c.trace_id = a.trace_id AND c.project_id = a.project_id LIMIT 1)) AS tool_name,
      a.failure_class
    FROM attempts a
    WHERE a.span_id = m.repair_attempt_span_id AND a.project_id = m.project_id LIMIT 1
  ) r ON true
  WHERE nr.kind = 'm'
),
-- Repair turns stored before the attempt they answer, which is new in this batch: counted then
-- under no tool and their own class (no attempt was there to name them), moved now under the
-- attempt's tool and class, where the batch's own repair turns are counted (nm).
rm AS (
  SELECT DISTINCT ON (m.project_id, m.trace_id, m.span_id) m.project_id, m.session_id, date_trunc('minute', m.started_at) AS minute,
    coalesce(m.model, '') AS model, coalesce(m.repair_failure_class, '') AS old_class, na.tool_name AS new_tool,
    coalesce(na.own_class, m.repair_failure_class, '') AS new_class, m.input_tokens, m.output_tokens, m.cached_input_tokens,
    greatest(m.input_tokens - m.cached_input_tokens, 0) AS uncached_input_tokens
  FROM na
  JOIN model_calls m ON m.repair_attempt_span_id = na.span_id AND m.project_id = na.project_id
  WHERE NOT EXISTS (SELECT 1 FROM nr WHERE nr.kind = 'm' AND nr.span_id = m.span_id AND nr.trace_id = m.trace_id
      AND nr.project_id = m.project_id)
    -- (Counted under another stored attempt of the same span id, it stays.)
    AND NOT EXISTS (SELECT 1 FROM attempts o WHERE o.span_id = na.span_id AND o.project_id = na.project_id
      AND NOT EXISTS (SELECT 1 FROM na n2 WHERE n2.span_id = o.span_id AND n2.trace_id = o.trace_id AND n2.project_id = o.project_id))
  ORDER BY m.project_id, m.trace_id, m.span_id, na.trace_id
),
-- Stored attempts that name no tool of their own, whose tool call is new in this batch: counted
-- until now under no tool (their call was not there to name it), with their unfixed rejection and
-- their stored repair turns; moved under the call's tool, at the weight they were counted at (a
-- moved attempt's old one, else their session's; rw and mva add any change of weight under the
-- call's tool). The batch's new attempts are counted under it already (na).
nc AS MATERIALIZED (
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.started_at, x.failure_class, x.outcome, x.decision,
    x.budget_exhausted, x.alert_unfixed_at, c.tool_name AS new_tool,
    coalesce((SELECT mva.counted FROM mva WHERE mva.span_id = x.span_id AND mva.trace_id = x.trace_id AND mva.project_id = x.project_id),
      (SELECT coalesce(ss.counted, ss.weight) FROM ss WHERE ss.project_id = x.project_id AND ss.id = x.session_id), 1)::float8 AS weight
  FROM nr
  JOIN tool_calls c ON c.span_id = nr.span_id AND c.trace_id = nr.trace_id AND c.project_id = nr.project_id
  JOIN attempts x ON x.tool_call_span_id = c.span_id AND x.trace_id = c.trace_id AND x.project_id = c.project_id
  WHERE nr.kind = 'c' AND x.tool_name IS NULL
    AND NOT EXISTS (SELECT 1 FROM na WHERE na.span_id = x.span_id AND na.trace_id = x.trace_id AND na.project_id = x.project_id)
),
parts AS (
  SELECT project_id, minute, tool_name, failure_class, '' AS model, session_id,
    1 AS attempts, weight::float8 AS weighted_attempts, failed::int AS failed_attempts,
    coalesce(failed AND decision IN ('escalate_human', 'fail_reconcile', 'abort'), false)::int AS escalations,
    (budget_exhausted IS NOT NULL)::int AS exhausted,
    0 AS rejections_unfixed, 0::float8 AS input_tokens, 0::float8 AS output_tokens, 0::float8 AS cached_input_tokens,
    0::float8 AS uncached_input_tokens
  FROM na
  UNION ALL
  SELECT p.project_id, p.minute,
    coalesce(p.tool_name, (SELECT c.tool_name FROM tool_calls c
      WHERE c.span_id = p.tool_call_span_id AND c.trace_id = p.trace_id AND c.project_id = p.project_id LIMIT 1), ''),
    coalesce(p.failure_class, ''), '', NULL, 0, 0, 0, 0, 0, p.n, 0, 0, 0, 0
  FROM rjd p
  UNION ALL
  SELECT project_id, minute, tool_name, failure_class, model, session_id, 0, 0, 0, 0, 0, 0, input_tokens, output_tokens, cached_input_tokens,
    uncached_input_tokens
  FROM nm
  UNION ALL
  SELECT project_id, minute, tool_name, failure_class, '', NULL, 0, dw, 0, 0, 0, 0, 0, 0, 0, 0
  FROM rw
  UNION ALL
  SELECT project_id, minute, '', old_class, model, NULL, 0, 0, 0, 0, 0, 0, -input_tokens, -output_tokens, -cached_input_tokens,
    -uncached_input_tokens
  FROM rm
  UNION ALL
  SELECT project_id, minute, new_tool, new_class, model, session_id, 0, 0, 0, 0, 0, 0, input_tokens, output_tokens, cached_input_tokens,
    uncached_input_tokens
  FROM rm
  UNION ALL
  -- nc: taken out from under no tool (-1), counted under the call's tool (+1).
  SELECT n.project_id, date_trunc('minute', n.started_at), CASE WHEN g.sign < 0 THEN '' ELSE n.new_tool END,
    coalesce(n.failure_class, ''), '', CASE WHEN g.sign > 0 THEN n.session_id END, g.sign, g.sign * n.weight,
    g.sign * (n.outcome IS DISTINCT FROM 'success')::int,
    g.sign * coalesce(n.outcome IS DISTINCT FROM 'success' AND n.decision IN ('escalate_human', 'fail_reconcile', 'abort'), false)::int,
    g.sign * (n.budget_exhausted IS NOT NULL)::int, 0, 0, 0, 0, 0
  FROM nc n CROSS JOIN (VALUES (-1), (1)) AS g(sign)
  UNION ALL
  SELECT n.project_id, date_trunc('minute', n.alert_unfixed_at), CASE WHEN g.sign < 0 THEN '' ELSE n.new_tool END,
    coalesce(n.failure_class, ''), '', NULL, 0, 0, 0, 0, 0, g.sign, 0, 0, 0, 0
  FROM nc n CROSS JOIN (VALUES (-1), (1)) AS g(sign)
  WHERE n.alert_unfixed_at IS NOT NULL
  UNION ALL
  SELECT n.project_id, date_trunc('minute', m.started_at), CASE WHEN g.sign < 0 THEN '' ELSE n.new_tool END,
    coalesce(n.failure_class, m.repair_failure_class, ''), coalesce(m.model, ''), CASE WHEN g.sign > 0 THEN m.session_id END, 0, 0, 0, 0, 0, 0,
    g.sign * m.input_tokens, g.sign * m.output_tokens, g.sign * m.cached_input_tokens, g.sign * greatest(m.input_tokens - m.cached_input_tokens, 0)
  FROM nc n
  JOIN model_calls m ON m.repair_attempt_span_id = n.span_id AND m.project_id = n.project_id
  CROSS JOIN (VALUES (-1), (1)) AS g(sign)
  WHERE NOT EXISTS (SELECT 1 FROM nr WHERE nr.kind = 'm' AND nr.span_id = m.span_id AND nr.trace_id = m.trace_id
    AND nr.project_id = m.project_id)
  UNION ALL
  -- Moved attempts: counted from now on at their new session's weight instead of their old one's.
  SELECT mva.project_id, mva.minute, mva.tool_name, mva.failure_class, '', NULL, 0, (ss.weight - mva.counted)::float8, 0, 0, 0, 0, 0, 0, 0, 0
  FROM mva JOIN ss ON ss.project_id = mva.project_id AND ss.id = mva.session_id
)
INSERT INTO alert_minutes AS t (project_id, minute, tool_name, failure_class, model, attempts, weighted_attempts, failed_attempts, escalations,
  exhausted, rejections_unfixed, repair_input_tokens, repair_output_tokens, repair_cached_input_tokens, repair_uncached_input_tokens)
SELECT g.project_id, g.minute, g.tool_name, g.failure_class, g.model, g.attempts, g.weighted_attempts, g.failed_attempts, g.escalations,
  g.exhausted, g.rejections_unfixed, g.input_tokens, g.output_tokens, g.cached_input_tokens, g.uncached_input_tokens
FROM (
  SELECT project_id, minute, tool_name, failure_class, model,
    sum(attempts)::int AS attempts, sum(weighted_attempts) AS weighted_attempts, sum(failed_attempts)::int AS failed_attempts,
    sum(escalations)::int AS escalations,
    sum(exhausted)::int AS exhausted, sum(rejections_unfixed)::int AS rejections_unfixed,
    sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cached_input_tokens) AS cached_input_tokens,
    sum(uncached_input_tokens) AS uncached_input_tokens
  FROM parts GROUP BY project_id, minute, tool_name, failure_class, model
) g
-- One order for every writer: two batches adding to the same keys lock them in the same order.
ORDER BY g.project_id, g.minute, g.tool_name, g.failure_class, g.model
ON CONFLICT (project_id, minute, tool_name, failure_class, model) DO UPDATE SET
  attempts = t.attempts + excluded.attempts,
  weighted_attempts = t.weighted_attempts + excluded.weighted_attempts,
  failed_attempts = t.failed_attempts + excluded.failed_attempts,
  escalations = t.escalations + excluded.escalations,
  exhausted = t.exhausted + excluded.exhausted,
  rejections_unfixed = t.rejections_unfixed + excluded.rejections_unfixed,
  repair_input_tokens = t.repair_input_tokens + excluded.repair_input_tokens,
  repair_output_tokens = t.repair_output_tokens + excluded.repair_output_tokens,
  repair_cached_input_tokens = t.repair_cached_input_tokens + excluded.repair_cached_input_tokens,
  repair_uncached_input_tokens = t.repair_uncached_input_tokens + excluded.repair_uncached_input_tokens;
END
$fn$;

CREATE OR REPLACE FUNCTION guardtrace_alert_minutes_remove(projects uuid[], ids text[]) RETURNS int
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
    0 AS rejections_unfixed, 0::float8 AS input_tokens, 0::float8 AS output_tokens, 0::float8 AS cached_input_tokens,
    0::float8 AS uncached_input_tokens
  FROM att
  UNION ALL
  SELECT project_id, date_trunc('minute', alert_unfixed_at), tool_name, failure_class, '', 0, 0, 0, 0, 0, 1, 0, 0, 0, 0
  FROM att WHERE alert_unfixed_at IS NOT NULL
  UNION ALL
  SELECT m.project_id, date_trunc('minute', m.started_at), coalesce(r.tool_name, ''), coalesce(r.failure_class, m.repair_failure_class, ''),
    coalesce(m.model, ''), 0, 0, 0, 0, 0, 0, m.input_tokens, m.output_tokens, m.cached_input_tokens, greatest(m.input_tokens - m.cached_input_tokens, 0)
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
    sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens, sum(cached_input_tokens) AS cached_input_tokens,
    sum(uncached_input_tokens) AS uncached_input_tokens
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
    repair_uncached_input_tokens = a.repair_uncached_input_tokens - l.uncached_input_tokens
  FROM l
  WHERE a.project_id = l.project_id AND a.minute = l.minute AND a.tool_name = l.tool_name AND a.failure_class = l.failure_class
    AND a.model = l.model
  RETURNING a.project_id, a.minute, a.tool_name, a.failure_class, a.model,
    a.attempts = 0 AND abs(a.weighted_attempts) < 1e-9 AND a.failed_attempts = 0 AND a.escalations = 0 AND a.exhausted = 0
      AND a.rejections_unfixed = 0 AND a.repair_input_tokens = 0 AND a.repair_output_tokens = 0 AND a.repair_cached_input_tokens = 0
      AND a.repair_uncached_input_tokens = 0 AS zero
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
