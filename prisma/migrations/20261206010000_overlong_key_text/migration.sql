-- Hand-written (Prisma cannot express functions and triggers).
-- Names that key an index, stored shortened when too long for a btree entry: the same rule as the
-- collector's keyText (apps/collector/src/key-text.ts; test/overlong.test.ts compares both). The
-- longest prefix of whole characters that fits 256 bytes with the marker, then
-- `…[SHORTENED:<bytes> bytes sha256:<first 16 hex digits of the full value's SHA-256>]`.
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
