-- AlterTable
ALTER TABLE "alert_minutes" ADD COLUMN     "weighted_attempts" DOUBLE PRECISION NOT NULL DEFAULT 0;

