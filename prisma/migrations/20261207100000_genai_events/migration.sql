-- CreateTable
CREATE TABLE "genai_events" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "record_key" VARCHAR(64) NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "event_name" TEXT NOT NULL,
    "time_unix_nano" BIGINT NOT NULL,
    "time" TIMESTAMPTZ(6) NOT NULL,
    "body" JSONB,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "scope_name" TEXT,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "genai_events_pkey" PRIMARY KEY ("project_id","trace_id","span_id","record_key")
);

-- CreateIndex
CREATE INDEX "genai_events_project_id_time_idx" ON "genai_events"("project_id", "time");

