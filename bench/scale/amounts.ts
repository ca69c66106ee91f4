// How many rows of each kind a scale factor means (scale 1: the "months of data").

export interface Amounts {
  runs: number;
  /** Ten runs per thread: a run's position in its thread is its inbox position. */
  threads: number;
  /** Two threads per session. */
  sessions: number;
  /** Completed runs have this many items (a user message and the assistant's streamed answer parts). */
  itemsPerRun: number;
  audit: number;
  /** The newest runs keep their trace spans (older spans went with trace retention). */
  traces: number;
  memories: number;
  memoryRecords: number;
  webhookDeliveries: number;
  agents: number;
}

export const RUNS_PER_THREAD = 10;
/** The seeded rows are spread over this many days before the seed ran: inside every retention period's default (30 days). */
export const SEED_DAYS = 20;

export function amountsAt(scale: number): Amounts {
  const runs = Math.max(RUNS_PER_THREAD * 2, Math.round((1_000_000 * scale) / (RUNS_PER_THREAD * 2)) * RUNS_PER_THREAD * 2);
  const threads = runs / RUNS_PER_THREAD;
  return {
    runs,
    threads,
    sessions: threads / 2,
    itemsPerRun: 10,
    audit: runs,
    traces: Math.max(1, Math.round(runs / 10)),
    memories: 100,
    memoryRecords: Math.max(100, Math.round(1_000_000 * scale)),
    webhookDeliveries: Math.max(1, Math.round(runs / 10)),
    agents: 10,
  };
}
