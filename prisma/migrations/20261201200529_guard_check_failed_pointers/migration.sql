-- AlterTable
ALTER TABLE "guard_checks" ADD COLUMN     "failed_pointers" JSONB;

