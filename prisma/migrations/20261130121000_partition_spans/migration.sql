-- Raw spans are partitioned by month of start_time so retention drops whole partitions.
-- Prisma's schema language cannot express partitioning: this migration is written by hand,
-- keeps every column, key and index name Prisma made, and the drift test ignores partitions.
-- Monthly partitions are created ahead of time by @guardtrace/db's maintainSpanPartitions();
-- spans outside them land in spans_default.

ALTER TABLE "spans" RENAME TO "spans_unpartitioned";
ALTER INDEX "spans_pkey" RENAME TO "spans_unpartitioned_pkey";
ALTER INDEX "spans_project_id_trace_id_idx" RENAME TO "spans_unpartitioned_trace_idx";
ALTER INDEX "spans_project_id_session_id_start_time_idx" RENAME TO "spans_unpartitioned_session_idx";

CREATE TABLE "spans" (LIKE "spans_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("start_time");
ALTER TABLE "spans" ADD CONSTRAINT "spans_pkey" PRIMARY KEY ("project_id","start_time","trace_id","span_id");
CREATE INDEX "spans_project_id_trace_id_idx" ON "spans"("project_id", "trace_id");
CREATE INDEX "spans_project_id_session_id_start_time_idx" ON "spans"("project_id", "session_id", "start_time");
CREATE TABLE "spans_default" PARTITION OF "spans" DEFAULT;

INSERT INTO "spans" SELECT * FROM "spans_unpartitioned";
DROP TABLE "spans_unpartitioned";
