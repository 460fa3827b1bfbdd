-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "clean_sample_rate" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "spans" (
    "project_id" UUID NOT NULL,
    "start_time" TIMESTAMPTZ(6) NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "parent_span_id" VARCHAR(16),
    "session_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" INTEGER NOT NULL DEFAULT 0,
    "start_time_unix_nano" BIGINT NOT NULL,
    "end_time_unix_nano" BIGINT NOT NULL,
    "status_code" INTEGER NOT NULL DEFAULT 0,
    "status_message" TEXT,
    "service_name" TEXT,
    "scope_name" TEXT,
    "scope_version" TEXT,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "resource" JSONB NOT NULL DEFAULT '{}',
    "events" JSONB NOT NULL DEFAULT '[]',
    "links" JSONB NOT NULL DEFAULT '[]',
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "spans_pkey" PRIMARY KEY ("project_id","start_time","trace_id","span_id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "project_id" UUID NOT NULL,
    "id" TEXT NOT NULL,
    "agent_name" TEXT,
    "service_name" TEXT,
    "user_id" TEXT,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "ended_at" TIMESTAMPTZ(6),
    "outcome" TEXT,
    "span_count" INTEGER NOT NULL DEFAULT 0,
    "tool_call_count" INTEGER NOT NULL DEFAULT 0,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "failed_attempt_count" INTEGER NOT NULL DEFAULT 0,
    "model_call_count" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" BIGINT NOT NULL DEFAULT 0,
    "output_tokens" BIGINT NOT NULL DEFAULT 0,
    "repair_tokens" BIGINT NOT NULL DEFAULT 0,
    "sampling_weight" DOUBLE PRECISION NOT NULL DEFAULT 1,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("project_id","id")
);

-- CreateTable
CREATE TABLE "tool_calls" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "parent_span_id" VARCHAR(16),
    "session_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "call_id" TEXT,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "outcome" TEXT,
    "failure_class" TEXT,
    "decision" TEXT,
    "attempts" INTEGER,
    "read_only" BOOLEAN,
    "idempotent" BOOLEAN,
    "destructive" BOOLEAN,
    "external" BOOLEAN,
    "idempotency_key" TEXT,
    "arguments" TEXT,

    CONSTRAINT "tool_calls_pkey" PRIMARY KEY ("project_id","trace_id","span_id")
);

-- CreateTable
CREATE TABLE "attempts" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "tool_call_span_id" VARCHAR(16),
    "session_id" TEXT NOT NULL,
    "tool_name" TEXT,
    "number" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "outcome" TEXT,
    "failure_class" TEXT,
    "decision" TEXT,
    "feedback" TEXT,
    "backoff_ms" DOUBLE PRECISION,
    "attempts_left" INTEGER,
    "session_retries_left" INTEGER,
    "budget_exhausted" TEXT,
    "arguments" TEXT,
    "error_type" TEXT,

    CONSTRAINT "attempts_pkey" PRIMARY KEY ("project_id","trace_id","span_id")
);

-- CreateTable
CREATE TABLE "guard_checks" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "attempt_span_id" VARCHAR(16),
    "session_id" TEXT NOT NULL,
    "guard_name" TEXT NOT NULL,
    "stage" TEXT,
    "verdict" TEXT NOT NULL,
    "reason" TEXT,
    "decision" TEXT,
    "failure_class" TEXT,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "duration_us" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "guard_checks_pkey" PRIMARY KEY ("project_id","trace_id","span_id")
);

-- CreateTable
CREATE TABLE "model_calls" (
    "project_id" UUID NOT NULL,
    "trace_id" VARCHAR(32) NOT NULL,
    "span_id" VARCHAR(16) NOT NULL,
    "parent_span_id" VARCHAR(16),
    "session_id" TEXT NOT NULL,
    "model" TEXT,
    "provider" TEXT,
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "duration_ms" DOUBLE PRECISION NOT NULL,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "repair_attempt_span_id" VARCHAR(16),
    "repair_failure_class" TEXT,

    CONSTRAINT "model_calls_pkey" PRIMARY KEY ("project_id","trace_id","span_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE INDEX "spans_project_id_trace_id_idx" ON "spans"("project_id", "trace_id");

-- CreateIndex
CREATE INDEX "spans_project_id_session_id_start_time_idx" ON "spans"("project_id", "session_id", "start_time");

-- CreateIndex
CREATE INDEX "sessions_project_id_started_at_idx" ON "sessions"("project_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "tool_calls_project_id_session_id_started_at_idx" ON "tool_calls"("project_id", "session_id", "started_at");

-- CreateIndex
CREATE INDEX "attempts_project_id_session_id_started_at_idx" ON "attempts"("project_id", "session_id", "started_at");

-- CreateIndex
CREATE INDEX "attempts_project_id_trace_id_tool_call_span_id_idx" ON "attempts"("project_id", "trace_id", "tool_call_span_id");

-- CreateIndex
CREATE INDEX "guard_checks_project_id_session_id_started_at_idx" ON "guard_checks"("project_id", "session_id", "started_at");

-- CreateIndex
CREATE INDEX "guard_checks_project_id_trace_id_attempt_span_id_idx" ON "guard_checks"("project_id", "trace_id", "attempt_span_id");

-- CreateIndex
CREATE INDEX "model_calls_project_id_session_id_started_at_idx" ON "model_calls"("project_id", "session_id", "started_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

