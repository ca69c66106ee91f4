-- AlterTable
ALTER TABLE "models" ADD COLUMN     "pricing" JSONB;
