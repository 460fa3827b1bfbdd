-- Schema that Prisma's schema language cannot express: expression and trigram indexes, the
-- triggers that keep the explorer's search text, and the session totals' functions.
-- Each statement here is also in a migration under prisma/migrations (written by hand there);
-- the drift test (tools/prisma-migrate/src/drift.test.ts) applies this file after the SQL
-- Prisma derives from schema.prisma, so both descriptions must still give the same database.
-- Keep the expressions identical to apps/web/src/server/queries/session-sort.ts: the planner
-- only uses an expression index for the very same expression.

-- Trigram matching (ILIKE '%text%' through a GIN index); ships with Postgres' contrib modules.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- The sessions explorer's sorts: (project, sort value, id) so keyset pages are index range scans.
CREATE INDEX "sessions_sort_agent_idx" ON "sessions"("project_id", (coalesce("agent_name", '')), "id");
CREATE INDEX "sessions_sort_user_idx" ON "sessions"("project_id", (coalesce("user_id", '')), "id");
CREATE INDEX "sessions_sort_status_idx" ON "sessions"("project_id", (coalesce("outcome", '')), "id");
CREATE INDEX "sessions_sort_duration_idx" ON "sessions"("project_id", (coalesce(extract(epoch from ("ended_at" - "started_at")), -1)), "id");
CREATE INDEX "sessions_sort_tool_calls_idx" ON "sessions"("project_id", (("tool_call_count" * "sampling_weight")), "id");
CREATE INDEX "sessions_sort_attempts_idx" ON "sessions"("project_id", (("attempt_count" * "sampling_weight")), "id");
CREATE INDEX "sessions_sort_retry_rate_idx" ON "sessions"("project_id", (CASE WHEN "tool_call_count" > 0 THEN greatest("attempt_count" - "tool_call_count", 0)::float8 / "tool_call_count" ELSE 0 END), "id");
CREATE INDEX "sessions_sort_tokens_idx" ON "sessions"("project_id", ((("input_tokens" + "output_tokens") * "sampling_weight")), "id");
-- The sessions held at weight 0 for a sampling decision (analytics' stored count leaves them out, as the explorer does).
CREATE INDEX "sessions_held_idx" ON "sessions"("project_id", "started_at") WHERE "sampling_weight" = 0;

-- A repair turn by its span id, and the repair turns of an attempt (the analytics rollup's
-- per-batch update): partial indexes, over the model calls that repair something only.
CREATE INDEX "model_calls_repair_span_idx" ON "model_calls"("span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL OR "repair_failure_class" IS NOT NULL;
CREATE INDEX "model_calls_repair_attempt_idx" ON "model_calls"("repair_attempt_span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL;

-- A session's open failed attempts: repaired and not corrected yet, or failed with no decision
-- recorded and not linked yet (guardtrace_link_corrections, migration rejection_links_every_failed_attempt).
CREATE INDEX "attempts_open_failures_idx" ON "attempts"("project_id", "session_id")
  WHERE "fixed" IS NULL AND "outcome" IS DISTINCT FROM 'success' AND ("repair_span_id" IS NOT NULL OR "decision" IS NULL);
-- The rejections whose count in alert_minutes.rejections_unfixed is not where their link says
-- (guardtrace_update_alert_minutes, migration alert_minutes_rejections_relinked, moves and clears them).
CREATE INDEX "attempts_alert_unfixed_moved_idx" ON "attempts"("project_id", "session_id")
  WHERE "alert_unfixed_at" IS DISTINCT FROM (CASE WHEN "fixed" IS FALSE AND "correction_started_at" IS NOT NULL
    AND ("decision" IN ('reject_with_feedback', 'replan') OR ("decision" IS NULL AND "outcome" IS DISTINCT FROM 'success'))
    THEN "correction_started_at" END);
-- Rejection effectiveness over a window (analytics), read from the session parts that hold rejections.
CREATE INDEX "analytics_session_parts_rejections_idx" ON "analytics_session_parts"("project_id", "day")
  INCLUDE ("tool_name", "failure_class", "feedback_template", "rejections", "rejections_fixed")
  WHERE "rejections" > 0;

-- The explorer's free text: one trigram index over each session's text (session_search), kept
-- by statement triggers on attempts, instead of one over every attempt: a term is then
-- matched once per session, and counting matching sessions reads each session once.
CREATE INDEX "session_search_text_trgm_idx" ON "session_search" USING gin ("text" gin_trgm_ops);

-- Appends the text of the attempts one statement inserted to the last chunk of each of their
-- sessions, or starts the session's next chunk once the last one holds 8 KB: a long session
-- sent in many batches rewrites at most 8 KB a batch, never all of its text. Rows an
-- INSERT ... ON CONFLICT DO NOTHING skipped are not in `added`, so a re-sent span adds nothing.
CREATE FUNCTION guardtrace_session_search_append() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO session_search AS d (project_id, session_id, chunk, text)
  SELECT n.project_id, n.session_id,
    CASE WHEN l.chunk IS NULL THEN 0 WHEN l.len + length(n.text) < 8192 THEN l.chunk ELSE l.chunk + 1 END,
    n.text
  FROM (
    SELECT a.project_id, a.session_id,
      string_agg(coalesce(a.tool_name, '') || ' ' || coalesce(a.arguments, '') || ' ' || coalesce(a.feedback, ''), E'\n') AS text
    FROM added a GROUP BY a.project_id, a.session_id
  ) n
  LEFT JOIN LATERAL (
    SELECT c.chunk, length(c.text) AS len FROM session_search c
    WHERE c.project_id = n.project_id AND c.session_id = n.session_id
    ORDER BY c.chunk DESC LIMIT 1
  ) l ON true
  ON CONFLICT (project_id, session_id, chunk) DO UPDATE SET text = d.text || E'\n' || EXCLUDED.text;
  RETURN NULL;
END $$;

-- The text of these sessions rebuilt from the attempts they still have (none once deleted).
CREATE FUNCTION guardtrace_session_search_rebuild(project_ids uuid[], session_ids text[]) RETURNS void LANGUAGE sql AS $$
  WITH s AS (SELECT DISTINCT p, id FROM unnest(project_ids, session_ids) AS t(p, id)),
  gone AS (DELETE FROM session_search d USING s WHERE d.project_id = s.p AND d.session_id = s.id)
  INSERT INTO session_search (project_id, session_id, chunk, text)
  SELECT a.project_id, a.session_id, 0,
    string_agg(coalesce(a.tool_name, '') || ' ' || coalesce(a.arguments, '') || ' ' || coalesce(a.feedback, ''), E'\n'
      ORDER BY a.started_at, a.span_id)
  FROM attempts a JOIN s ON a.project_id = s.p AND a.session_id = s.id
  GROUP BY a.project_id, a.session_id
  ON CONFLICT (project_id, session_id, chunk) DO UPDATE SET text = EXCLUDED.text;
$$;

CREATE FUNCTION guardtrace_session_search_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM guardtrace_session_search_rebuild(ARRAY(SELECT project_id FROM removed), ARRAY(SELECT session_id FROM removed));
  RETURN NULL;
END $$;

CREATE FUNCTION guardtrace_session_search_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Only sessions an attempt moved into or out of, or whose text columns changed: a correction
  -- link or an alert mark set on one attempt leaves its session's text as it is (rebuilding it
  -- read every attempt of the session: 78 ms a statement at 10,000 attempts).
  PERFORM guardtrace_session_search_rebuild(array_agg(c.project_id), array_agg(c.session_id))
  FROM (
    SELECT o.project_id, o.session_id FROM removed o
    WHERE NOT EXISTS (SELECT 1 FROM added n WHERE n.project_id = o.project_id AND n.trace_id = o.trace_id
      AND n.span_id = o.span_id AND n.session_id = o.session_id AND n.tool_name IS NOT DISTINCT FROM o.tool_name
      AND n.arguments IS NOT DISTINCT FROM o.arguments AND n.feedback IS NOT DISTINCT FROM o.feedback)
    UNION
    SELECT n.project_id, n.session_id FROM added n
    WHERE NOT EXISTS (SELECT 1 FROM removed o WHERE o.project_id = n.project_id AND o.trace_id = n.trace_id
      AND o.span_id = n.span_id AND o.session_id = n.session_id AND o.tool_name IS NOT DISTINCT FROM n.tool_name
      AND o.arguments IS NOT DISTINCT FROM n.arguments AND o.feedback IS NOT DISTINCT FROM n.feedback)
  ) AS c
  HAVING count(*) > 0;
  RETURN NULL;
END $$;

CREATE TRIGGER session_search_append AFTER INSERT ON "attempts"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_append();
CREATE TRIGGER session_search_removed AFTER DELETE ON "attempts"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_removed();
CREATE TRIGGER session_search_changed AFTER UPDATE ON "attempts"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_changed();

-- The weight a session is stored with: the rule of sessionSamplingWeight (@guardtrace/semconv),
-- mirrored here; apps/collector/test/session-totals-sql.test.ts compares both on every case.
CREATE OR REPLACE FUNCTION guardtrace_sampling_weight(failure boolean, smallest_kept float8, any_dropped boolean)
RETURNS float8 LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN failure THEN 1::float8 ELSE coalesce(smallest_kept, CASE WHEN any_dropped THEN 0::float8 END, 1::float8) END
$fn$;

-- The rows a session's totals are made of: each span ('s': its times, service, whether it is a
-- root, status, attributes) and each tool call ('c'), attempt ('a') and model call ('m': whether
-- it escalated, an attempt failed, a model call's tokens and whether it repairs an attempt, and
-- whether an attempt stands for its own tool call: one the instrumented library refused without
-- a span, stored under no tool call; the replay shows it under a stand-in call).
-- guardtrace_session_totals aggregates either source; these two only find the rows.

-- All the rows of each session (`projects[i]`, `ids[i]`), through the session indexes.
CREATE OR REPLACE FUNCTION guardtrace_session_rows_whole(projects uuid[], ids text[])
RETURNS TABLE (kind text, project_id uuid, id text, start_time timestamptz, end_time_unix_nano bigint,
  service_name text, is_root boolean, status_code int, attributes jsonb, escalated boolean, failed boolean,
  input_tokens int, output_tokens int, repair boolean, own_call boolean)
LANGUAGE sql STABLE SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
WITH t AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id FROM unnest(projects, ids) AS t(project_id, id)
)
SELECT 's', s.project_id, s.session_id, s.start_time, s.end_time_unix_nano, s.service_name, s.parent_span_id IS NULL,
  s.status_code, s.attributes, false, false, 0, 0, false, false
FROM t JOIN spans s ON s.project_id = t.project_id AND s.session_id = t.id
UNION ALL
SELECT 'c', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision IN ('escalate_human', 'fail_reconcile'), false, 0, 0, false, false
FROM t JOIN tool_calls d ON d.project_id = t.project_id AND d.session_id = t.id
UNION ALL
SELECT 'a', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human',
  d.outcome IS DISTINCT FROM 'success', 0, 0, false, d.tool_call_span_id IS NULL
FROM t JOIN attempts d ON d.project_id = t.project_id AND d.session_id = t.id
UNION ALL
SELECT 'm', d.project_id, d.session_id, NULL, NULL, NULL, NULL, NULL, NULL, false, false, d.input_tokens, d.output_tokens,
  d.repair_attempt_span_id IS NOT NULL OR d.repair_failure_class IS NOT NULL, false
FROM t JOIN model_calls d ON d.project_id = t.project_id AND d.session_id = t.id
$fn$;

-- The rows one write transaction listed by key, each naming its session by position
-- (`row_sessions`, 1-based, into `projects`/`ids`), its table (`row_kinds`), its own start time
-- (`row_times`: a span's start_time, a derived row's started_at), for a span its trace's start
-- (`row_starts`, the spans' partition key), its trace and span ids: found one by one, so the cost
-- is the number of listed rows whatever the session's size.
--
-- Plans without statistics: a planner without statistics takes any equality for a selective key,
-- so a lookup by primary key alone may be planned through the session's index with only the
-- project as its condition (a scan of the project for each row, which looks as cheap); with the
-- session and the start time compared too, every index it may choose (the primary key; the
-- session's index, led by project, session and start time; a span id's) finds one entry, at any
-- size of the tables. So one plan, made at the first call on a connection, serves every call
-- (plan_cache_mode: planning each call cost more than the lookups of a 100-span batch); no table
-- is read whole (enable_seqscan).
CREATE OR REPLACE FUNCTION guardtrace_session_rows_listed(projects uuid[], ids text[], row_sessions int[],
  row_kinds text[], row_times timestamptz[], row_starts timestamptz[], row_traces text[], row_spans text[])
RETURNS TABLE (kind text, project_id uuid, id text, start_time timestamptz, end_time_unix_nano bigint,
  service_name text, is_root boolean, status_code int, attributes jsonb, escalated boolean, failed boolean,
  input_tokens int, output_tokens int, repair boolean, own_call boolean)
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan SET enable_seqscan = off AS $fn$
WITH r AS MATERIALIZED (
  SELECT DISTINCT t.project_id, t.id, r.kind, r.start_time, r.trace_start, r.trace_id, r.span_id
  FROM unnest(row_sessions, row_kinds, row_times, row_starts, row_traces, row_spans)
    AS r(n, kind, start_time, trace_start, trace_id, span_id)
  JOIN unnest(projects, ids) WITH ORDINALITY AS t(project_id, id, n) ON t.n = r.n
)
SELECT 's', r.project_id, r.id, s.start_time, s.end_time_unix_nano, s.service_name, s.parent_span_id IS NULL,
  s.status_code, s.attributes, false, false, 0, 0, false, false
FROM r JOIN spans s ON s.project_id = r.project_id AND s.trace_start = r.trace_start AND s.trace_id = r.trace_id
  AND s.span_id = r.span_id AND s.session_id = r.id AND s.start_time = r.start_time
WHERE r.kind = 's'
UNION ALL
SELECT 'c', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision IN ('escalate_human', 'fail_reconcile'), false, 0, 0, false, false
FROM r JOIN tool_calls d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'c'
UNION ALL
SELECT 'a', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, d.decision = 'escalate_human',
  d.outcome IS DISTINCT FROM 'success', 0, 0, false, d.tool_call_span_id IS NULL
FROM r JOIN attempts d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'a'
UNION ALL
SELECT 'm', r.project_id, r.id, NULL, NULL, NULL, NULL, NULL, NULL, false, false, d.input_tokens, d.output_tokens,
  d.repair_attempt_span_id IS NOT NULL OR d.repair_failure_class IS NOT NULL, false
FROM r JOIN model_calls d ON d.project_id = r.project_id AND d.trace_id = r.trace_id AND d.span_id = r.span_id
  AND d.session_id = r.id AND d.started_at = r.start_time
WHERE r.kind = 'm'
$fn$;

-- The totals of each session (`projects[i]`, `ids[i]`) over a set of its rows: `whole`, all of
-- them (guardtrace_session_rows_whole); else only the rows listed by key
-- (guardtrace_session_rows_listed). The one rule of a session's totals: the writer applies it to a
-- batch's rows and to whole sessions alike. A session with no row in the set gives no result row.
--
-- Besides the session row's values (agent_name .. sampling_weight), what merging these totals
-- into a stored row needs: when each first or last value was seen (agent_at, service_at,
-- outcome_attr_at), whether any user key was present and the one user all present keys agree on
-- (user_one, null when they differ or one is null), the outcome signals and the weight's parts.
-- error_span_count: the spans with status ERROR (has:errors in the explorer).
--
-- First values are by start time (a span that has the key, whatever its value, null included);
-- the outcome attribute is the one of the span that ended last (outcome_attr_at: its end, as
-- ended_at reads it), so a part of the session that a tool service ended inside the agent's never
-- overrides the agent's verdict. Spans that start (or end) at the same instant are ordered by
-- their value (nulls last), so a tie gives the same value in every recomputation. Outcome: the attribute, else `escalated` (a
-- tool call that ended escalate_human or fail_reconcile, as the SDK closes a session), `failed` (a root span with status
-- ERROR), `success` (a root span).
-- It reads no table itself: one plan serves every call (plan_cache_mode).
CREATE OR REPLACE FUNCTION guardtrace_session_totals(projects uuid[], ids text[], whole boolean, row_sessions int[],
  row_kinds text[], row_times timestamptz[], row_starts timestamptz[], row_traces text[], row_spans text[])
RETURNS TABLE (project_id uuid, id text, started_at timestamptz, ended_at timestamptz, span_count int,
  error_span_count int, agent_name text, agent_at timestamptz, service_name text, service_at timestamptz, user_id text, user_any boolean,
  user_one text, outcome_attr text, outcome_attr_at timestamptz, derived_outcome text, outcome text,
  tool_call_count int, attempt_count int, failed_attempt_count int, model_call_count int, input_tokens bigint,
  output_tokens bigint, repair_tokens bigint, escalated boolean, root_error boolean, failure boolean,
  kept_weight float8, dropped_weight boolean, sampling_weight float8)
LANGUAGE sql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
WITH x AS MATERIALIZED (
  SELECT * FROM guardtrace_session_rows_whole(projects, ids) WHERE whole
  UNION ALL
  SELECT * FROM guardtrace_session_rows_listed(projects, ids, row_sessions, row_kinds, row_times, row_starts, row_traces,
    row_spans)
  WHERE NOT whole
),
sp AS (
  SELECT s.project_id, s.id,
    min(s.start_time) AS started_at,
    max(timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond') AS ended_at,
    count(*)::int AS span_count,
    (count(*) FILTER (WHERE s.status_code = 2))::int AS error_span_count,
    (array_agg(s.attributes->>'gen_ai.agent.name' ORDER BY s.start_time, s.attributes->>'gen_ai.agent.name')
      FILTER (WHERE s.attributes ? 'gen_ai.agent.name'))[1] AS agent_name,
    min(s.start_time) FILTER (WHERE s.attributes ? 'gen_ai.agent.name') AS agent_at,
    (array_agg(s.service_name ORDER BY s.start_time, s.service_name) FILTER (WHERE s.service_name IS NOT NULL))[1] AS service_name,
    min(s.start_time) FILTER (WHERE s.service_name IS NOT NULL) AS service_at,
    -- Users: Guardtrace's own, else OpenTelemetry's user.id, else the Vercel AI SDK's, else
    -- Traceloop's user_id association property (userId: the AI SDK's, as Traceloop's SDK rewrites it).
    (array_agg(s.attributes->>'guardtrace.user.id' ORDER BY s.start_time, s.attributes->>'guardtrace.user.id')
      FILTER (WHERE s.attributes ? 'guardtrace.user.id'))[1] AS user_gt,
    bool_or(s.attributes ? 'guardtrace.user.id') AS user_gt_any,
    (array_agg(s.attributes->>'user.id' ORDER BY s.start_time, s.attributes->>'user.id') FILTER (WHERE s.attributes ? 'user.id'))[1] AS user_otel,
    bool_or(s.attributes ? 'user.id') AS user_otel_any,
    (array_agg(s.attributes->>'ai.telemetry.metadata.userId' ORDER BY s.start_time, s.attributes->>'ai.telemetry.metadata.userId')
      FILTER (WHERE s.attributes ? 'ai.telemetry.metadata.userId'))[1] AS user_ai,
    bool_or(s.attributes ? 'ai.telemetry.metadata.userId') AS user_ai_any,
    (array_agg(coalesce(s.attributes->>'traceloop.association.properties.user_id', s.attributes->>'traceloop.association.properties.userId') ORDER BY s.start_time, coalesce(s.attributes->>'traceloop.association.properties.user_id', s.attributes->>'traceloop.association.properties.userId'))
      FILTER (WHERE (s.attributes ? 'traceloop.association.properties.user_id' OR s.attributes ? 'traceloop.association.properties.userId')))[1] AS user_tl,
    bool_or(s.attributes ? 'traceloop.association.properties.user_id' OR s.attributes ? 'traceloop.association.properties.userId') AS user_tl_any,
    -- The verdict of the part that ended last (the agent's part ends after the tool services' it
    -- called, a conversation's last turn after the ones before it), by end time as ended_at reads it.
    (array_agg(s.attributes->>'guardtrace.session.outcome'
        ORDER BY timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond' DESC,
          s.attributes->>'guardtrace.session.outcome')
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome'))[1] AS outcome_attr,
    max(timestamptz 'epoch' + (s.end_time_unix_nano / 1000) * interval '1 microsecond')
      FILTER (WHERE s.attributes ? 'guardtrace.session.outcome') AS outcome_attr_at,
    min(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN nullif(greatest((s.attributes->>'guardtrace.sampling.weight')::float8, 0), 0) END) AS kept_weight,
    coalesce(bool_or(CASE WHEN jsonb_typeof(s.attributes->'guardtrace.sampling.weight') = 'number'
      THEN (s.attributes->>'guardtrace.sampling.weight')::float8 <= 0 END), false) AS dropped_weight,
    bool_or(s.is_root AND s.status_code = 2) AS root_error,
    bool_or(s.is_root) AS has_root
  FROM x s
  WHERE s.kind = 's'
  GROUP BY s.project_id, s.id
),
dr AS (
  SELECT d.project_id, d.id,
    -- A refused call's attempt is a call of its own (one attempt, not a retry of another).
    (count(*) FILTER (WHERE d.kind = 'c' OR (d.kind = 'a' AND d.own_call)))::int AS tool_call_count,
    (count(*) FILTER (WHERE d.kind = 'a'))::int AS attempt_count,
    (count(*) FILTER (WHERE d.kind = 'a' AND d.failed))::int AS failed_attempt_count,
    (count(*) FILTER (WHERE d.kind = 'm'))::int AS model_call_count,
    coalesce(sum(d.input_tokens), 0)::bigint AS input_tokens,
    coalesce(sum(d.output_tokens), 0)::bigint AS output_tokens,
    coalesce(sum(d.input_tokens + d.output_tokens) FILTER (WHERE d.repair), 0)::bigint AS repair_tokens,
    coalesce(bool_or(d.escalated), false) AS escalated
  FROM x d
  WHERE d.kind <> 's'
  GROUP BY d.project_id, d.id
),
v AS (
  SELECT sp.*, coalesce(dr.tool_call_count, 0) AS tool_call_count, coalesce(dr.attempt_count, 0) AS attempt_count,
    coalesce(dr.failed_attempt_count, 0) AS failed_attempt_count, coalesce(dr.model_call_count, 0) AS model_call_count,
    coalesce(dr.input_tokens, 0) AS input_tokens, coalesce(dr.output_tokens, 0) AS output_tokens,
    coalesce(dr.repair_tokens, 0) AS repair_tokens, coalesce(dr.escalated, false) AS escalated,
    CASE WHEN coalesce(dr.escalated, false) THEN 'escalated' WHEN sp.root_error THEN 'failed'
      WHEN sp.has_root THEN 'success' END AS derived_outcome,
    coalesce(dr.failed_attempt_count, 0) > 0 OR coalesce(dr.escalated, false) OR sp.root_error AS failure
  FROM sp LEFT JOIN dr ON dr.project_id = sp.project_id AND dr.id = sp.id
)
SELECT v.project_id, v.id, v.started_at, v.ended_at, v.span_count, v.error_span_count, v.agent_name, v.agent_at, v.service_name,
  v.service_at, coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl) AS user_id,
  v.user_gt_any OR v.user_otel_any OR v.user_ai_any OR v.user_tl_any AS user_any,
  CASE WHEN (NOT v.user_gt_any OR v.user_gt IS NOT NULL) AND (NOT v.user_otel_any OR v.user_otel IS NOT NULL)
      AND (NOT v.user_ai_any OR v.user_ai IS NOT NULL) AND (NOT v.user_tl_any OR v.user_tl IS NOT NULL)
      AND (NOT v.user_otel_any OR v.user_otel = coalesce(v.user_gt, v.user_otel))
      AND (NOT v.user_ai_any OR v.user_ai = coalesce(v.user_gt, v.user_otel, v.user_ai))
      AND (NOT v.user_tl_any OR v.user_tl = coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl))
    THEN coalesce(v.user_gt, v.user_otel, v.user_ai, v.user_tl) END AS user_one,
  v.outcome_attr, v.outcome_attr_at, v.derived_outcome, coalesce(v.outcome_attr, v.derived_outcome) AS outcome,
  v.tool_call_count, v.attempt_count, v.failed_attempt_count, v.model_call_count, v.input_tokens, v.output_tokens,
  v.repair_tokens, v.escalated, v.root_error, v.failure, v.kept_weight, v.dropped_weight,
  guardtrace_sampling_weight(v.failure, v.kept_weight, v.dropped_weight) AS sampling_weight
FROM v
$fn$;

-- The session rows of the sessions a write transaction touched, under their locks (so every other
-- writer of them has committed, or not started its totals yet), right whatever order spans arrive
-- in. `listed[i]`: every new row of session i in this transaction is among the `row_*` arrays (see
-- guardtrace_session_totals; `row_sessions` index these `projects`/`ids`). A listed session with
-- no row yet has no stored rows either (whoever stores a session's rows writes its row in the same
-- transaction, under the same lock): it gets its listed rows' totals as its row. A listed session
-- with a row gets them merged into it (counts added, times widened, first and last values compared
-- by time) when the stored row decides every value: so a long session costs the same per batch at
-- its end as at its start. Every other session (the row cannot tell, or not listed: re-keyed, or
-- written on the ON CONFLICT path) is recomputed from all its stored rows, by the same aggregate.
-- Sessions left with no spans (re-keyed away) are deleted. Returns the number of sessions written.
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

-- Every total of the given sessions recomputed from all their stored rows (tests, repairs): the
-- same update with no session listed.
CREATE OR REPLACE FUNCTION guardtrace_refresh_sessions(projects uuid[], ids text[]) RETURNS int
LANGUAGE sql AS $fn$
  SELECT guardtrace_update_sessions(projects, ids, array_fill(false, ARRAY[coalesce(cardinality(ids), 0)]),
    '{}', '{}', '{}', '{}', '{}', '{}')
$fn$;

-- Names that key an index, stored shortened when too long for a btree entry (migration
-- overlong_key_text): the collector's keyText rule (apps/collector/src/key-text.ts), and a
-- trigger applying it to the session columns guardtrace_session_totals fills from attributes.
CREATE OR REPLACE FUNCTION guardtrace_key_text(v text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  bytes int := octet_length(v);
  mark text;
  budget int;
  n int;
BEGIN
  IF v IS NULL OR bytes <= 256 THEN RETURN v; END IF;
  mark := '…[SHORTENED:' || bytes || ' bytes sha256:' || left(encode(sha256(convert_to(v, 'UTF8')), 'hex'), 16) || ']';
  budget := 256 - octet_length(mark);
  n := budget;
  WHILE octet_length(left(v, n)) > budget LOOP
    n := n - 1;
  END LOOP;
  RETURN left(v, n) || mark;
END $fn$;

-- A session's agent, user and outcome come from its spans' attributes (guardtrace_session_totals)
-- and key the explorer's sort indexes: shortened on their way into the row. Only rows holding a
-- value over 256 bytes run the function (the WHEN clause is checked first).
CREATE FUNCTION guardtrace_sessions_key_text() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.agent_name := guardtrace_key_text(NEW.agent_name);
  NEW.user_id := guardtrace_key_text(NEW.user_id);
  NEW.outcome := guardtrace_key_text(NEW.outcome);
  RETURN NEW;
END $fn$;

CREATE TRIGGER sessions_key_text BEFORE INSERT OR UPDATE ON "sessions" FOR EACH ROW
  WHEN (octet_length(NEW.agent_name) > 256 OR octet_length(NEW.user_id) > 256 OR octet_length(NEW.outcome) > 256)
  EXECUTE FUNCTION guardtrace_sessions_key_text();

-- A dataset item's text as it is copied (packages/db/src/datasets.ts): a recorded argument text
-- as JSON when it is JSON (null when it is not: cut or not captured), and a session id as a URL
-- path segment (its step path), every character but A-Z a-z 0-9 - _ . ~ percent-encoded as UTF-8.
CREATE FUNCTION guardtrace_try_jsonb(v text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  RETURN v::jsonb;
EXCEPTION WHEN invalid_text_representation OR untranslatable_character THEN
  RETURN NULL;
END $fn$;

CREATE FUNCTION guardtrace_uri_component(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE WHEN v ~ '^[A-Za-z0-9_.~-]*$' THEN v ELSE (
    SELECT string_agg(CASE WHEN ch ~ '^[A-Za-z0-9_.~-]$' THEN ch
      ELSE regexp_replace(upper(encode(convert_to(ch, 'UTF8'), 'hex')), '(..)', '%\1', 'g') END, '' ORDER BY n)
    FROM regexp_split_to_table(v, '') WITH ORDINALITY AS x(ch, n)) END
$fn$;
