// Operator metrics in the Prometheus text format, through prom-client: the process-wide counters of
// service-metrics.ts, and what one app reads from its own parts when scraped — the event-loop delay
// (perf_hooks.monitorEventLoopDelay), the database pool (how long queries wait for a connection, and
// how many connections are open, in use and awaited), the run workers' slots and the webhook backlog.
// A late event loop delays every subscriber's events and a pool that makes queries queue delays every
// write: the two signs of a saturated process that its own CPU figure does not show.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type pg from 'pg';
import { Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { PREFIX, processRegistry } from './service-metrics.js';

/** Upper bounds (seconds) of the pool-wait histogram's buckets. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Times every connection a pg Pool hands out (pool.query goes through pool.connect too). */
export class PoolWaits {
  /** Registered by the app's Metrics (each app has its own pool, so its own histogram). */
  readonly histogram = new Histogram({
    name: `${PREFIX}db_pool_wait_seconds`,
    help: 'Time a query waited for a database pool connection.',
    buckets: WAIT_BUCKETS,
    registers: [],
  });
  private maxSinceScrape = 0;

  constructor(readonly pool: pg.Pool) {
    const connect = pool.connect.bind(pool) as (callback?: (...args: any[]) => void) => Promise<pg.PoolClient> | void;
    // pg-pool's connect takes a callback or returns a promise; both shapes are kept.
    pool.connect = ((callback?: (error: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void) => {
      const started = performance.now();
      if (callback)
        return connect((error: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => {
          this.record((performance.now() - started) / 1000);
          callback(error, client, done);
        });
      return (connect() as Promise<pg.PoolClient>).then(
        (client) => (this.record((performance.now() - started) / 1000), client),
        (error: unknown) => {
          this.record((performance.now() - started) / 1000);
          throw error;
        },
      );
    }) as typeof pool.connect;
  }

  record(seconds: number): void {
    this.histogram.observe(seconds);
    this.maxSinceScrape = Math.max(this.maxSinceScrape, seconds);
  }

  /** The longest wait since the previous read (reset by reading it). */
  takeMax(): number {
    const max = this.maxSinceScrape;
    this.maxSinceScrape = 0;
    return max;
  }
}

const RESOLUTION_MS = 10;

/**
 * The event-loop delay since the previous scrape, as the common Node exporters report it: the
 * histogram is reset by each read, so one scraper sees each interval once. Sampled every 10 ms; the
 * monitor's samples are whole intervals between its timer's runs, so the 10 ms is taken off each
 * figure (an idle loop reads about 0, not 0.010). A summary of our own quantiles: prom-client's
 * Summary computes quantiles of observations it is given, and this histogram is Node's.
 */
export class EventLoopDelay {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  readonly name = `${PREFIX}event_loop_delay_seconds`;
  readonly help = 'Event-loop delay since the previous scrape (perf_hooks.monitorEventLoopDelay, beyond its 10 ms sampling interval).';
  readonly type = 'summary';
  readonly aggregator = 'max';

  constructor() {
    this.histogram.enable();
  }

  get() {
    const h = this.histogram;
    const seconds = (nanoseconds: number) => (Number.isFinite(nanoseconds) ? Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS) / 1000 : 0);
    const count = h.count;
    const quantile = (q: number) => (count ? seconds(h.percentile(q * 100)) : 0);
    const values = [
      ...[0.5, 0.9, 0.99].map((q) => ({ labels: { quantile: q }, value: quantile(q) })),
      { labels: { quantile: 1 }, value: count ? seconds(h.max) : 0 },
      { metricName: `${this.name}_sum`, labels: {}, value: count ? seconds(h.mean) * count : 0 },
      { metricName: `${this.name}_count`, labels: {}, value: count },
    ];
    h.reset();
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.histogram.reset();
  }

  stop(): void {
    this.histogram.disable();
  }
}

/** What the run workers of this app hold now (null: RUN_WORKERS=0). */
export interface WorkerSlots {
  /** Attempts running here, parked ones (waiting for a subagent) included. */
  running: number;
  /** Slots in use: running attempts less the parked ones. */
  busy: number;
  slots: number;
}

export interface MetricsSources {
  poolWaits: PoolWaits | null;
  workers?: () => WorkerSlots | null;
  /** Webhook deliveries waiting to be sent (one indexed count; cached by `cachedFor`). */
  webhookBacklog?: () => Promise<number>;
  /** Accepted runs waiting for a worker, of every process (one indexed count; cached by `cachedFor`). */
  queuedRuns?: () => Promise<number>;
}

/** How long a webhook backlog count is reused: scrapes every few seconds cost one count each at most. */
export const BACKLOG_CACHE_MS = 5_000;

/** Reuses one async reading for `ms`; concurrent callers share the reading under way. */
export function cachedFor(ms: number, read: () => Promise<number>): () => Promise<number> {
  let value: Promise<number> | null = null;
  let at = 0;
  return () => {
    const now = performance.now();
    if (!value || now - at >= ms) {
      at = now;
      value = read().catch((error: unknown) => {
        value = null;
        throw error;
      });
    }
    return value;
  };
}

export class Metrics {
  private readonly eventLoop = new EventLoopDelay();
  /** This app's own readings; merged with the process registry at each scrape. */
  private readonly registry = new Registry();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.registry.registerMetric(this.eventLoop as unknown as Metric);
    const { poolWaits, workers, webhookBacklog, queuedRuns } = sources;
    if (poolWaits) {
      const pool = poolWaits.pool;
      this.registry.registerMetric(poolWaits.histogram);
      new Gauge({
        name: `${PREFIX}db_pool_wait_max_seconds`,
        help: 'The longest wait for a pool connection since the previous scrape.',
        registers,
        collect() {
          this.set(poolWaits.takeMax());
        },
      });
      new Gauge({
        name: `${PREFIX}db_pool_connections`,
        help: 'Connections of the database pool, by state (in_use: open and lent out; waiting: queries queued for one).',
        labelNames: ['state'],
        registers,
        collect() {
          this.set({ state: 'open' }, pool.totalCount);
          this.set({ state: 'idle' }, pool.idleCount);
          this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
          this.set({ state: 'waiting' }, pool.waitingCount);
        },
      });
      new Gauge({
        name: `${PREFIX}db_pool_max_connections`,
        help: 'The pool size (DATABASE_POOL_SIZE).',
        registers,
        collect() {
          this.set(pool.options.max ?? 10);
        },
      });
    }
    if (workers) {
      new Gauge({
        name: `${PREFIX}runs_live`,
        help: 'Run attempts running in this process now (parked ones, waiting for a subagent, included).',
        registers,
        collect() {
          this.set(workers()?.running ?? 0);
        },
      });
      new Gauge({
        name: `${PREFIX}worker_slots`,
        help: 'Run worker slots of this process (RUN_WORKERS), by state (busy: held by a running attempt).',
        labelNames: ['state'],
        registers,
        collect() {
          const now = workers();
          this.set({ state: 'total' }, now?.slots ?? 0);
          this.set({ state: 'busy' }, now?.busy ?? 0);
        },
      });
      new Gauge({
        name: `${PREFIX}worker_utilisation_ratio`,
        help: 'Busy run worker slots over all slots (0 without workers).',
        registers,
        collect() {
          const now = workers();
          this.set(now && now.slots ? now.busy / now.slots : 0);
        },
      });
    }
    if (queuedRuns) {
      new Gauge({
        name: `${PREFIX}runs_queued`,
        help: `Accepted runs of every process waiting for a worker (read at most every ${BACKLOG_CACHE_MS / 1000} s).`,
        registers,
        async collect() {
          this.set(await queuedRuns());
        },
      });
    }
    if (webhookBacklog) {
      new Gauge({
        name: `${PREFIX}webhook_deliveries_pending`,
        help: `Webhook deliveries of every process waiting to be sent or retried (read at most every ${BACKLOG_CACHE_MS / 1000} s).`,
        registers,
        async collect() {
          this.set(await webhookBacklog());
        },
      });
    }
  }

  /** The exposition text (text/plain; version=0.0.4): the process's counters and this app's readings. */
  render(): Promise<string> {
    return Registry.merge([processRegistry, this.registry]).metrics();
  }

  stop(): void {
    this.eventLoop.stop();
  }
}
