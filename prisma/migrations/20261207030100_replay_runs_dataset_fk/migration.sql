-- AddForeignKey
ALTER TABLE "replay_runs" ADD CONSTRAINT "replay_runs_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

