-- AlterTable
ALTER TABLE "tool_calls" ADD COLUMN     "definition_hash" VARCHAR(16);

-- CreateTable
CREATE TABLE "tool_definitions" (
    "project_id" UUID NOT NULL,
    "hash" VARCHAR(16) NOT NULL,
    "tool_name" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "first_seen_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "tool_definitions_pkey" PRIMARY KEY ("project_id","hash")
);


-- A tool's definition (guardtrace.tool.definition, JSON of ToolDefinitionSummary, sent on the first
-- call of each tool in a session) kept once per project and hash, the first seen winning. Only
-- tool call spans carrying one run the function (the WHEN clause is checked first); a summary that
-- is no JSON object (cut, hand-made) or a hash that is no 16 hex characters is skipped: the span
-- itself is stored all the same.
CREATE FUNCTION guardtrace_tool_definition() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  hash text := NEW.attributes->>'guardtrace.tool.definition.hash';
  summary jsonb;
BEGIN
  IF hash IS NULL OR hash !~ '^[0-9a-f]{16}$' THEN RETURN NULL; END IF;
  BEGIN
    summary := (NEW.attributes->>'guardtrace.tool.definition')::jsonb;
  EXCEPTION WHEN invalid_text_representation THEN
    RETURN NULL;
  END;
  IF jsonb_typeof(summary) IS DISTINCT FROM 'object' THEN RETURN NULL; END IF;
  INSERT INTO "tool_definitions" ("project_id", "hash", "tool_name", "summary", "first_seen_at")
  VALUES (NEW.project_id, hash, coalesce(summary->>'tool', NEW.attributes->>'gen_ai.tool.name', ''), summary, NEW.start_time)
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $fn$;

CREATE TRIGGER spans_tool_definition AFTER INSERT ON "spans" FOR EACH ROW
  WHEN (NEW.role = 'tool_call' AND NEW.attributes ? 'guardtrace.tool.definition')
  EXECUTE FUNCTION guardtrace_tool_definition();
