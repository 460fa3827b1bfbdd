-- AlterTable
ALTER TABLE "guard_checks" ADD COLUMN     "guardrail_results" JSONB;

