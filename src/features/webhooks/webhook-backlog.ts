// The webhook backlog the metrics report: deliveries of every process still to be sent or retried.
// One count on the (status, next_attempt_at) index; the metrics reuse it for a few seconds, so a
// scrape costs at most one such count per interval however often it comes.
import type { Deps } from '../../services/deps.js';

export async function pendingDeliveryCount(deps: Pick<Deps, 'db'>): Promise<number> {
  const [row] = await deps.db.$queryRaw<
    { pending: number }[]
  >`SELECT count(*)::int AS pending FROM webhook_deliveries WHERE status = 'pending'`;
  return row?.pending ?? 0;
}
