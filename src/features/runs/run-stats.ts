// GraphQL `runStats` and GET /api/v1/stats/runs: what the console's dashboards draw — runs over time by
// status, run duration percentiles, the failure rate and top failure codes, the busiest agents — for
// the caller's workspace over a time range, optionally for one agent or one model.
//
// Every figure is computed in SQL, over indexes written for these reads (migration
// 20261128012000_run_stats_indexes): runs of a workspace by creation time, covering the columns the
// counts and durations need, so the main read is an index-only range scan of the range; failed runs
// by creation time, a partial index, so the failure codes read only failed rows. A model's runs are
// those the usage ledger records as having used it (usage_records, probed by run).
// Results are bounded: at most MAX_BUCKETS buckets, TOP_CODES failure codes and TOP_AGENTS agents.
// Ranges longer than a day (in hour or day buckets) read the hourly roll-ups instead, for one agent or
// one model too (run-stats-rollups.ts): their cost is the range's hours, not its runs.
import { Prisma } from '../../generated/prisma/client.js';
import { invalidArgument, notFound } from '../../lib/errors.js';
import { BUCKET_SECONDS, statsRange, type StatsBucket, type StatsRangeArgs } from '../../lib/stats-range.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { RUN_STATUSES, type RunStatus } from './run-lifecycle.js';
import { modelRunStats } from './run-stats-model.js';
import { readsRollups, rolledUpRunStats, type CountRow } from './run-stats-rollups.js';

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
  if (from.getTime() >= to.getTime()) return assemble(range, null, [], [], []);
  // Long ranges read the hourly roll-ups (run-stats-rollups.ts), by agent or by model.
  if (readsRollups(from, to, bucket)) {
    const rolled = await rolledUpRunStats(db, { workspaceId, agentId: args.agentId ?? null, model: args.model ?? null, from, to, bucket });
    const busiest = await withNames(call, rolled.agents.slice(0, TOP_AGENTS));
    return assemble(range, rolled.total, rolled.buckets, rolled.failureCodes.slice(0, TOP_CODES), busiest);
  }
  // A model's runs: one statement over the range's runs the usage ledger names it for (run-stats-model.ts).
  if (args.model) {
    const read = await modelRunStats(db, { workspaceId, model: args.model, from, to, bucket, topCodes: TOP_CODES, topAgents: TOP_AGENTS });
    return assemble(range, read.total, read.buckets, read.failureCodes, await withNames(call, read.agents));
  }
  // The runs read: the workspace's created in the range, or one agent's when asked.
  const picked = Prisma.sql`runs WHERE runs.workspace_id = ${workspaceId} AND runs.created_at >= ${from} AND runs.created_at < ${to}
    ${args.agentId ? Prisma.sql`AND runs.agent_id = ${args.agentId}` : Prisma.empty}`;
  // A run's duration is from its start to its seal; runs not sealed, or never started, have none and
  // are left out of the percentiles (which ignore nulls). One array aggregate sorts the values once.
  const figures = Prisma.sql`count(*)::int AS runs, ${STATUS_COUNTS},
    percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM runs.sealed_at - runs.started_at) * 1000) AS p`;
  const [total] = await db.$queryRaw<CountRow[]>`SELECT ${figures} FROM ${picked}`;
  // Per bucket: one index range scan and one small sort per bucket (a lateral subquery over the
  // buckets), rather than one sort of the whole range by bucket, which spills to disk at a million runs.
  // The buckets are an array, not generate_series: the planner knows how many there are (it guesses a
  // thousand rows for generate_series, and an hour's 60 small scans were then JIT-compiled: 100 ms
  // more than the 1 ms they take).
  const size = Prisma.raw(`'${BUCKET_SECONDS[bucket]} seconds'::interval`);
  const starts = range.starts;
  const buckets = await db.$queryRaw<CountRow[]>`
        SELECT b.start AS bucket, s.*
        FROM unnest(${starts.map((start) => start.toISOString())}::timestamptz[]) AS b(start)
        CROSS JOIN LATERAL (
          SELECT ${figures} FROM runs
          WHERE workspace_id = ${workspaceId} AND created_at >= greatest(b.start, ${from}::timestamptz)
            AND created_at < least(b.start + ${size}, ${to}::timestamptz)
            ${args.agentId ? Prisma.sql`AND agent_id = ${args.agentId}` : Prisma.empty}) s
        WHERE s.runs > 0`;
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
  return assemble(range, total ?? null, buckets, codes, agents);
}

/** The busiest agents (most runs first) with their names, read for those only; agents since deleted are left out. */
async function withNames(call: CallContext, top: { agentId: string; runs: number; failed: number }[]): Promise<RunStats['busiestAgents']> {
  const names = await call.db.$queryRaw<{ id: string; name: string }[]>`
    SELECT id, name FROM agents WHERE workspace_id = ${call.actor.workspaceId} AND id = ANY(${top.map((agent) => agent.agentId)}::text[])`;
  const nameOf = new Map(names.map((agent) => [agent.id, agent.name]));
  return top.filter((agent) => nameOf.has(agent.agentId)).map((agent) => ({ ...agent, name: nameOf.get(agent.agentId)! }));
}

const STATUS_COUNTS = Prisma.join(
  RUN_STATUSES.map((status) => Prisma.sql`(count(*) FILTER (WHERE runs.status = ${status}))::int AS ${Prisma.raw(`"${status}"`)}`),
);

const statusesOf = (row: CountRow): StatusCount[] =>
  RUN_STATUSES.filter((status) => row[status] > 0).map((status) => ({ status, runs: row[status] }));

const rounded = (value: number | null | undefined) =>
  value === null || value === undefined ? null : Math.round(Number(value) * 1000) / 1000;

function assemble(
  range: ReturnType<typeof statsRange>,
  total: CountRow | null,
  rows: CountRow[],
  failureCodes: RunStats['failureCodes'],
  busiestAgents: RunStats['busiestAgents'],
): RunStats {
  const byStart = new Map(rows.map((row) => [row.bucket!.getTime(), row]));
  const sealed = total ? total.completed + total.failed + total.cancelled : 0;
  return {
    from: range.from,
    to: range.to,
    bucket: range.bucket,
    runs: total?.runs ?? 0,
    statuses: total ? statusesOf(total) : [],
    failureRate: sealed === 0 ? null : total!.failed / sealed,
    durationP50Ms: rounded(total?.p?.[0]),
    durationP95Ms: rounded(total?.p?.[1]),
    buckets: range.starts.map((start) => {
      const row = byStart.get(start.getTime());
      return {
        start,
        runs: row?.runs ?? 0,
        statuses: row ? statusesOf(row) : [],
        durationP50Ms: rounded(row?.p?.[0]),
        durationP95Ms: rounded(row?.p?.[1]),
      };
    }),
    failureCodes,
    busiestAgents,
  };
}
