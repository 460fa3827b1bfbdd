-- AlterTable
ALTER TABLE "spans" ADD COLUMN     "role" TEXT;

