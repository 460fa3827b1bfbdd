-- Tool definitions are written by the collector (apps/collector/src/tool-definitions.ts): once per
-- project and hash from each write transaction, and not again once a collector has stored one,
-- instead of a row trigger on every tool call span that carried a summary (~20 µs of Postgres a
-- new session, apps/collector/bench/notes.md).
DROP TRIGGER spans_tool_definition ON "spans";
DROP FUNCTION guardtrace_tool_definition();

-- A text that is no JSON Postgres can store gives null, also when it escapes a NUL character
-- (\u0000: jsonb refuses it with untranslatable_character, which used to fail the statement).
CREATE OR REPLACE FUNCTION guardtrace_try_jsonb(v text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $fn$
BEGIN
  RETURN v::jsonb;
EXCEPTION WHEN invalid_text_representation OR untranslatable_character THEN
  RETURN NULL;
END $fn$;
