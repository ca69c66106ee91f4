-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "rate_limit" TEXT;

-- CreateTable
-- UNLOGGED (written by hand; the schema has no word for it): request counters are disposable, so a
-- counted request writes no WAL; after a crash the table is empty, which only restarts the windows.
CREATE UNLOGGED TABLE "rate_limit_counters" (
    "subject" TEXT NOT NULL,
    "window_end" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("subject","window_end")
);

-- CreateIndex
CREATE INDEX "rate_limit_counters_window_end_idx" ON "rate_limit_counters"("window_end");
