-- Schema that Prisma's schema language cannot express: expression and trigram indexes.
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

-- The explorer's free text over tool names, arguments and feedback of every attempt.
CREATE INDEX "attempts_search_trgm_idx" ON "attempts" USING gin ((coalesce("tool_name", '') || ' ' || coalesce("arguments", '') || ' ' || coalesce("feedback", '')) gin_trgm_ops);

-- A repair turn by its span id, and the repair turns of an attempt (the analytics rollup's
-- per-batch update): partial indexes, over the model calls that repair something only.
CREATE INDEX "model_calls_repair_span_idx" ON "model_calls"("span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL OR "repair_failure_class" IS NOT NULL;
CREATE INDEX "model_calls_repair_attempt_idx" ON "model_calls"("repair_attempt_span_id")
  WHERE "repair_attempt_span_id" IS NOT NULL;
