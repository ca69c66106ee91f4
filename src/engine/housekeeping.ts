// Housekeeping: the periodic deletes that keep stored data within its retention — trace spans,
// settled webhook deliveries and their events, run items of old runs, finished inbox entries, audit
// rows, and expired presence entries. They have nothing to do
// with executing runs, so they are scheduled here, in one place, beside the run workers (wherever a
// process runs workers, it keeps house too) rather than inside them. Each sweep runs about once an
// hour per process, is bounded (a few batches per pass; the next pass continues), and fails alone:
// a failing sweep is logged and the others still run.
import type { Deps } from '../services/deps.js';
import { deleteExpiredSpans } from '../features/traces/traces.js';
import { deleteExpiredDeliveries, deleteExpiredEvents } from '../features/webhooks/webhook-retention.js';
import { deleteExpiredPresence } from '../features/support-api/presence.js';
import { claimSweep } from '../services/sweep-claims.js';
import { finishPurges, markExpiredRuns, purgeBatch, RUN_DATA_TABLES, type MarkCursor } from '../features/runs/run-item-retention.js';
import { deleteExpiredEntries, type EntryCursor } from '../features/runs/inbox-retention.js';
import { deleteExpiredAudit } from '../features/audit/audit-retention.js';
import { deleteEndedWindows } from '../features/access/rate-limit-counters.js';

/** How often the trace spans older than TRACE_RETENTION_DAYS are deleted. */
const TRACE_SWEEP_MS = 3_600_000;
/** How often the webhook deliveries and events older than WEBHOOK_RETENTION_DAYS are deleted. */
const WEBHOOK_SWEEP_MS = 3_600_000;
/**
 * How often expired presence entries are deleted. A workspace's own reads and touches delete its
 * expired entries; this is for the workspaces nobody reads any more.
 */
const PRESENCE_SWEEP_MS = 3_600_000;
/**
 * How often run items, inbox entries and audit rows past their retention are removed. Unlike the
 * sweeps above, these are claimed in the database (src/services/sweep-claims.ts): with several instances, one of
 * them runs each per interval, not every instance.
 */
const RETENTION_SWEEP_MS = 3_600_000;
/**
 * How often the rate-limit counters of windows that ended are deleted (PostgreSQL only: Redis expires
 * its own). A counted caller adds a row per window, so the table holds about this long of windows.
 */
const RATE_LIMIT_SWEEP_MS = 600_000;
/** The first trace and webhook sweeps come this long after the start: a start (or a test) does not begin with a scan. */
const FIRST_SWEEP_MS = 300_000;
/** Rows a retention statement deletes at once, and statements a sweep runs at most per kind (the next hour continues). */
export const RETENTION_BATCH = 5_000;
export const RETENTION_PASSES = 10;
/**
 * Batches the run-item, inbox and audit sweeps make at most per hour: 100 × 500 runs, 50,000 runs an
 * hour (about 1.2 million a day) before a backlog carries over to the next hour. Each batch is a
 * short statement, so more of them never hold a lock longer; bench:retention measured about a second
 * of database time per 1,000 runs removed (docs/operations.md, "Retention").
 */
export const RUN_DATA_PASSES = 100;
/**
 * Runs one marking statement of run-item retention marks at once. Smaller than RETENTION_BATCH: a
 * marked run's items (about ten per run, see docs/operations.md) are then deleted in batches of
 * RETENTION_BATCH rows, so one mark batch is about one or two item batches.
 */
export const RUN_MARK_BATCH = 500;

/** What one run-item retention sweep did. */
export interface RunItemSweep {
  runs: number;
  rows: Record<string, number>;
  statements: number;
}

/** The retention sweeps claimed in the database (each one's claim is named by its table). */
const RETENTION_SWEEPS = ['run_items', 'inbox_entries', 'audit_events'] as const;
type RetentionSweep = (typeof RETENTION_SWEEPS)[number];

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
  private lastRateLimitSweep = Date.now();
  /** When this instance last tried each retention sweep, set so that the first try comes FIRST_SWEEP_MS after the start. */
  private readonly lastRetentionSweep = new Map<RetentionSweep, number>(
    RETENTION_SWEEPS.map((sweep) => [sweep, Date.now() - RETENTION_SWEEP_MS + FIRST_SWEEP_MS]),
  );

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
      ['run items', () => this.sweepRunItems(now)],
      ['inbox entries', () => this.sweepInbox(now)],
      ['audit rows', () => this.sweepAudit(now)],
      ['rate-limit counters', () => this.sweepRateLimitCounters(now)],
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

  /** Rate-limit counters of ended windows go, every ten minutes, in bounded batches. Returns how many went. */
  async sweepRateLimitCounters(now = Date.now()) {
    if (now - this.lastRateLimitSweep < RATE_LIMIT_SWEEP_MS) return 0;
    this.lastRateLimitSweep = now;
    return inBatches(() => deleteEndedWindows(this.deps.db, RETENTION_BATCH));
  }

  /**
   * Run-item retention (RUN_ITEM_RETENTION_DAYS; 0 keeps items forever): about once an hour across
   * all instances, first the rows of runs marked before (a sweep that stopped half-way) are purged,
   * then up to RUN_DATA_PASSES batches of expired runs are marked and purged, each statement bounded
   * (RUN_MARK_BATCH runs, RETENTION_BATCH rows). Returns what it did, or null when it was not its turn.
   */
  async sweepRunItems(now = Date.now()): Promise<RunItemSweep | null> {
    const days = this.deps.config.runItemRetentionDays;
    if (!(await this.retentionTurn('run_items', days, now))) return null;
    const done: RunItemSweep = { runs: 0, rows: Object.fromEntries(RUN_DATA_TABLES.map((t) => [t, 0])), statements: 0 };
    const purge = async () => {
      for (const table of RUN_DATA_TABLES) {
        done.rows[table]! += await inBatches(() => {
          done.statements++;
          return purgeBatch(this.deps.db, table, RETENTION_BATCH);
        });
      }
      done.statements++;
      await finishPurges(this.deps.db, RUN_MARK_BATCH);
    };
    await purge();
    let cursor: MarkCursor | null = null;
    for (let pass = 0; pass < RUN_DATA_PASSES; pass++) {
      done.statements++;
      const marked = await markExpiredRuns(this.deps.db, days, RUN_MARK_BATCH, cursor);
      if (!marked.length) break;
      done.runs += marked.length;
      cursor = marked[marked.length - 1]!;
      await purge();
      if (marked.length < RUN_MARK_BATCH) break;
    }
    if (done.runs) this.deps.logger.info({ ...done, retentionDays: days }, 'expired run items removed');
    return done;
  }

  /**
   * Whether a retention sweep runs now: a retention is set (`days`; 0 keeps rows forever), this
   * instance has not tried the sweep within RETENTION_SWEEP_MS, and it wins the sweep's claim for
   * this interval (with several instances, one of them runs each sweep per interval).
   */
  private async retentionTurn(sweep: RetentionSweep, days: number, now: number): Promise<boolean> {
    if (!days || now - this.lastRetentionSweep.get(sweep)! < RETENTION_SWEEP_MS) return false;
    this.lastRetentionSweep.set(sweep, now);
    return claimSweep(this.deps.db, sweep, now, RETENTION_SWEEP_MS);
  }

  /**
   * Inbox retention (INBOX_RETENTION_DAYS; 0 keeps entries forever): finished entries older than the
   * retention, about once an hour across all instances, in bounded batches. Returns how many went, or
   * null when it was not its turn.
   */
  async sweepInbox(now = Date.now()): Promise<number | null> {
    const days = this.deps.config.inboxRetentionDays;
    if (!(await this.retentionTurn('inbox_entries', days, now))) return null;
    let cursor: EntryCursor | null = null;
    let deleted = 0;
    for (let pass = 0; pass < RUN_DATA_PASSES; pass++) {
      const batch = await deleteExpiredEntries(this.deps.db, days, RETENTION_BATCH, cursor);
      deleted += batch.length;
      if (batch.length < RETENTION_BATCH) break;
      cursor = batch.reduce((a, b) =>
        a.finishedAt.getTime() > b.finishedAt.getTime() || (a.finishedAt.getTime() === b.finishedAt.getTime() && a.id > b.id) ? a : b,
      );
    }
    if (deleted) this.deps.logger.info({ deleted, retentionDays: days }, 'expired inbox entries deleted');
    return deleted;
  }

  /**
   * Audit retention (AUDIT_RETENTION_DAYS; 0 keeps the trail forever): rows older than the retention,
   * about once an hour across all instances, in bounded batches. Returns how many went, or null when
   * it was not its turn.
   */
  async sweepAudit(now = Date.now()): Promise<number | null> {
    const days = this.deps.config.auditRetentionDays;
    if (!(await this.retentionTurn('audit_events', days, now))) return null;
    const deleted = await inBatches(() => deleteExpiredAudit(this.deps.db, days, RETENTION_BATCH), RUN_DATA_PASSES);
    if (deleted) this.deps.logger.info({ deleted, retentionDays: days }, 'expired audit rows deleted');
    return deleted;
  }
}

/** Runs a bounded delete until it deletes less than a whole batch, at most `passes` times. Returns the total. */
async function inBatches(deleteBatch: () => Promise<number>, passes = RETENTION_PASSES): Promise<number> {
  let deleted = 0;
  for (let pass = 0; pass < passes; pass++) {
    const count = await deleteBatch();
    deleted += count;
    if (count < RETENTION_BATCH) break;
  }
  return deleted;
}
