// The dashboards' hourly roll-ups of runs (`run_hourly_stats`, `run_hourly_model_stats`; docs/operations.md, "Dashboard
// statistics: hourly roll-ups"): what a run contributes to its (workspace, agent, UTC hour of creation)
// row (and to its (workspace, model, UTC hour, agent) rows, one per model its usage ledger names),
// written by the statements that change a counted run's status, and the duration histogram those
// rows keep, turned back into percentiles for the statistics reads (run-stats-rollups.ts).
//
// A run is counted once it is waiting or sealed (the seal writes it); a waiting run that is cancelled
// later moves from `waiting` to `cancelled` (transition, in the same transaction). Runs still accepted
// or running are not counted here: they are few at any time, and the reads take them from `runs`.
// The SQL functions used here (`wsa_duration_bucket`, `wsa_counts_add`, `wsa_rebuild_run_rollups`) are
// defined by migration 20261128042804_run_hourly_stats (the rebuild, covering both tables, by
// 20261128080000_run_hourly_model_stats).
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

/** Statuses the roll-ups count; the others (accepted, running) are read from `runs`. */
export const ROLLED_UP_STATUSES = ['waiting', 'completed', 'failed', 'cancelled'] as const;
export const isRolledUp = (status: string) => (ROLLED_UP_STATUSES as readonly string[]).includes(status);

/**
 * The duration histogram (as `wsa_duration_bucket` in SQL): bucket 0 holds durations below 1 ms;
 * bucket i ≥ 1 holds [10^((i-1)/20), 10^(i/20)) ms; the last, LAST_BUCKET, everything from 10^8.95 ms
 * (about 10 days) on.
 */
export const BUCKETS_PER_DECADE = 20;
export const LAST_BUCKET = 180;

/** The UTC hour of a run's creation, as the roll-ups key it. */
const creationHour = (createdAt: Prisma.Sql) => Prisma.sql`date_trunc('hour', ${createdAt} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;

/**
 * What one runs-shaped row (`alias`: status, failure, started_at, sealed_at) adds to its roll-up, times
 * `sign` (-1 takes it away): a count under its status, its failure code when failed, its duration's
 * histogram bucket when it has one. The statistics reads use the same expressions for the raw runs of
 * partial hours, so both add up alike.
 */
export function runContribution(alias: string, sign: 1 | -1 = 1, { failureCodes = true } = {}): Prisma.Sql {
  const a = Prisma.raw(alias);
  const counts = ROLLED_UP_STATUSES.map(
    (status) => Prisma.sql`(${a}.status = ${status})::int * ${sign}::int AS ${Prisma.raw(`"${status}"`)}`,
  );
  // Without failure codes (the reads take them from the failed runs alone), the expression reads no
  // column the statistics index lacks, so a range of runs is an index-only scan.
  const codes = failureCodes
    ? Prisma.sql`CASE WHEN ${a}.status = 'failed' THEN jsonb_build_object(coalesce(${a}.failure->>'code', 'unknown'), ${sign}::int) ELSE '{}'::jsonb END`
    : Prisma.sql`'{}'::jsonb`;
  return Prisma.sql`${Prisma.join(counts)},
    ${codes} AS failure_codes,
    CASE WHEN ${a}.started_at IS NOT NULL AND ${a}.sealed_at IS NOT NULL
      THEN jsonb_build_object(wsa_duration_bucket(extract(epoch FROM ${a}.sealed_at - ${a}.started_at) * 1000)::text, ${sign}::int)
      ELSE '{}'::jsonb END AS durations`;
}

const UPSERT_SUMS = Prisma.sql`
      waiting = s.waiting + excluded.waiting, completed = s.completed + excluded.completed,
      failed = s.failed + excluded.failed, cancelled = s.cancelled + excluded.cancelled,
      failure_codes = wsa_counts_add(s.failure_codes, excluded.failure_codes),
      durations = wsa_counts_add(s.durations, excluded.durations)`;

/** What the runs of `source` (runs-shaped rows with their id) contribute, times `sign`, as rows for the upserts below. */
const contributionsOf = (source: Prisma.Sql, sign: 1 | -1) =>
  Prisma.sql`SELECT r.id, r.workspace_id, r.agent_id, r.created_at, ${runContribution('r', sign)} FROM (${source}) AS r`;

/**
 * Contributions (rows of id, workspace_id, agent_id, created_at and runContribution's columns) added to
 * their agent's roll-ups. At most one row per roll-up row: a statement may not change a row twice.
 * Concurrent seals of the same hour and agent queue on the row's lock, so each is counted exactly once.
 */
const agentUpsert = (contributions: Prisma.Sql) => Prisma.sql`
    INSERT INTO run_hourly_stats AS s (workspace_id, agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations)
    SELECT c.workspace_id, c.agent_id, ${creationHour(Prisma.sql`c.created_at`)}, c.waiting, c.completed, c.failed, c.cancelled,
      c.failure_codes, c.durations
    FROM (${contributions}) AS c
    ON CONFLICT (workspace_id, hour, agent_id) DO UPDATE SET ${UPSERT_SUMS}`;

/**
 * The same by model (run_hourly_model_stats): a run counts under every model its usage ledger rows
 * name, those already stored (earlier attempts) and `sealing`, the models of the ledger rows its seal
 * writes in the same statement (which that statement cannot read back).
 */
const modelUpsert = (contributions: Prisma.Sql, sealing: readonly string[]) => Prisma.sql`
    INSERT INTO run_hourly_model_stats AS s (workspace_id, model_key, hour, agent_id, waiting, completed, failed, cancelled, failure_codes, durations)
    SELECT c.workspace_id, m.model_key, ${creationHour(Prisma.sql`c.created_at`)}, c.agent_id, c.waiting, c.completed, c.failed, c.cancelled,
      c.failure_codes, c.durations
    FROM (${contributions}) AS c
    CROSS JOIN LATERAL (
      SELECT u.model_key FROM usage_records u WHERE u.run_id = c.id
      UNION SELECT unnest(${[...sealing]}::text[])) AS m
    ON CONFLICT (workspace_id, model_key, hour, agent_id) DO UPDATE SET ${UPSERT_SUMS}`;

/**
 * The upsert adding what the runs of `source` (runs-shaped rows with their id) contribute to their
 * agent's roll-ups, times `sign`. A plain INSERT, so that a statement can hold it in a CTE.
 */
export const agentRollupUpsert = (source: Prisma.Sql, sign: 1 | -1 = 1) => agentUpsert(contributionsOf(source, sign));

/** The same for the roll-ups by model; `sealing` as modelUpsert above. */
export const modelRollupUpsert = (source: Prisma.Sql, sign: 1 | -1 = 1, sealing: readonly string[] = []) =>
  modelUpsert(contributionsOf(source, sign), sealing);

const CONTRIBUTED = ['waiting', 'completed', 'failed', 'cancelled'] as const;

/**
 * One run's status change (`before`, `after`: runs-shaped queries of the same run, as it was and as it
 * is) as one contribution row: what `after` adds less what `before` took. Both halves fall in the same
 * roll-up rows (a run's workspace, agent, creation hour and earlier models never change), which a
 * statement may change only once, so they are summed before the upserts rather than written by two.
 */
function moveContribution(before: Prisma.Sql, after: Prisma.Sql): Prisma.Sql {
  const counts = CONTRIBUTED.map((status) => Prisma.raw(`a."${status}" + coalesce(b."${status}", 0) AS "${status}"`));
  return Prisma.sql`
    SELECT a.id, a.workspace_id, a.agent_id, a.created_at, ${Prisma.join(counts)},
      wsa_counts_add(a.failure_codes, coalesce(b.failure_codes, '{}'::jsonb)) AS failure_codes,
      wsa_counts_add(a.durations, coalesce(b.durations, '{}'::jsonb)) AS durations
    FROM (${contributionsOf(after, 1)}) AS a
    LEFT JOIN (SELECT ${runContribution('r', -1)} FROM (${before}) AS r) AS b ON true`;
}

/**
 * The CTEs (to follow other CTEs of a status change's statement: `, by_agent AS (…), by_model AS (…)`)
 * that move a run's roll-ups, by agent and by model, from `before` to `after` (either null: the run was
 * not, or is no longer, counted). Null when neither is counted.
 */
export function rollupMoveCtes(before: Prisma.Sql | null, after: Prisma.Sql | null): Prisma.Sql | null {
  const contributions =
    before && after ? moveContribution(before, after) : before ? contributionsOf(before, -1) : after ? contributionsOf(after, 1) : null;
  if (!contributions) return null;
  return Prisma.sql`, rolled_up AS MATERIALIZED (${contributions}),
    by_agent AS (${agentUpsert(Prisma.sql`SELECT * FROM rolled_up`)}),
    by_model AS (${modelUpsert(Prisma.sql`SELECT * FROM rolled_up`, [])})`;
}

/** A run's columns the roll-ups read (its id finds the models its usage ledger names). */
export const ROLLED_UP_COLUMNS = Prisma.sql`id, workspace_id, agent_id, created_at, status, started_at, sealed_at, failure`;

/**
 * Rebuilds the roll-ups of a workspace (or all, given null) from its runs: for runs changed outside the
 * service (the scale seeder writes runs directly; tests move runs in time). Not needed otherwise.
 */
export async function rebuildRunRollups(db: Db, workspaceId: string | null): Promise<void> {
  await db.$executeRaw`SELECT wsa_rebuild_run_rollups(${workspaceId}::text)`;
}

/** A duration histogram: runs by bucket index. */
export type DurationHistogram = Map<number, number>;

/** Adds `runs` in `bucket` to a histogram. */
export function addCounts(into: DurationHistogram, bucket: number, runs: number): void {
  into.set(bucket, (into.get(bucket) ?? 0) + runs);
}

/** The bounds of a histogram bucket in ms ([0, 1) for bucket 0; the last bucket's upper bound is its lower). */
function bucketBounds(bucket: number): [number, number] {
  if (bucket <= 0) return [0, 1];
  const low = 10 ** ((bucket - 1) / BUCKETS_PER_DECADE);
  return bucket >= LAST_BUCKET ? [low, low] : [low, 10 ** (bucket / BUCKETS_PER_DECADE)];
}

/**
 * Percentiles of a histogram, as PostgreSQL's `percentile_cont` gives them of the durations it counts:
 * the sorted durations' values at ranks ⌊p·(n−1)⌋ and the next, interpolated linearly. Each of those
 * two values is estimated inside its bucket, by its place among the bucket's runs (geometrically: the
 * buckets are log-scale), so each is within its bucket's width of the true value, and so is their
 * interpolation: under 12.2 % off (10^(1/20) − 1); within 1 ms below 1 ms; at least the last bucket's
 * lower bound (about 10 days) for longer runs. Null for an empty histogram.
 */
export function histogramPercentiles(histogram: DurationHistogram, ps: readonly number[]): number[] | null {
  const buckets = [...histogram.entries()].filter(([, runs]) => runs > 0).sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, runs]) => sum + runs, 0);
  if (total === 0) return null;
  /** The estimated value of the duration at 0-based rank `rank` of the sorted durations. */
  const valueAt = (rank: number) => {
    let before = 0;
    for (const [bucket, runs] of buckets) {
      if (rank < before + runs) {
        const [low, high] = bucketBounds(bucket);
        // The run's place among the bucket's runs, each taken at the middle of its share.
        const within = (rank - before + 0.5) / runs;
        return bucket === 0 ? within * high : low * (high / low) ** within;
      }
      before += runs;
    }
    return bucketBounds(buckets[buckets.length - 1]![0])[1];
  };
  return ps.map((p) => {
    const rank = p * (total - 1);
    const lower = Math.floor(rank);
    const fraction = rank - lower;
    const value = valueAt(lower);
    return fraction === 0 ? value : value + fraction * (valueAt(lower + 1) - value);
  });
}
