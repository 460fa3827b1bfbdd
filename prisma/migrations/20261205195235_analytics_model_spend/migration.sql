-- CreateTable
CREATE TABLE "analytics_model_spend_daily" (
    "project_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "output_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_model_spend_daily_pkey" PRIMARY KEY ("project_id","day","model")
);

-- CreateTable
CREATE TABLE "analytics_model_session_spend" (
    "project_id" UUID NOT NULL,
    "session_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "model" TEXT NOT NULL,
    "input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "output_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "cached_input_tokens" DOUBLE PRECISION NOT NULL DEFAULT 0,

    CONSTRAINT "analytics_model_session_spend_pkey" PRIMARY KEY ("project_id","session_id","day","model")
);

