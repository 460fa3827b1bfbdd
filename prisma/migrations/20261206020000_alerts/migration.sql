-- CreateTable
CREATE TABLE "alert_minutes" (
    "project_id" UUID NOT NULL,
    "minute" TIMESTAMPTZ(6) NOT NULL,
    "tool_name" TEXT NOT NULL,
    "failure_class" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "escalations" INTEGER NOT NULL DEFAULT 0,
    "exhausted" INTEGER NOT NULL DEFAULT 0,
    "rejections_unfixed" INTEGER NOT NULL DEFAULT 0,
    "repair_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "repair_output_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "repair_cached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "worst_session_id" TEXT,
    "worst_failures" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "alert_minutes_pkey" PRIMARY KEY ("project_id","minute","tool_name","failure_class","model")
);

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "failure_class" TEXT,
    "tool_name" TEXT,
    "window_minutes" INTEGER NOT NULL,
    "comparison" TEXT NOT NULL DEFAULT 'gte',
    "threshold" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "webhook_url" TEXT NOT NULL,
    "format" TEXT NOT NULL DEFAULT 'generic',
    "secret" TEXT NOT NULL,
    "muted" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_evaluated_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_states" (
    "rule_id" UUID NOT NULL,
    "subject" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "last_value" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "alert_states_pkey" PRIMARY KEY ("rule_id","subject")
);

-- CreateTable
CREATE TABLE "alert_events" (
    "id" UUID NOT NULL,
    "rule_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(3) NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "threshold" DOUBLE PRECISION NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "alert_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "last_attempt_at" TIMESTAMPTZ(3),
    "next_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "alert_minutes_minute_idx" ON "alert_minutes"("minute");

-- CreateIndex
CREATE INDEX "alert_rules_project_id_idx" ON "alert_rules"("project_id");

-- CreateIndex
CREATE INDEX "alert_events_rule_id_at_idx" ON "alert_events"("rule_id", "at" DESC);

-- CreateIndex
CREATE INDEX "alert_events_project_id_at_idx" ON "alert_events"("project_id", "at" DESC);

-- CreateIndex
CREATE INDEX "alert_deliveries_status_next_attempt_at_idx" ON "alert_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_deliveries_project_id_created_at_idx" ON "alert_deliveries"("project_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_states" ADD CONSTRAINT "alert_states_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "alert_events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

