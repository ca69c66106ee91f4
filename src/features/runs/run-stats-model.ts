// runStats of one model over a range read from `runs` (a day or less; longer ranges read the roll-ups
// by model, run-stats-rollups.ts). A model's runs are the range's runs the usage ledger names the model
// for: each costs a visit of its row (the statistics index does not hold the run's id) and a probe of
// the ledger's key, so they are picked once, in one statement that computes every figure from them,
// rather than once per figure.
import { Prisma } from '../../generated/prisma/client.js';
import type { StatsBucket } from '../../lib/stats-range.js';
import type { Db, Prisma as PrismaTypes } from '../../db.js';
import { RUN_STATUSES } from './run-lifecycle.js';
import type { CountRow } from './run-stats-rollups.js';

export interface ModelRunStats {
  total: CountRow | null;
  buckets: CountRow[];
  failureCodes: { code: string; runs: number }[];
  /** The most runs first (ties by agent id), at most `topAgents`; names are the caller's to read. */
  agents: { agentId: string; runs: number; failed: number }[];
}

export async function modelRunStats(
  db: Db | PrismaTypes.TransactionClient,
  args: { workspaceId: string; model: string; from: Date; to: Date; bucket: StatsBucket; topCodes: number; topAgents: number },
): Promise<ModelRunStats> {
  const { workspaceId, model, from, to, bucket } = args;
  const statuses = Prisma.join(
    RUN_STATUSES.map((status) => Prisma.sql`(count(*) FILTER (WHERE status = ${status}))::int AS ${Prisma.raw(`"${status}"`)}`),
  );
  const figures = Prisma.sql`count(*)::int AS runs, ${statuses},
    percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM sealed_at - started_at) * 1000) AS p`;
  const [read] = await db.$queryRaw<
    {
      total: CountRow | null;
      buckets: (CountRow & { bucket: string })[] | null;
      codes: ModelRunStats['failureCodes'] | null;
      agents: ModelRunStats['agents'] | null;
    }[]
  >`
    WITH picked AS MATERIALIZED (
      SELECT runs.created_at, runs.status, runs.agent_id, runs.started_at, runs.sealed_at,
        CASE WHEN runs.status = 'failed' THEN coalesce(runs.failure->>'code', 'unknown') END AS code
      FROM runs
      WHERE runs.workspace_id = ${workspaceId} AND runs.created_at >= ${from} AND runs.created_at < ${to}
        AND EXISTS (SELECT 1 FROM usage_records u WHERE u.run_id = runs.id AND u.model_key = ${model}))
    SELECT
      (SELECT row_to_json(t) FROM (SELECT ${figures} FROM picked) t) AS total,
      (SELECT json_agg(b) FROM (
        SELECT date_trunc(${Prisma.raw(`'${bucket}'`)}, created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, ${figures}
        FROM picked GROUP BY 1) b) AS buckets,
      (SELECT json_agg(c ORDER BY c.runs DESC, c.code) FROM (
        SELECT code, count(*)::int AS runs FROM picked WHERE code IS NOT NULL
        GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${args.topCodes}) c) AS codes,
      (SELECT json_agg(a ORDER BY a.runs DESC, a."agentId") FROM (
        SELECT agent_id AS "agentId", count(*)::int AS runs, (count(*) FILTER (WHERE status = 'failed'))::int AS failed
        FROM picked GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT ${args.topAgents}) a) AS agents`;
  const total = read?.total && read.total.runs > 0 ? read.total : null;
  return {
    total,
    buckets: (read?.buckets ?? []).map((row) => ({ ...row, bucket: new Date(row.bucket) })),
    failureCodes: read?.codes ?? [],
    agents: read?.agents ?? [],
  };
}
