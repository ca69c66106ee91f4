-- The dashboards' aggregate reads (runStats, webhookStats; docs/api/stats.md) over a time range of one
-- workspace. Written by hand: Prisma's schema language cannot declare INCLUDE columns or a partial
-- index, so prisma/schema.prisma does not list these.
--
-- Runs by creation time, covering what the counts and duration percentiles read (status, agent,
-- start and seal): the read is an index-only range scan of the range, whatever the workspace's size.
CREATE INDEX "runs_workspace_id_created_at_stats_idx" ON "runs"("workspace_id", "created_at") INCLUDE ("status", "agent_id", "started_at", "sealed_at");

-- One agent's runs by creation time (its page's charts), covering the same columns.
CREATE INDEX "runs_workspace_id_agent_id_created_at_stats_idx" ON "runs"("workspace_id", "agent_id", "created_at") INCLUDE ("status", "started_at", "sealed_at");

-- Failed runs by creation time: the top failure codes read the failures (a JSON column) of failed runs
-- only. Partial: failed runs are a small share of all.
CREATE INDEX "runs_failed_created_at_idx" ON "runs"("workspace_id", "created_at") WHERE "status" = 'failed';

-- Webhook deliveries by workspace and creation time, covering status and the last attempt's latency.
CREATE INDEX "webhook_deliveries_workspace_id_created_at_stats_idx" ON "webhook_deliveries"("workspace_id", "created_at") INCLUDE ("status", "last_latency_ms");
