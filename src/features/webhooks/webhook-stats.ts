// GraphQL `webhookStats` and GET /api/v1/stats/webhooks: the health of the workspace's webhook
// deliveries over a time range, for the console's dashboard — deliveries made in each bucket by
// status (succeeded, failed for good, still pending), the share that failed and the latency of their
// last attempt (p50, p95). Computed in SQL over an index of deliveries by workspace and creation time
// that covers status and latency (migration 20261128012000_run_stats_indexes): an index-only range
// scan of the range, never the deliveries of other workspaces.
import { requirePermission } from '../access/permissions.js';
import { statsRange, type StatsBucket, type StatsRangeArgs } from '../../lib/stats-range.js';
import type { CallContext } from '../../services/call-context.js';
import { Prisma } from '../../generated/prisma/client.js';

export interface WebhookStatsBucket {
  start: Date;
  succeeded: number;
  failed: number;
  pending: number;
}

export interface WebhookStats {
  from: Date;
  to: Date;
  bucket: StatsBucket;
  succeeded: number;
  failed: number;
  pending: number;
  /** Failed deliveries among settled ones; null when none settled. */
  failureRate: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  buckets: WebhookStatsBucket[];
}

interface Row {
  bucket: Date | null;
  succeeded: number;
  failed: number;
  pending: number;
  p50: number | null;
  p95: number | null;
}

export async function webhookStats(call: CallContext, args: StatsRangeArgs): Promise<WebhookStats> {
  const { actor, db } = call;
  requirePermission(actor, 'read');
  const range = statsRange(args);
  const { from, to, bucket } = range;
  const unit = Prisma.raw(`'${bucket}'`);
  const rows =
    from.getTime() >= to.getTime()
      ? []
      : await db.$queryRaw<Row[]>`
    SELECT date_trunc(${unit}, created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket,
      (count(*) FILTER (WHERE status = 'succeeded'))::int AS succeeded,
      (count(*) FILTER (WHERE status = 'failed'))::int AS failed,
      (count(*) FILTER (WHERE status = 'pending'))::int AS pending,
      percentile_cont(0.5) WITHIN GROUP (ORDER BY last_latency_ms) AS p50,
      percentile_cont(0.95) WITHIN GROUP (ORDER BY last_latency_ms) AS p95
    FROM webhook_deliveries
    WHERE workspace_id = ${actor.workspaceId} AND created_at >= ${from} AND created_at < ${to}
    GROUP BY GROUPING SETS ((1), ())`;
  const buckets = new Map(range.starts.map((start) => [start.getTime(), { start, succeeded: 0, failed: 0, pending: 0 }]));
  let total: Row = { bucket: null, succeeded: 0, failed: 0, pending: 0, p50: null, p95: null };
  for (const row of rows) {
    if (row.bucket === null) total = row;
    else {
      const entry = buckets.get(row.bucket.getTime());
      if (entry) Object.assign(entry, { succeeded: row.succeeded, failed: row.failed, pending: row.pending });
    }
  }
  const settled = total.succeeded + total.failed;
  const rounded = (value: number | null) => (value === null ? null : Math.round(Number(value) * 1000) / 1000);
  return {
    from,
    to,
    bucket,
    succeeded: total.succeeded,
    failed: total.failed,
    pending: total.pending,
    failureRate: settled === 0 ? null : total.failed / settled,
    latencyP50Ms: rounded(total.p50),
    latencyP95Ms: rounded(total.p95),
    buckets: [...buckets.values()],
  };
}
