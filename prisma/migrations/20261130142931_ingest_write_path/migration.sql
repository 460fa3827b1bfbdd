-- DropIndex
DROP INDEX "spans_project_id_trace_id_idx";

-- DropIndex
DROP INDEX "attempts_project_id_trace_id_tool_call_span_id_idx";

-- DropIndex
DROP INDEX "guard_checks_project_id_trace_id_attempt_span_id_idx";

-- CreateTable
CREATE TABLE "traces" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "session_id" TEXT NOT NULL,

    CONSTRAINT "traces_pkey" PRIMARY KEY ("project_id","trace_id")
);

-- Written by hand: the traces of spans stored before this migration, each with the session its
-- spans without a conversation id went to (a conversation id found on its spans, else the trace id).
INSERT INTO "traces" ("project_id", "trace_id", "session_id")
SELECT "project_id", "trace_id", coalesce(min("session_id") FILTER (WHERE "session_id" <> "trace_id"), "trace_id")
FROM "spans"
GROUP BY "project_id", "trace_id";
