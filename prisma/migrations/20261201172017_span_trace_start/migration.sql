-- Written by hand (Prisma's diff would add a NOT NULL column without values and a primary key
-- that leaves out the partition key). A span is stored once per (trace id, span id), whatever
-- start time a re-send carries: spans are partitioned by month of their trace's start time
-- (trace_start, the trace index's start_time, fixed when the trace is first stored), so the
-- primary key (project_id, trace_start, trace_id, span_id) holds one row per span id. Every
-- column, key and index keeps the name Prisma gives it; the drift test ignores partitions.

-- 1. Each trace's anchor: the earliest start time of its stored spans (a trace missing from
--    the index, none is expected, is added the way the previous migration filled it).
ALTER TABLE "traces" ADD COLUMN "start_time" TIMESTAMPTZ(6);

UPDATE "traces" t SET "start_time" = s."start"
FROM (SELECT "project_id", "trace_id", min("start_time") AS "start" FROM "spans" GROUP BY "project_id", "trace_id") s
WHERE t."project_id" = s."project_id" AND t."trace_id" = s."trace_id";

INSERT INTO "traces" ("project_id", "trace_id", "session_id", "start_time")
SELECT "project_id", "trace_id", coalesce(min("session_id") FILTER (WHERE "session_id" <> "trace_id"), "trace_id"), min("start_time")
FROM "spans"
GROUP BY "project_id", "trace_id"
ON CONFLICT ("project_id", "trace_id") DO NOTHING;

-- A trace with no span stored has nothing to anchor: its next span starts it again.
DELETE FROM "traces" WHERE "start_time" IS NULL;
ALTER TABLE "traces" ALTER COLUMN "start_time" SET NOT NULL;

-- 2. The old table and its partitions step aside (names and index names), so the new ones can
--    take the names Prisma and maintainSpanPartitions() use.
ALTER TABLE "spans" RENAME TO "spans_by_start";
ALTER INDEX "spans_pkey" RENAME TO "spans_by_start_pkey";
ALTER INDEX "spans_project_id_session_id_start_time_idx" RENAME TO "spans_by_start_session_idx";

DO $$
DECLARE
  p record;
  i record;
BEGIN
  FOR p IN
    SELECT c.relname AS name FROM pg_inherits h
    JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_class r ON r.oid = h.inhparent
    WHERE r.relname = 'spans_by_start'
  LOOP
    FOR i IN SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = p.name LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', i.indexname, left('old_' || i.indexname, 63));
    END LOOP;
    EXECUTE format('ALTER TABLE %I RENAME TO %I', p.name, left('old_' || p.name, 63));
  END LOOP;
END $$;

-- 3. The new table, partitioned by trace_start, with the same monthly partitions (same names
--    and bounds) and a default partition.
CREATE TABLE "spans" (
  LIKE "spans_by_start" INCLUDING DEFAULTS,
  "trace_start" TIMESTAMPTZ(6) NOT NULL
) PARTITION BY RANGE ("trace_start");
ALTER TABLE "spans" ADD CONSTRAINT "spans_pkey" PRIMARY KEY ("project_id", "trace_start", "trace_id", "span_id");
CREATE INDEX "spans_project_id_session_id_start_time_idx" ON "spans"("project_id", "session_id", "start_time");
CREATE TABLE "spans_default" PARTITION OF "spans" DEFAULT;

DO $$
DECLARE
  p record;
BEGIN
  FOR p IN
    SELECT substr(c.relname, 5) AS name, pg_get_expr(c.relpartbound, c.oid) AS bound FROM pg_inherits h
    JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_class r ON r.oid = h.inhparent
    WHERE r.relname = 'spans_by_start' AND c.relname <> 'old_spans_default'
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF "spans" %s', p.name, p.bound);
  END LOOP;
END $$;

-- 4. The rows, each span once: a span stored more than once (re-sent with another start time)
--    keeps its first-received copy.
INSERT INTO "spans"
SELECT DISTINCT ON (s."project_id", s."trace_id", s."span_id") s.*, t."start_time"
FROM "spans_by_start" s
JOIN "traces" t ON t."project_id" = s."project_id" AND t."trace_id" = s."trace_id"
ORDER BY s."project_id", s."trace_id", s."span_id", s."received_at", s."start_time";

DROP TABLE "spans_by_start";

-- 5. Sessions that counted a duplicate: their span count and times from the rows kept.
UPDATE "sessions" x SET "span_count" = c."n", "started_at" = c."started_at", "ended_at" = c."ended_at", "updated_at" = now()
FROM (
  SELECT "project_id", "session_id", count(*)::int AS "n", min("start_time") AS "started_at",
    max(timestamptz 'epoch' + ("end_time_unix_nano" / 1000) * interval '1 microsecond') AS "ended_at"
  FROM "spans" GROUP BY "project_id", "session_id"
) c
WHERE x."project_id" = c."project_id" AND x."id" = c."session_id" AND x."span_count" <> c."n";
