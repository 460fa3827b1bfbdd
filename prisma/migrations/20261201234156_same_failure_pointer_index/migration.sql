-- CreateIndex
CREATE INDEX "guard_checks_failed_pointers_idx" ON "guard_checks" USING GIN ("failed_pointers" jsonb_path_ops);

