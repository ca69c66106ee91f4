-- AlterTable
ALTER TABLE "workspaces" ADD COLUMN     "max_concurrent_runs" INTEGER;
