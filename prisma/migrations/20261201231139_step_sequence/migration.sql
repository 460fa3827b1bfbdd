-- AlterTable
ALTER TABLE "tool_calls" ADD COLUMN     "step_sequence" INTEGER;

-- AlterTable
ALTER TABLE "model_calls" ADD COLUMN     "step_sequence" INTEGER;

