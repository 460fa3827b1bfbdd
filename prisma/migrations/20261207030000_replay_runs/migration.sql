-- CreateTable
CREATE TABLE "replay_runs" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "dataset_id" UUID NOT NULL,
    "label" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3) NOT NULL,
    "summary" JSONB NOT NULL,
    "options" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "replay_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "replay_run_results" (
    "run_id" UUID NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "item_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "change" TEXT NOT NULL,
    "tool" TEXT NOT NULL,
    "session_id" TEXT NOT NULL,
    "step_path" TEXT NOT NULL,
    "result" JSONB NOT NULL,

    CONSTRAINT "replay_run_results_pkey" PRIMARY KEY ("run_id","ordinal")
);

-- CreateIndex
CREATE INDEX "replay_runs_project_id_dataset_id_created_at_idx" ON "replay_runs"("project_id", "dataset_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "replay_run_results_run_id_change_ordinal_idx" ON "replay_run_results"("run_id", "change", "ordinal");

-- AddForeignKey
ALTER TABLE "replay_runs" ADD CONSTRAINT "replay_runs_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "replay_run_results" ADD CONSTRAINT "replay_run_results_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "replay_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

