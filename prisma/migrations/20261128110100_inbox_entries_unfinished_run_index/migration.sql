-- The seal finishes the inbox entries its run carried (`UPDATE inbox_entries … WHERE assigned_run_id = $run
-- AND finished_at IS NULL`, src/features/runs/run-lifecycle.ts), and no index led to them: every seal
-- read the whole table sequentially, which keeps every entry for INBOX_RETENTION_DAYS (90), so the
-- seal's cost grew with the number of runs of the last 90 days (docs/benchmarks.md, "What PostgreSQL
-- does per run"). Partial: only unfinished entries, a handful at any time; an entry leaves it when its
-- run seals (its update already touches indexed columns, so it was never a HOT update).
CREATE INDEX "inbox_entries_unfinished_run_idx" ON "inbox_entries"("assigned_run_id") WHERE "finished_at" IS NULL;
