-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "handed_back" INTEGER NOT NULL DEFAULT 0;
