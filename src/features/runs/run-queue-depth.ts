// The run queue the metrics report: accepted runs of every workspace waiting for a worker (what an
// autoscaler of workers scales on). One count on the (status, lease_expires_at) index; the metrics
// reuse it for a few seconds, so a scrape costs at most one such count per interval.
import type { Deps } from '../../services/deps.js';

export async function queuedRunCount(deps: Pick<Deps, 'db'>): Promise<number> {
  const [row] = await deps.db.$queryRaw<{ queued: number }[]>`SELECT count(*)::int AS queued FROM runs WHERE status = 'accepted'`;
  return row?.queued ?? 0;
}
