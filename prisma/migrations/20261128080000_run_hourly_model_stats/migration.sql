-- CreateTable
CREATE TABLE "run_hourly_model_stats" (
    "workspace_id" TEXT NOT NULL,
    "model_key" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "agent_id" TEXT NOT NULL,
    "waiting" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "failure_codes" JSONB NOT NULL DEFAULT '{}',
    "durations" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "run_hourly_model_stats_pkey" PRIMARY KEY ("workspace_id","model_key","hour","agent_id")
);

-- The dashboards' hourly roll-ups by model (docs/operations.md, "Dashboard statistics: hourly roll-ups"):
-- what run_hourly_stats holds per agent, per model the run used as well. A run's models are those its
-- usage ledger rows name (usage_records, written by the seal, never deleted): a run that used two models
-- counts under both, as the model filter of the statistics has always counted it, so these rows are not
-- summed over models (the unfiltered reads read run_hourly_stats).

-- Rebuilds both roll-ups of one workspace (or of all, given NULL) from the runs and the usage ledger: as
-- before for run_hourly_stats, and the same counts per model for run_hourly_model_stats. Both tables are
-- locked against the writers' upserts while they are rebuilt (the writers write both in one statement).
-- Model keys are never empty (models' keys are validated), so '' marks the agent roll-ups' rows here.
CREATE OR REPLACE FUNCTION wsa_rebuild_run_rollups(ws text) RETURNS void
  LANGUAGE sql VOLATILE
  AS $$
    LOCK TABLE run_hourly_stats, run_hourly_model_stats IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM run_hourly_stats WHERE ws IS NULL OR workspace_id = ws;
    DELETE FROM run_hourly_model_stats WHERE ws IS NULL OR workspace_id = ws;
    -- One statement: each counted run's row (under '' for the agent roll-ups, and once per model it
    -- used under the model's key), their sums per roll-up row, written to the table each belongs to.
    WITH counted AS (
      SELECT * FROM runs r WHERE r.status IN ('waiting', 'completed', 'failed', 'cancelled') AND (ws IS NULL OR r.workspace_id = ws)
    ), run_rows AS MATERIALIZED (
      SELECT r.workspace_id, m.model_key, date_trunc('hour', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, r.agent_id, r.status,
        CASE WHEN r.status = 'failed' THEN coalesce(r.failure->>'code', 'unknown') END AS code,
        CASE WHEN r.started_at IS NOT NULL AND r.sealed_at IS NOT NULL
          THEN wsa_duration_bucket(extract(epoch FROM r.sealed_at - r.started_at) * 1000) END AS bucket
      FROM (
        SELECT id AS run_id, '' AS model_key FROM counted
        UNION ALL
        SELECT DISTINCT u.run_id, u.model_key FROM usage_records u JOIN counted ON counted.id = u.run_id) AS m
      JOIN counted r ON r.id = m.run_id
    ), sums AS MATERIALIZED (
      SELECT c.workspace_id, c.model_key, c.hour, c.agent_id, c.waiting, c.completed, c.failed, c.cancelled,
        coalesce(f.codes, '{}'::jsonb) AS failure_codes, coalesce(d.durations, '{}'::jsonb) AS durations
      FROM (
        SELECT workspace_id, model_key, hour, agent_id,
          (count(*) FILTER (WHERE status = 'waiting'))::integer AS waiting,
          (count(*) FILTER (WHERE status = 'completed'))::integer AS completed,
          (count(*) FILTER (WHERE status = 'failed'))::integer AS failed,
          (count(*) FILTER (WHERE status = 'cancelled'))::integer AS cancelled
        FROM run_rows GROUP BY 1, 2, 3, 4) AS c
      LEFT JOIN (
        SELECT workspace_id, model_key, hour, agent_id, jsonb_object_agg(code, n) AS codes FROM (
          SELECT workspace_id, model_key, hour, agent_id, code, count(*)::integer AS n
          FROM run_rows WHERE code IS NOT NULL GROUP BY 1, 2, 3, 4, 5) AS per_code
        GROUP BY 1, 2, 3, 4) AS f USING (workspace_id, model_key, hour, agent_id)
      LEFT JOIN (
        SELECT workspace_id, model_key, hour, agent_id, jsonb_object_agg(bucket::text, n) AS durations FROM (
          SELECT workspace_id, model_key, hour, agent_id, bucket, count(*)::integer AS n
          FROM run_rows WHERE bucket IS NOT NULL GROUP BY 1, 2, 3, 4, 5) AS per_bucket
        GROUP BY 1, 2, 3, 4) AS d USING (workspace_id, model_key, hour, agent_id)
    ), by_agent AS (
      INSERT INTO run_hourly_stats (workspace_id, agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations)
      SELECT workspace_id, agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations
      FROM sums WHERE model_key = ''
    )
    INSERT INTO run_hourly_model_stats (workspace_id, model_key, hour, agent_id, waiting, completed, failed, cancelled, failure_codes, durations)
    SELECT workspace_id, model_key, hour, agent_id, waiting, completed, failed, cancelled, failure_codes, durations
    FROM sums WHERE model_key <> '';
  $$;

-- Backfill: the model roll-ups of every run already stored (and the agent roll-ups again, alike).
SELECT wsa_rebuild_run_rollups(NULL);
