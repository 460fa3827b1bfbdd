-- CreateIndex
CREATE INDEX "analytics_session_parts_project_id_failure_class_tool_name__idx" ON "analytics_session_parts"("project_id", "failure_class", "tool_name", "day", "session_id");

