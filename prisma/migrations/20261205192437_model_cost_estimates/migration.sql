-- AlterTable
ALTER TABLE "model_calls" ADD COLUMN     "cached_input_tokens" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "model_prices" (
    "project_id" UUID NOT NULL,
    "model" TEXT NOT NULL,
    "input_per_mtok" DOUBLE PRECISION NOT NULL,
    "output_per_mtok" DOUBLE PRECISION NOT NULL,
    "cached_input_per_mtok" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "model_prices_pkey" PRIMARY KEY ("project_id","model")
);

-- AddForeignKey
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

