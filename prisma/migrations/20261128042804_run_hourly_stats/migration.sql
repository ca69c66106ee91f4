-- CreateTable
CREATE TABLE "run_hourly_stats" (
    "workspace_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "waiting" INTEGER NOT NULL DEFAULT 0,
    "completed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "cancelled" INTEGER NOT NULL DEFAULT 0,
    "failure_codes" JSONB NOT NULL DEFAULT '{}',
    "durations" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "run_hourly_stats_pkey" PRIMARY KEY ("workspace_id","hour","agent_id")
);

-- CreateIndex
CREATE INDEX "run_hourly_stats_workspace_id_agent_id_hour_idx" ON "run_hourly_stats"("workspace_id", "agent_id", "hour");

-- The dashboards' hourly roll-ups (docs/operations.md, "Dashboard statistics: hourly roll-ups"). The
-- functions below are used by the statements that write the roll-ups (src/features/runs/run-rollups.ts),
-- by the statistics reads and by the backfill at the end of this migration.

-- The duration histogram's bucket of a duration in milliseconds: 0 below 1 ms, then 20 buckets a decade
-- (bucket i ≥ 1 holds [10^((i-1)/20), 10^(i/20)) ms, each 12.2 % wider than the last), the last one
-- (180, from 10^8.95 ms, about 10 days) holding everything longer. Mirrored by DURATION_BUCKETS in
-- src/features/runs/run-rollups.ts, which turns a histogram back into percentiles.
CREATE FUNCTION wsa_duration_bucket(ms double precision) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN ms IS NULL THEN NULL WHEN ms < 1 THEN 0 ELSE least(180, 1 + floor(20 * log(ms))::integer) END;

-- Two counts objects ({"key": n}) added key by key; keys whose sum is 0 are left out. Both the failure
-- codes and the duration histograms are such objects: sparse, so an hour's roll-up stores only the
-- buckets its runs fell in, and merging two of them is the sum of their counts.
CREATE FUNCTION wsa_counts_add(a jsonb, b jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (SELECT coalesce(jsonb_object_agg(e.key, e.total), '{}'::jsonb) FROM (
    SELECT key, sum(value::integer) AS total
    FROM (SELECT key, value FROM jsonb_each_text(a) UNION ALL SELECT key, value FROM jsonb_each_text(b)) AS each_count
    GROUP BY key HAVING sum(value::integer) <> 0) AS e);

-- Rebuilds the roll-ups of one workspace (or of all, given NULL) from the runs: the backfill below, and
-- the repair after runs were changed outside the service (the scale seeder, tests that move runs in
-- time). The table is locked against the writers' upserts while it is rebuilt, so a run sealed
-- meanwhile is counted once: its seal's upsert waits and lands after the rebuild.
CREATE FUNCTION wsa_rebuild_run_rollups(ws text) RETURNS void
  LANGUAGE sql VOLATILE
  AS $$
    LOCK TABLE run_hourly_stats IN SHARE ROW EXCLUSIVE MODE;
    DELETE FROM run_hourly_stats WHERE ws IS NULL OR workspace_id = ws;
    INSERT INTO run_hourly_stats (workspace_id, agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations)
    SELECT c.workspace_id, c.agent_id, c.hour, c.waiting, c.completed, c.failed, c.cancelled,
      coalesce(f.codes, '{}'::jsonb), coalesce(d.durations, '{}'::jsonb)
    FROM (
      SELECT workspace_id, agent_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
        (count(*) FILTER (WHERE status = 'waiting'))::integer AS waiting,
        (count(*) FILTER (WHERE status = 'completed'))::integer AS completed,
        (count(*) FILTER (WHERE status = 'failed'))::integer AS failed,
        (count(*) FILTER (WHERE status = 'cancelled'))::integer AS cancelled
      FROM runs WHERE status IN ('waiting', 'completed', 'failed', 'cancelled') AND (ws IS NULL OR workspace_id = ws)
      GROUP BY 1, 2, 3) AS c
    LEFT JOIN (
      SELECT workspace_id, agent_id, hour, jsonb_object_agg(code, n) AS codes FROM (
        SELECT workspace_id, agent_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
          coalesce(failure->>'code', 'unknown') AS code, count(*)::integer AS n
        FROM runs WHERE status = 'failed' AND (ws IS NULL OR workspace_id = ws)
        GROUP BY 1, 2, 3, 4) AS per_code
      GROUP BY 1, 2, 3) AS f ON f.workspace_id = c.workspace_id AND f.agent_id = c.agent_id AND f.hour = c.hour
    LEFT JOIN (
      SELECT workspace_id, agent_id, hour, jsonb_object_agg(bucket::text, n) AS durations FROM (
        SELECT workspace_id, agent_id, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour,
          wsa_duration_bucket(extract(epoch FROM sealed_at - started_at) * 1000) AS bucket, count(*)::integer AS n
        FROM runs
        WHERE status IN ('waiting', 'completed', 'failed', 'cancelled') AND started_at IS NOT NULL AND sealed_at IS NOT NULL
          AND (ws IS NULL OR workspace_id = ws)
        GROUP BY 1, 2, 3, 4) AS per_bucket
      GROUP BY 1, 2, 3) AS d ON d.workspace_id = c.workspace_id AND d.agent_id = c.agent_id AND d.hour = c.hour;
  $$;

-- Runs not yet waiting or sealed (accepted, running) are not in the roll-ups: the reads count them from
-- `runs` through this partial index, a small share of the table at any time.
CREATE INDEX "runs_active_created_at_idx" ON "runs"("workspace_id", "created_at") INCLUDE ("agent_id", "status") WHERE "status" IN ('accepted', 'running');

-- Backfill: the roll-ups of every run already stored.
SELECT wsa_rebuild_run_rollups(NULL);
