-- CreateTable
CREATE TABLE "session_search" (
    "project_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "chunk" INTEGER NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "session_search_pkey" PRIMARY KEY ("project_id","session_id","chunk")
);

-- CreateIndex
CREATE INDEX "attempts_project_id_tool_name_failure_class_session_id_idx" ON "attempts"("project_id", "tool_name", "failure_class", "session_id");

-- CreateIndex
CREATE INDEX "guard_checks_project_id_trace_id_attempt_span_id_idx" ON "guard_checks"("project_id", "trace_id", "attempt_span_id");


-- Written by hand (the same statements as prisma/unexpressible.sql): the session text of the
-- attempts already stored, then its trigram index and the triggers that keep it; the
-- per-attempt trigram index it replaces goes.
INSERT INTO "session_search" ("project_id", "session_id", "chunk", "text")
SELECT a.project_id, a.session_id, 0,
  string_agg(coalesce(a.tool_name, '') || ' ' || coalesce(a.arguments, '') || ' ' || coalesce(a.feedback, ''), E'\n'
    ORDER BY a.started_at, a.span_id)
FROM "attempts" a GROUP BY a.project_id, a.session_id;
DROP INDEX "attempts_search_trgm_idx";
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
