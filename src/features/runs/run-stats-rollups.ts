// runStats over long ranges, from the hourly roll-ups (run-rollups.ts): the whole hours of the range
// are read from `run_hourly_stats` (a row per agent and hour, whatever the number of runs), the runs of
// the partial hours at either end from `runs`, and the runs of the whole hours that are not counted in
// the roll-ups yet (accepted or running: a partial index holds only those) from `runs` too. All three
// are one statement, so they are read in one snapshot and a run is never counted twice or missed.
// With a model, the whole hours are read from the roll-ups by model (`run_hourly_model_stats`), and the
// runs read from `runs` are those whose usage ledger names the model (a probe of the ledger's key per
// run: the partial hours' and the active runs only).
// Counts are exact; the duration percentiles come from the merged histogram, within its accuracy.
import { Prisma } from '../../generated/prisma/client.js';
import type { StatsBucket } from '../../lib/stats-range.js';
import type { Db, Prisma as PrismaTypes } from '../../db.js';
import { RUN_STATUSES, type RunStatus } from './run-lifecycle.js';
import { addCounts, histogramPercentiles, ROLLED_UP_STATUSES, runContribution, type DurationHistogram } from './run-rollups.js';

/** Runs by status and duration percentiles ([p50, p95], null without durations) of a bucket or of the range. */
export type CountRow = { bucket?: Date; runs: number; p: number[] | null } & Record<RunStatus, number>;

const HOUR_MS = 3_600_000;
/** Ranges longer than this (in hour or day buckets) read the roll-ups; shorter ones, and minute buckets, read runs, exactly. */
export const ROLLUP_MIN_RANGE_MS = 2 * HOUR_MS;

/** Whether a range's statistics are read from the roll-ups: longer than two hours, in hour or day buckets (so the dashboard's day costs its 24 hours, not its runs). */
export const readsRollups = (from: Date, to: Date, bucket: StatsBucket) =>
  bucket !== 'minute' && to.getTime() - from.getTime() > ROLLUP_MIN_RANGE_MS;

interface Group {
  bucket: string;
  agent_id: string;
  counts: Record<RunStatus, number>;
}

interface Read {
  groups: Group[] | null;
  durations: { bucket: string; key: string; runs: number }[] | null;
  codes: { code: string; runs: number }[] | null;
}

export interface RolledUpStats {
  total: CountRow;
  buckets: CountRow[];
  failureCodes: { code: string; runs: number }[];
  /** Runs and failed runs by agent, most runs first (ties by agent id). */
  agents: { agentId: string; runs: number; failed: number }[];
}

export async function rolledUpRunStats(
  db: Db | PrismaTypes.TransactionClient,
  args: { workspaceId: string; agentId: string | null; model?: string | null; from: Date; to: Date; bucket: StatsBucket },
): Promise<RolledUpStats> {
  const { workspaceId, from, to, bucket } = args;
  // The whole hours of the range: [firstHour, lastHour). readsRollups guarantees there is at least one.
  const firstHour = new Date(Math.ceil(from.getTime() / HOUR_MS) * HOUR_MS);
  const lastHour = new Date(Math.floor(to.getTime() / HOUR_MS) * HOUR_MS);
  const agent = args.agentId ? Prisma.sql`AND agent_id = ${args.agentId}` : Prisma.empty;
  const rollups = args.model
    ? Prisma.sql`run_hourly_model_stats WHERE workspace_id = ${workspaceId} AND model_key = ${args.model}`
    : Prisma.sql`run_hourly_stats WHERE workspace_id = ${workspaceId}`;
  const used = args.model
    ? Prisma.sql`AND EXISTS (SELECT 1 FROM usage_records u WHERE u.run_id = runs.id AND u.model_key = ${args.model})`
    : Prisma.empty;
  const zero = Prisma.join(ROLLED_UP_STATUSES.map((status) => Prisma.sql`0 AS ${Prisma.raw(`"${status}"`)}`));
  const active = Prisma.sql`(status = 'accepted')::int AS accepted, (status = 'running')::int AS running`;
  // A partial hour's runs: counts and durations from the statistics index alone (index-only), failure
  // codes from the failed runs' rows (their partial index), as two parts of the union.
  const raw = (lower: Date, upper: Date) => Prisma.sql`
    SELECT created_at, agent_id, ${active}, ${runContribution('runs', 1, { failureCodes: false })} FROM runs
    WHERE workspace_id = ${workspaceId} AND created_at >= ${lower} AND created_at < ${upper} ${agent} ${used}
    UNION ALL
    SELECT created_at, agent_id, 0 AS accepted, 0 AS running, ${zero},
      jsonb_build_object(coalesce(failure->>'code', 'unknown'), 1) AS failure_codes, '{}'::jsonb FROM runs
    WHERE workspace_id = ${workspaceId} AND status = 'failed' AND created_at >= ${lower} AND created_at < ${upper} ${agent} ${used}`;
  const sums = Prisma.join(RUN_STATUSES.map((status) => Prisma.sql`${status}::text, sum(${Prisma.raw(`"${status}"`)})::int`));
  const [read] = await db.$queryRaw<Read[]>`
    WITH src AS MATERIALIZED (
      SELECT hour AS created_at, agent_id, 0 AS accepted, 0 AS running, waiting, completed, failed, cancelled, failure_codes, durations
      FROM ${rollups} AND hour >= ${firstHour} AND hour < ${lastHour} ${agent}
      UNION ALL ${raw(from, firstHour)}
      UNION ALL ${raw(lastHour, to)}
      UNION ALL
      SELECT created_at, agent_id, ${active}, ${zero}, '{}'::jsonb, '{}'::jsonb FROM runs
      WHERE workspace_id = ${workspaceId} AND status IN ('accepted', 'running') AND created_at >= ${firstHour} AND created_at < ${lastHour} ${agent} ${used}
    ), bucketed AS (
      SELECT date_trunc(${Prisma.raw(`'${bucket}'`)}, created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, * FROM src
    )
    SELECT
      (SELECT json_agg(g) FROM (
        SELECT bucket, agent_id, json_build_object(${sums}) AS counts FROM bucketed GROUP BY 1, 2) g) AS groups,
      (SELECT json_agg(d) FROM (
        SELECT bucket, e.key, sum(e.value::int)::int AS runs FROM bucketed, jsonb_each_text(durations) e GROUP BY 1, 2) d) AS durations,
      (SELECT json_agg(c) FROM (
        SELECT e.key AS code, sum(e.value::int)::int AS runs FROM bucketed, jsonb_each_text(failure_codes) e GROUP BY 1) c) AS codes`;
  return combine(read!);
}

/** Adds the groups up by bucket, over the range and by agent; the histograms into percentiles. */
function combine(read: Read): RolledUpStats {
  const emptyCounts = () => Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as Record<RunStatus, number>;
  const byBucket = new Map<number, { counts: Record<RunStatus, number>; histogram: DurationHistogram }>();
  const entryOf = (bucket: string) => {
    const start = new Date(bucket).getTime();
    let entry = byBucket.get(start);
    if (!entry) byBucket.set(start, (entry = { counts: emptyCounts(), histogram: new Map() }));
    return entry;
  };
  const total = { counts: emptyCounts(), histogram: new Map() as DurationHistogram };
  const agents = new Map<string, { agentId: string; runs: number; failed: number }>();
  for (const group of read.groups ?? []) {
    const entry = entryOf(group.bucket);
    const agent = agents.get(group.agent_id) ?? { agentId: group.agent_id, runs: 0, failed: 0 };
    agents.set(group.agent_id, agent);
    for (const status of RUN_STATUSES) {
      const runs = group.counts[status];
      entry.counts[status] += runs;
      total.counts[status] += runs;
      agent.runs += runs;
    }
    agent.failed += group.counts.failed;
  }
  for (const { bucket, key, runs } of read.durations ?? []) {
    addCounts(entryOf(bucket).histogram, Number(key), runs);
    addCounts(total.histogram, Number(key), runs);
  }
  const row = (counts: Record<RunStatus, number>, histogram: DurationHistogram, bucket?: Date): CountRow => ({
    ...counts,
    ...(bucket ? { bucket } : {}),
    runs: RUN_STATUSES.reduce((sum, status) => sum + counts[status], 0),
    p: histogramPercentiles(histogram, [0.5, 0.95]),
  });
  const byCount =
    <T extends { runs: number }>(key: (item: T) => string) =>
    (a: T, b: T) =>
      b.runs - a.runs || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
  return {
    total: row(total.counts, total.histogram),
    buckets: [...byBucket.entries()]
      .map(([start, entry]) => row(entry.counts, entry.histogram, new Date(start)))
      .filter((bucket) => bucket.runs > 0),
    failureCodes: (read.codes ?? []).filter((code) => code.runs > 0).sort(byCount((code) => code.code)),
    agents: [...agents.values()].filter((agent) => agent.runs > 0).sort(byCount((agent) => agent.agentId)),
  };
}
