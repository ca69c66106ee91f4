-- The child threads a run opened (its subagent calls and forks), oldest first: a run's items name
-- them (`continuation.observer`), so every read of a run's items looks them up. Without an index the
-- lookup read every thread of the workspace (18 ms at 100,000 threads). Partial: threads a user started
-- (most of them) have no origin run and stay out of it. Written by hand: the schema language cannot
-- declare a partial index.
CREATE INDEX "threads_origin_run_idx" ON "threads"("origin_run_id", "id") WHERE "origin_run_id" IS NOT NULL;
