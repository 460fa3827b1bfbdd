-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "retention_days" INTEGER;

