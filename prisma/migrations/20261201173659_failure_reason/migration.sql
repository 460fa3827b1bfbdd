-- AlterTable
ALTER TABLE "tool_calls" ADD COLUMN     "failure_reason" TEXT;

-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "failure_reason" TEXT;

