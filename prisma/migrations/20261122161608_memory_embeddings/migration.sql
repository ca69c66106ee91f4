-- AlterTable
ALTER TABLE "memory_records" ADD COLUMN     "embedding" REAL[] DEFAULT ARRAY[]::REAL[];
