// Housekeeping: the periodic deletes that keep stored data within its retention — trace spans,
// settled webhook deliveries and their events, and expired presence entries. They have nothing to do
// with executing runs, so they are scheduled here, in one place, beside the run workers (wherever a
// process runs workers, it keeps house too) rather than inside them. Each sweep runs about once an
// hour per process, is bounded (a few batches per pass; the next pass continues), and fails alone:
// a failing sweep is logged and the others still run.
import type { Deps } from '../services/deps.js';
import { deleteExpiredSpans } from '../features/traces/traces.js';
import { deleteExpiredDeliveries, deleteExpiredEvents } from '../features/webhooks/webhook-retention.js';
import { deleteExpiredPresence } from '../features/support-api/presence.js';

/** How often the trace spans older than TRACE_RETENTION_DAYS are deleted. */
const TRACE_SWEEP_MS = 3_600_000;
/** How often the webhook deliveries and events older than WEBHOOK_RETENTION_DAYS are deleted. */
const WEBHOOK_SWEEP_MS = 3_600_000;
/**
 * How often expired presence entries are deleted. A workspace's own reads and touches delete its
 * expired entries; this is for the workspaces nobody reads any more.
 */
const PRESENCE_SWEEP_MS = 3_600_000;
/** The first trace and webhook sweeps come this long after the start: a start (or a test) does not begin with a scan. */
const FIRST_SWEEP_MS = 300_000;
/** Rows a retention statement deletes at once, and statements a sweep runs at most per kind (the next hour continues). */
const RETENTION_BATCH = 5_000;
const RETENTION_PASSES = 10;

export interface HousekeepingOptions {
  /** How often the schedule looks for a sweep that is due (the sweeps themselves come hourly). */
  tickMs: number;
}

export class Housekeeping {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** When each sweep last ran, set so that the first comes FIRST_SWEEP_MS (traces, webhooks) or an interval (presence) after the start. */
  private lastTraceSweep = Date.now() - TRACE_SWEEP_MS + FIRST_SWEEP_MS;
  private lastWebhookSweep = Date.now() - WEBHOOK_SWEEP_MS + FIRST_SWEEP_MS;
  private lastPresenceSweep = Date.now();

  constructor(
    private readonly deps: Deps,
    private readonly options: HousekeepingOptions,
  ) {}

  start() {
    this.stopped = false;
    this.schedule();
  }

  stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The one schedule: each tick runs the sweeps that are due, one after the other, each failing alone. */
  private schedule() {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.sweepDue().finally(() => this.schedule()), this.options.tickMs);
    // Housekeeping never keeps a process alive.
    this.timer.unref();
  }

  /** Runs every sweep that is due at `now`. */
  async sweepDue(now = Date.now()) {
    const sweeps: [string, () => Promise<unknown>][] = [
      ['trace spans', () => this.sweepTraces(now)],
      ['webhook deliveries and events', () => this.sweepWebhooks(now)],
      ['presence entries', () => this.sweepPresence(now)],
    ];
    for (const [what, sweep] of sweeps) {
      await sweep().catch((error) => this.deps.logger.error({ err: error, sweep: what }, 'housekeeping sweep failed'));
    }
  }

  /**
   * Trace retention: spans older than TRACE_RETENTION_DAYS are deleted, about once an hour (the
   * first time five minutes after the start), in bounded batches.
   */
  async sweepTraces(now = Date.now()) {
    if (now - this.lastTraceSweep < TRACE_SWEEP_MS) return 0;
    this.lastTraceSweep = now;
    const days = this.deps.config.traceRetentionDays;
    const deleted = await inBatches(() => deleteExpiredSpans(this.deps.db, days, RETENTION_BATCH));
    if (deleted) this.deps.logger.info({ deleted, retentionDays: days }, 'expired trace spans deleted');
    return deleted;
  }

  /**
   * Webhook retention: deliveries that settled (succeeded, or failed for good) more than
   * WEBHOOK_RETENTION_DAYS ago are deleted, then events that old with no delivery left; pending
   * deliveries never. About once an hour (the first time five minutes after the start), in bounded
   * batches like the spans. Returns how many deliveries and events went.
   */
  async sweepWebhooks(now = Date.now()) {
    if (now - this.lastWebhookSweep < WEBHOOK_SWEEP_MS) return { deliveries: 0, events: 0 };
    this.lastWebhookSweep = now;
    const days = this.deps.config.webhookRetentionDays;
    const deliveries = await inBatches(() => deleteExpiredDeliveries(this.deps.db, days, RETENTION_BATCH));
    // After the deliveries: the events they leave behind go in the same sweep.
    const events = await inBatches(() => deleteExpiredEvents(this.deps.db, days, RETENTION_BATCH));
    if (deliveries || events)
      this.deps.logger.info({ deliveries, events, retentionDays: days }, 'expired webhook deliveries and events deleted');
    return { deliveries, events };
  }

  /** Expired presence entries of every workspace go, about once an hour, in bounded batches. Returns how many went. */
  async sweepPresence(now = Date.now()) {
    if (now - this.lastPresenceSweep < PRESENCE_SWEEP_MS) return 0;
    this.lastPresenceSweep = now;
    return inBatches(() => deleteExpiredPresence(this.deps, RETENTION_BATCH));
  }
}

/** Runs a bounded delete until it deletes less than a whole batch, at most RETENTION_PASSES times. Returns the total. */
async function inBatches(deleteBatch: () => Promise<number>): Promise<number> {
  let deleted = 0;
  for (let pass = 0; pass < RETENTION_PASSES; pass++) {
    const count = await deleteBatch();
    deleted += count;
    if (count < RETENTION_BATCH) break;
  }
  return deleted;
}
