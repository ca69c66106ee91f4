-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "items_removed_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "run_data_purges" (
    "run_id" TEXT NOT NULL,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "run_data_purges_pkey" PRIMARY KEY ("run_id")
);

-- CreateIndex
CREATE INDEX "audit_events_created_at_idx" ON "audit_events"("created_at");

-- Run-item retention (RUN_ITEM_RETENTION_DAYS): sealed runs whose items are still kept, oldest seal
-- first, so each batch of the sweep reads the oldest candidates from the index instead of scanning the
-- runs. Partial: runs not sealed yet and runs whose items are gone stay out of it, so it only holds the
-- runs retention still has to look at. Written by hand: the schema language cannot declare a partial index.
CREATE INDEX "runs_items_kept_idx" ON "runs"("sealed_at", "id") WHERE "items_removed_at" IS NULL AND "sealed_at" IS NOT NULL;

-- Inbox retention (INBOX_RETENTION_DAYS): finished entries by when they finished. Pending and
-- assigned entries (not finished) are never deleted and stay out of the index.
CREATE INDEX "inbox_entries_finished_idx" ON "inbox_entries"("finished_at", "id") WHERE "finished_at" IS NOT NULL;
