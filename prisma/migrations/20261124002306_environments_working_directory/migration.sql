-- AlterTable
ALTER TABLE "environments" ADD COLUMN     "failure_message" TEXT,
ADD COLUMN     "working_directory" TEXT;
