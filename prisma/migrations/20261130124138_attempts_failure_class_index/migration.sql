-- CreateIndex
CREATE INDEX "attempts_project_id_failure_class_session_id_idx" ON "attempts"("project_id", "failure_class", "session_id");

