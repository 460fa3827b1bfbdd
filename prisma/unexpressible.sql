-- Schema that Prisma's schema language cannot express: expression and trigram indexes, and the
-- triggers that keep the explorer's search text.
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

-- A repair turn by its span id, and the repair turns of an attempt (the analytics rollup's
-- per-batch update): partial indexes, over the model calls that repair something only.
CREATE INDEX "model_calls_repair_span_idx" ON "model_calls"("span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL OR "repair_failure_class" IS NOT NULL;
CREATE INDEX "model_calls_repair_attempt_idx" ON "model_calls"("repair_attempt_span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL;

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
  PERFORM guardtrace_session_search_rebuild(
    ARRAY(SELECT project_id FROM removed UNION ALL SELECT project_id FROM added),
    ARRAY(SELECT session_id FROM removed UNION ALL SELECT session_id FROM added));
  RETURN NULL;
END $$;

CREATE TRIGGER session_search_append AFTER INSERT ON "attempts"
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_append();
CREATE TRIGGER session_search_removed AFTER DELETE ON "attempts"
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_removed();
CREATE TRIGGER session_search_changed AFTER UPDATE ON "attempts"
  REFERENCING OLD TABLE AS removed NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION guardtrace_session_search_changed();
