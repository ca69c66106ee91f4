// GraphQL `runStats` and GET /api/v1/stats/runs: what the console's dashboards draw — runs over time by
// status, run duration percentiles, the failure rate and top failure codes, the busiest agents — for
// the caller's workspace over a time range, optionally for one agent or one model.
//
// Every figure is computed in SQL, over indexes written for these reads (migration
// 20261128012000_run_stats_indexes): runs of a workspace by creation time, covering the columns the
// counts and durations need, so the main read is an index-only range scan of the range; failed runs
// by creation time, a partial index, so the failure codes read only failed rows. A model's runs are
// those the usage ledger records as having used it (usage_records by workspace, model and seal time).
// Results are bounded: at most MAX_BUCKETS buckets, TOP_CODES failure codes and TOP_AGENTS agents.
import { Prisma } from '../../generated/prisma/client.js';
import { invalidArgument, notFound } from '../../lib/errors.js';
import { statsRange, type StatsBucket, type StatsRangeArgs } from '../../lib/stats-range.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { RUN_STATUSES, type RunStatus } from './run-lifecycle.js';

export const TOP_CODES = 10;
export const TOP_AGENTS = 10;

export interface StatusCount {
  status: RunStatus;
  runs: number;
}

export interface RunStatsBucket {
  start: Date;
  runs: number;
  statuses: StatusCount[];
  durationP50Ms: number | null;
  durationP95Ms: number | null;
}

export interface RunStats {
  from: Date;
  to: Date;
  bucket: StatsBucket;
  runs: number;
  statuses: StatusCount[];
  /** Failed runs among sealed ones (completed, failed, cancelled); null when none is sealed. */
  failureRate: number | null;
  durationP50Ms: number | null;
  durationP95Ms: number | null;
  buckets: RunStatsBucket[];
  failureCodes: { code: string; runs: number }[];
  busiestAgents: { agentId: string; name: string; runs: number; failed: number }[];
}

interface CountRow {
  bucket: Date | null;
  status: string | null;
  runs: number;
  p50: number | null;
  p95: number | null;
}

export interface RunStatsArgs extends StatsRangeArgs {
  agentId?: string | null;
  model?: string | null;
}

export async function runStats(call: CallContext, args: RunStatsArgs): Promise<RunStats> {
  const { actor, db } = call;
  requirePermission(actor, 'read');
  const range = statsRange(args);
  const workspaceId = actor.workspaceId;
  if (args.agentId && args.model) throw invalidArgument('give agent_id or model, not both', 'model');
  // Another workspace's agent or model is not found, as everywhere else.
  if (args.agentId) {
    const found = await db.$queryRaw<unknown[]>`SELECT 1 FROM agents WHERE workspace_id = ${workspaceId} AND id = ${args.agentId}`;
    if (found.length === 0) throw notFound('agent', args.agentId);
  }
  if (args.model) {
    const found = await db.$queryRaw<unknown[]>`SELECT 1 FROM models WHERE workspace_id = ${workspaceId} AND key = ${args.model}`;
    if (found.length === 0) throw notFound('model', args.model);
  }
  const { from, to, bucket } = range;
  if (from.getTime() >= to.getTime()) return assemble(range, [], [], []);
  // The runs read: the workspace's created in the range (one agent's when asked), or those the
  // usage ledger says used the model, whose attempts sealed in the range.
  const picked = args.model
    ? Prisma.sql`runs JOIN (SELECT DISTINCT run_id FROM usage_records
        WHERE workspace_id = ${workspaceId} AND model_key = ${args.model} AND sealed_at >= ${from} AND sealed_at < ${to}) used
        ON runs.id = used.run_id WHERE runs.workspace_id = ${workspaceId}`
    : Prisma.sql`runs WHERE workspace_id = ${workspaceId} AND created_at >= ${from} AND created_at < ${to}
        ${args.agentId ? Prisma.sql`AND agent_id = ${args.agentId}` : Prisma.empty}`;
  const unit = Prisma.raw(`'${bucket}'`);
  // One pass: counts per bucket and status, and duration percentiles per bucket and overall (a run's
  // duration is from its start to its seal; runs not sealed, or never started, have none and are left
  // out of the percentiles, which ignore nulls).
  const counts = await db.$queryRaw<CountRow[]>`
    SELECT date_trunc(${unit}, runs.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, runs.status, count(*)::int AS runs,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM runs.sealed_at - runs.started_at) * 1000) AS p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY extract(epoch FROM runs.sealed_at - runs.started_at) * 1000) AS p95
    FROM ${picked}
    GROUP BY GROUPING SETS ((1, 2), (1), ())`;
  const codes = await db.$queryRaw<{ code: string; runs: number }[]>`
    SELECT coalesce(runs.failure->>'code', 'unknown') AS code, count(*)::int AS runs
    FROM ${picked} AND runs.status = 'failed'
    GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP_CODES}`;
  // The busiest agents of the workspace (or the one asked for): their names read for the top ones only.
  const agents = await db.$queryRaw<{ agentId: string; name: string; runs: number; failed: number }[]>`
    WITH top AS (
      SELECT runs.agent_id, count(*)::int AS runs, (count(*) FILTER (WHERE runs.status = 'failed'))::int AS failed
      FROM ${picked}
      GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${TOP_AGENTS})
    SELECT top.agent_id AS "agentId", agents.name, top.runs, top.failed
    FROM top JOIN agents ON agents.id = top.agent_id
    ORDER BY top.runs DESC, top.agent_id`;
  return assemble(range, counts, codes, agents);
}

const statusOrder = (counts: Map<string, number>): StatusCount[] =>
  RUN_STATUSES.filter((status) => counts.has(status)).map((status) => ({ status, runs: counts.get(status)! }));

const rounded = (value: number | null) => (value === null ? null : Math.round(Number(value) * 1000) / 1000);

function assemble(
  range: ReturnType<typeof statsRange>,
  counts: CountRow[],
  failureCodes: RunStats['failureCodes'],
  busiestAgents: RunStats['busiestAgents'],
): RunStats {
  const buckets = new Map<number, RunStatsBucket & { byStatus: Map<string, number> }>();
  for (const start of range.starts)
    buckets.set(start.getTime(), { start, runs: 0, statuses: [], durationP50Ms: null, durationP95Ms: null, byStatus: new Map() });
  const total = { runs: 0, byStatus: new Map<string, number>(), p50: null as number | null, p95: null as number | null };
  for (const row of counts) {
    if (row.bucket === null) {
      // The grand total (grouping set ()).
      total.runs = row.runs;
      total.p50 = row.p50;
      total.p95 = row.p95;
      continue;
    }
    const entry = buckets.get(row.bucket.getTime());
    if (!entry) continue;
    if (row.status === null) {
      entry.runs = row.runs;
      entry.durationP50Ms = rounded(row.p50);
      entry.durationP95Ms = rounded(row.p95);
    } else {
      entry.byStatus.set(row.status, row.runs);
      total.byStatus.set(row.status, (total.byStatus.get(row.status) ?? 0) + row.runs);
    }
  }
  const sealed = ['completed', 'failed', 'cancelled'].reduce((sum, status) => sum + (total.byStatus.get(status) ?? 0), 0);
  return {
    from: range.from,
    to: range.to,
    bucket: range.bucket,
    runs: total.runs,
    statuses: statusOrder(total.byStatus),
    failureRate: sealed === 0 ? null : (total.byStatus.get('failed') ?? 0) / sealed,
    durationP50Ms: rounded(total.p50),
    durationP95Ms: rounded(total.p95),
    buckets: [...buckets.values()].map(({ byStatus, ...bucket }) => ({ ...bucket, statuses: statusOrder(byStatus) })),
    failureCodes,
    busiestAgents,
  };
}
