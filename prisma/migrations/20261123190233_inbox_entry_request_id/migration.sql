-- AlterTable
ALTER TABLE "inbox_entries" ADD COLUMN     "request_id" TEXT;
