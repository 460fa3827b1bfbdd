-- AlterTable
ALTER TABLE "attempts" ADD COLUMN     "auto_repair_kind" TEXT,
ADD COLUMN     "auto_repair_pointers" JSONB,
ADD COLUMN     "auto_repair_tool" TEXT;

