-- AlterTable
ALTER TABLE "memory_record_versions" ADD COLUMN     "searched_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "memory_record_versions_searched_at_idx" ON "memory_record_versions"("searched_at");
