-- CreateTable
CREATE TABLE "analytics_model_daily" (
    "project_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "tool_name" TEXT NOT NULL,
    "failure_class" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "output_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_model_daily_pkey" PRIMARY KEY ("project_id","day","tool_name","failure_class","model")
);

-- CreateTable
CREATE TABLE "analytics_model_session_parts" (
    "project_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "tool_name" TEXT NOT NULL,
    "failure_class" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "output_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_model_session_parts_pkey" PRIMARY KEY ("project_id","session_id","day","tool_name","failure_class","model")
);

