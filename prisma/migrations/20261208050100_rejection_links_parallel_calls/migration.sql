-- Hand-written (Prisma cannot express functions); schema.prisma is unchanged.
-- guardtrace_link_corrections of migration 20261208050000_rejection_fixed_past_retries_in_code,
-- for the tool calls one model turn makes in parallel. The integrations (guardedAiSdk, the
-- LangChain middleware) name the first failure of a step on the next model turn; a rejection
-- beside it (the runtime's feedback or replan of another call of the same turn) had no repair turn,
-- so no correction and never "fixed", though the next turn answered it too. Such a rejection is
-- now repaired by the first model call after it when that call repairs a failure, is relinked
-- when a repair turn that names one of its siblings arrives in a later batch; its correction is
-- the first call after that turn, as for any rejection (pairing each sibling with a call of its
-- own tool among the turn's calls was tried: it depends on the next model call, which may arrive
-- later and would not relink it, so the stored link could differ by arrival order).
-- Rejections with no decision recorded, and those with a recorded repair turn: unchanged.
CREATE OR REPLACE FUNCTION guardtrace_link_corrections(projects uuid[], ids text[], sinces timestamptz[]) RETURNS void
LANGUAGE sql SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
WITH t AS (
  SELECT t.project_id, t.id, min(t.since) AS since, bool_or(t.since IS NULL) AS whole
  FROM unnest(projects, ids, sinces) AS t(project_id, id, since)
  GROUP BY t.project_id, t.id
),
-- The session's rows started since (the batch's new ones among them), read first and once: every
-- lookup below starts from one of them, so a batch costs the same at the end of a long session as
-- at its start. (Joined the other way round, the planner once read each attempt of the session and
-- scanned the session's tool calls for each: 378 ms a 100-span batch at 8,000 spans.)
ny AS MATERIALIZED (
  SELECT y.project_id, y.session_id, y.span_id, y.tool_call_span_id, y.number
  FROM t JOIN attempts y ON y.project_id = t.project_id AND y.session_id = t.id AND y.started_at >= t.since
  WHERE NOT t.whole
),
nk AS MATERIALIZED (
  SELECT k.project_id, k.session_id, k.span_id
  FROM t JOIN tool_calls k ON k.project_id = t.project_id AND k.session_id = t.id AND k.started_at >= t.since
  WHERE NOT t.whole
),
nm AS MATERIALIZED (
  SELECT m.project_id, m.session_id, m.repair_attempt_span_id, m.started_at
  FROM t JOIN model_calls m ON m.project_id = t.project_id AND m.session_id = t.id AND m.started_at >= t.since
  WHERE NOT t.whole AND m.repair_attempt_span_id IS NOT NULL
),
-- The attempts the batch can relink. Each lookup from a new row is by span id alone (OFFSET 0 keeps
-- the session's conditions out of it, so no index that scans the session can serve it), then
-- checked against the row's session and project.
r AS MATERIALIZED (
  -- A whole session: all of them.
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id
  WHERE t.whole AND x.outcome IS DISTINCT FROM 'success'
  UNION
  -- Failed attempts started since (the new ones among them).
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id AND x.started_at >= t.since
  WHERE NOT t.whole AND x.outcome IS DISTINCT FROM 'success'
  UNION
  -- The failed attempts before an attempt started since: their call went on (the one right
  -- before it, and a rejection whose next attempt was retried in code until this one).
  SELECT p.project_id, p.trace_id, p.span_id, p.session_id, p.tool_call_span_id, p.number, p.started_at, p.decision, p.outcome, p.tool_name, p.failure_class, p.feedback, p.repair_span_id, p.correction_span_id, p.correction_attempt, p.correction_started_at, p.fixed
  FROM ny n CROSS JOIN LATERAL (
    SELECT p.* FROM attempts p WHERE p.tool_call_span_id = n.tool_call_span_id AND p.number < n.number OFFSET 0
  ) p
  WHERE p.session_id = n.session_id AND p.project_id = n.project_id AND p.outcome IS DISTINCT FROM 'success'
  UNION
  -- Failed attempts a repair turn started since names.
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM nm m CROSS JOIN LATERAL (SELECT x.* FROM attempts x WHERE x.span_id = m.repair_attempt_span_id OFFSET 0) x
  WHERE x.session_id = m.session_id AND x.project_id = m.project_id AND x.outcome IS DISTINCT FROM 'success'
  UNION
  -- Rejections beside the one a repair turn started since names: the calls one model turn made in
  -- parallel, whose failures the next turn answers together (the integrations name the first).
  -- They started after the model call before the named one, and before the turn.
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM nm m
  CROSS JOIN LATERAL (SELECT a.started_at FROM attempts a WHERE a.span_id = m.repair_attempt_span_id AND a.session_id = m.session_id AND a.project_id = m.project_id LIMIT 1) named
  LEFT JOIN LATERAL (
    SELECT p.started_at FROM model_calls p
    WHERE p.project_id = m.project_id AND p.session_id = m.session_id AND p.started_at < named.started_at
    ORDER BY p.started_at DESC LIMIT 1
  ) prev ON true
  JOIN attempts x ON x.project_id = m.project_id AND x.session_id = m.session_id
    AND x.started_at >= coalesce(prev.started_at, '-infinity'::timestamptz) AND x.started_at < m.started_at
  WHERE x.outcome IS DISTINCT FROM 'success' AND x.decision IN ('reject_with_feedback', 'replan') AND x.repair_span_id IS NULL
  UNION
  -- Attempts corrected by a call (or an attempt of one) started since: a new row may come first.
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM nk k CROSS JOIN LATERAL (SELECT x.* FROM attempts x WHERE x.correction_span_id = k.span_id OFFSET 0) x
  WHERE x.session_id = k.session_id AND x.project_id = k.project_id
  UNION
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM ny y CROSS JOIN LATERAL (
    SELECT x.* FROM attempts x WHERE x.correction_span_id = coalesce(y.tool_call_span_id, y.span_id) OFFSET 0
  ) x
  WHERE x.session_id = y.session_id AND x.project_id = y.project_id
  UNION
  -- Open ones (partial index): repaired and not corrected yet, or with no decision recorded and not
  -- linked yet (any later model call or call may link them). A rejection nothing answered (no
  -- repair turn) is not open: only a row named above can link it.
  SELECT x.project_id, x.trace_id, x.span_id, x.session_id, x.tool_call_span_id, x.number, x.started_at, x.decision, x.outcome, x.tool_name, x.failure_class, x.feedback, x.repair_span_id, x.correction_span_id, x.correction_attempt, x.correction_started_at, x.fixed
  FROM t JOIN attempts x ON x.project_id = t.project_id AND x.session_id = t.id
  WHERE NOT t.whole AND x.fixed IS NULL AND x.outcome IS DISTINCT FROM 'success'
    AND (x.repair_span_id IS NOT NULL OR x.decision IS NULL)
),
linked AS (
  SELECT r.*, coalesce(e.span_id, i.span_id) AS new_repair,
    CASE WHEN n.number IS NOT NULL THEN r.tool_call_span_id ELSE c.call_span END AS new_span,
    CASE WHEN n.number IS NOT NULL THEN n.number ELSE f.number END AS new_attempt,
    CASE WHEN n.number IS NOT NULL THEN n.started_at ELSE c.call_started END AS new_started,
    -- Fixed: the correction went through. A correction that failed transiently and was retried in
    -- code (retry_backoff: no model turn) is judged by the attempt its retries ended at; null while
    -- they have not ended yet (a later batch brings it).
    CASE WHEN n.number IS NOT NULL THEN
        CASE WHEN n.outcome IS NOT DISTINCT FROM 'success' OR n.decision IS DISTINCT FROM 'retry_backoff' THEN n.outcome IS NOT DISTINCT FROM 'success'
          WHEN nf.number IS NOT NULL THEN nf.outcome IS NOT DISTINCT FROM 'success' END
      WHEN c.call_span IS NOT NULL THEN
        CASE WHEN f.number IS NULL THEN o.outcome IS NOT DISTINCT FROM 'success'
          WHEN f.outcome IS NOT DISTINCT FROM 'success' OR f.decision IS DISTINCT FROM 'retry_backoff' THEN f.outcome IS NOT DISTINCT FROM 'success'
          WHEN ff.number IS NOT NULL THEN ff.outcome IS NOT DISTINCT FROM 'success' END
    END AS new_fixed
  FROM r
  -- 1. The same call's next attempt.
  LEFT JOIN LATERAL (
    SELECT n.number, n.started_at, n.outcome, n.decision
    FROM (SELECT n.* FROM attempts n WHERE n.tool_call_span_id = r.tool_call_span_id AND n.number = r.number + 1 OFFSET 0) n
    WHERE n.session_id = r.session_id AND n.project_id = r.project_id
    ORDER BY n.trace_id LIMIT 1
  ) n ON true
  -- Where the next attempt's retries in code ended: the first later attempt not retried in code.
  LEFT JOIN LATERAL (
    SELECT y.number, y.outcome
    FROM (
      SELECT y.* FROM attempts y
      WHERE n.decision = 'retry_backoff' AND n.outcome IS DISTINCT FROM 'success' AND y.tool_call_span_id = r.tool_call_span_id AND y.number > n.number OFFSET 0
    ) y
    WHERE y.session_id = r.session_id AND y.project_id = r.project_id
      AND (y.outcome IS NOT DISTINCT FROM 'success' OR y.decision IS DISTINCT FROM 'retry_backoff')
    ORDER BY y.number, y.started_at LIMIT 1
  ) nf ON true
  -- The repair turn: recorded, else the first model call after the rejection: with no decision
  -- recorded, whatever it is; for a rejection of the runtime's (feedback or a replan), when that
  -- call repairs a failure (names an attempt or a class: a rejection beside the one it names,
  -- calls made in parallel).
  LEFT JOIN LATERAL (
    SELECT m.span_id, m.started_at
    FROM (SELECT m.* FROM model_calls m WHERE m.repair_attempt_span_id = r.span_id OFFSET 0) m
    WHERE m.session_id = r.session_id AND m.project_id = r.project_id
    ORDER BY m.started_at, m.span_id LIMIT 1
  ) e ON true
  LEFT JOIN LATERAL (
    SELECT m.span_id, m.started_at FROM (
      SELECT m.span_id, m.started_at, m.repair_attempt_span_id, m.repair_failure_class FROM model_calls m
      WHERE e.span_id IS NULL AND (r.decision IS NULL OR r.decision IN ('reject_with_feedback', 'replan'))
        AND m.project_id = r.project_id AND m.session_id = r.session_id AND m.started_at > r.started_at
      ORDER BY m.started_at, m.span_id LIMIT 1
    ) m
    WHERE r.decision IS NULL OR m.repair_attempt_span_id IS NOT NULL OR m.repair_failure_class IS NOT NULL
  ) i ON true
  -- 2. The first call started at or after the repair turn (by its span, or by an attempt of it).
  LEFT JOIN LATERAL (
    SELECT u.call_span, u.call_started FROM (
      (SELECT c.span_id AS call_span, c.started_at AS call_started FROM tool_calls c
       WHERE n.number IS NULL AND c.project_id = r.project_id AND c.session_id = r.session_id
         AND c.started_at >= coalesce(e.started_at, i.started_at) AND c.span_id IS DISTINCT FROM r.tool_call_span_id
       ORDER BY c.started_at, c.span_id LIMIT 1)
      UNION ALL
      -- A call's first attempt only: a later one continues a call that started earlier (derived
      -- rows keep milliseconds, so it may share the repair turn's millisecond).
      (SELECT coalesce(y.tool_call_span_id, y.span_id), y.started_at FROM attempts y
       WHERE n.number IS NULL AND y.project_id = r.project_id AND y.session_id = r.session_id AND y.number = 1
         AND y.started_at >= coalesce(e.started_at, i.started_at)
         AND coalesce(y.tool_call_span_id, y.span_id) IS DISTINCT FROM r.tool_call_span_id
       ORDER BY y.started_at, y.span_id LIMIT 1)
    ) u
    ORDER BY u.call_started, u.call_span LIMIT 1
  ) c ON true
  -- Its first attempt, else the call's own outcome.
  LEFT JOIN LATERAL (
    -- An attempt of the call (by its call's span id), or the call's span itself when it has none.
    SELECT y.number, y.outcome, y.started_at, y.decision
    FROM (
      SELECT y.* FROM attempts y WHERE c.call_span IS NOT NULL AND y.tool_call_span_id = c.call_span OFFSET 0
    ) y
    WHERE y.session_id = r.session_id AND y.project_id = r.project_id
    UNION ALL
    SELECT y.number, y.outcome, y.started_at, y.decision
    FROM (SELECT y.* FROM attempts y WHERE c.call_span IS NOT NULL AND y.span_id = c.call_span OFFSET 0) y
    WHERE y.tool_call_span_id IS NULL AND y.session_id = r.session_id AND y.project_id = r.project_id
    ORDER BY 1, 3 LIMIT 1
  ) f ON true
  -- Where the correcting call's first attempt's retries in code ended (as nf for the same call).
  LEFT JOIN LATERAL (
    SELECT y.number, y.outcome
    FROM (
      SELECT y.* FROM attempts y
      WHERE f.decision = 'retry_backoff' AND f.outcome IS DISTINCT FROM 'success' AND y.tool_call_span_id = c.call_span AND y.number > f.number OFFSET 0
    ) y
    WHERE y.session_id = r.session_id AND y.project_id = r.project_id
      AND (y.outcome IS NOT DISTINCT FROM 'success' OR y.decision IS DISTINCT FROM 'retry_backoff')
    ORDER BY y.number, y.started_at LIMIT 1
  ) ff ON true
  LEFT JOIN LATERAL (
    SELECT k.outcome
    FROM (SELECT k.* FROM tool_calls k WHERE c.call_span IS NOT NULL AND f.number IS NULL AND k.span_id = c.call_span OFFSET 0) k
    WHERE k.session_id = r.session_id AND k.project_id = r.project_id
    LIMIT 1
  ) o ON true
),
changed AS (
  SELECT * FROM linked
  WHERE new_repair IS DISTINCT FROM repair_span_id OR new_span IS DISTINCT FROM correction_span_id
    OR new_attempt IS DISTINCT FROM correction_attempt OR new_started IS DISTINCT FROM correction_started_at
    OR new_fixed IS DISTINCT FROM fixed
),
stored AS (
  UPDATE attempts x SET repair_span_id = c.new_repair, correction_span_id = c.new_span,
    correction_attempt = c.new_attempt, correction_started_at = c.new_started, fixed = c.new_fixed
  FROM changed c
  WHERE x.span_id = c.span_id AND x.trace_id = c.trace_id AND x.project_id = c.project_id
),
-- The change of each part's fixed count, under the key the rollup counts the rejection at.
delta AS (
  SELECT c.project_id, c.session_id, (c.started_at AT TIME ZONE 'UTC')::date AS day,
    coalesce(c.tool_name, tc.tool_name, '') AS tool_name, coalesce(c.failure_class, '') AS failure_class,
    guardtrace_feedback_template(c.feedback) AS feedback_template,
    sum((c.new_fixed IS TRUE)::int - (c.fixed IS TRUE)::int)::int AS fixed
  FROM changed c
  LEFT JOIN LATERAL (
    SELECT k.tool_name FROM tool_calls k
    WHERE c.tool_name IS NULL AND k.span_id = c.tool_call_span_id AND k.trace_id = c.trace_id AND k.project_id = c.project_id
    LIMIT 1
  ) tc ON true
  -- Analytics counts the links of rejections (failed attempts whose feedback went back to the model).
  WHERE (c.new_fixed IS TRUE) <> (c.fixed IS TRUE)
    AND (c.decision IN ('reject_with_feedback', 'replan') OR (c.decision IS NULL AND c.outcome IS DISTINCT FROM 'success'))
  GROUP BY 1, 2, 3, 4, 5, 6
)
UPDATE analytics_session_parts p SET rejections_fixed = p.rejections_fixed + d.fixed
FROM delta d
WHERE p.project_id = d.project_id AND p.session_id = d.session_id AND p.day = d.day AND p.tool_name = d.tool_name
  AND p.failure_class = d.failure_class AND p.feedback_template = d.feedback_template AND d.fixed <> 0
$fn$;
