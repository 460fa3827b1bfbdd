-- DropIndex
DROP INDEX "sessions_project_id_started_at_idx";

-- CreateIndex
CREATE INDEX "sessions_project_id_started_at_id_idx" ON "sessions"("project_id", "started_at", "id");

-- CreateIndex
CREATE INDEX "tool_calls_project_id_tool_name_session_id_idx" ON "tool_calls"("project_id", "tool_name", "session_id");


-- Written by hand: the same statements as prisma/unexpressible.sql (expression and trigram
-- indexes Prisma cannot express). On an external Postgres the role running migrations needs
-- the right to CREATE EXTENSION pg_trgm (docs/deployment.md).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "sessions_sort_agent_idx" ON "sessions"("project_id", (coalesce("agent_name", '')), "id");
CREATE INDEX "sessions_sort_user_idx" ON "sessions"("project_id", (coalesce("user_id", '')), "id");
CREATE INDEX "sessions_sort_status_idx" ON "sessions"("project_id", (coalesce("outcome", '')), "id");
CREATE INDEX "sessions_sort_duration_idx" ON "sessions"("project_id", (coalesce(extract(epoch from ("ended_at" - "started_at")), -1)), "id");
CREATE INDEX "sessions_sort_tool_calls_idx" ON "sessions"("project_id", (("tool_call_count" * "sampling_weight")), "id");
CREATE INDEX "sessions_sort_attempts_idx" ON "sessions"("project_id", (("attempt_count" * "sampling_weight")), "id");
CREATE INDEX "sessions_sort_retry_rate_idx" ON "sessions"("project_id", (CASE WHEN "tool_call_count" > 0 THEN greatest("attempt_count" - "tool_call_count", 0)::float8 / "tool_call_count" ELSE 0 END), "id");
CREATE INDEX "sessions_sort_tokens_idx" ON "sessions"("project_id", ((("input_tokens" + "output_tokens") * "sampling_weight")), "id");
CREATE INDEX "attempts_search_trgm_idx" ON "attempts" USING gin ((coalesce("tool_name", '') || ' ' || coalesce("arguments", '') || ' ' || coalesce("feedback", '')) gin_trgm_ops);
