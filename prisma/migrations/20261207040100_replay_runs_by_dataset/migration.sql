-- CreateIndex
CREATE INDEX "replay_runs_dataset_id_idx" ON "replay_runs"("dataset_id");

