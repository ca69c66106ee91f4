// Operator metrics in the Prometheus text format (served on /metrics when METRICS_TOKEN is set): the
// event-loop delay (perf_hooks.monitorEventLoopDelay) and the database pool — how long queries wait
// for a connection, and how many connections are open, idle and awaited. These are the two signs of
// a saturated process that its own CPU figure does not show: a late event loop delays every
// subscriber's events, and a pool that makes queries queue delays every write.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type pg from 'pg';

/** Upper bounds (seconds) of the pool-wait histogram's buckets. */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** Times every connection a pg Pool hands out (pool.query goes through pool.connect too). */
export class PoolWaits {
  private readonly counts = new Array<number>(WAIT_BUCKETS.length).fill(0);
  private total = 0;
  private sumSeconds = 0;
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
    this.total += 1;
    this.sumSeconds += seconds;
    this.maxSinceScrape = Math.max(this.maxSinceScrape, seconds);
    const bucket = WAIT_BUCKETS.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) this.counts[bucket]! += 1;
  }

  /** The Prometheus lines; the max is the longest wait since the previous scrape (reset by reading it). */
  lines(): string[] {
    let cumulative = 0;
    const max = this.maxSinceScrape;
    this.maxSinceScrape = 0;
    return [
      '# HELP wsa_db_pool_wait_seconds Time a query waited for a database pool connection.',
      '# TYPE wsa_db_pool_wait_seconds histogram',
      ...WAIT_BUCKETS.map((bound, index) => `wsa_db_pool_wait_seconds_bucket{le="${bound}"} ${(cumulative += this.counts[index]!)}`),
      `wsa_db_pool_wait_seconds_bucket{le="+Inf"} ${this.total}`,
      `wsa_db_pool_wait_seconds_sum ${this.sumSeconds}`,
      `wsa_db_pool_wait_seconds_count ${this.total}`,
      '# HELP wsa_db_pool_wait_max_seconds The longest wait for a pool connection since the previous scrape.',
      '# TYPE wsa_db_pool_wait_max_seconds gauge',
      `wsa_db_pool_wait_max_seconds ${max}`,
      '# HELP wsa_db_pool_connections Connections of the database pool, by state (waiting: queries queued for one).',
      '# TYPE wsa_db_pool_connections gauge',
      `wsa_db_pool_connections{state="open"} ${this.pool.totalCount}`,
      `wsa_db_pool_connections{state="idle"} ${this.pool.idleCount}`,
      `wsa_db_pool_connections{state="waiting"} ${this.pool.waitingCount}`,
      '# HELP wsa_db_pool_max_connections The pool size (DATABASE_POOL_SIZE).',
      '# TYPE wsa_db_pool_max_connections gauge',
      `wsa_db_pool_max_connections ${this.pool.options.max ?? 10}`,
    ];
  }
}

const RESOLUTION_MS = 10;

/**
 * The event-loop delay since the previous scrape, as the common Node exporters report it: the
 * histogram is reset by each read, so one scraper sees each interval once. Sampled every 10 ms; the
 * monitor's samples are whole intervals between its timer's runs, so the 10 ms is taken off each
 * figure (an idle loop reads about 0, not 0.010).
 */
export class EventLoopDelay {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor() {
    this.histogram.enable();
  }

  lines(): string[] {
    const h = this.histogram;
    const seconds = (nanoseconds: number) => (Number.isFinite(nanoseconds) ? Math.max(0, nanoseconds / 1e6 - RESOLUTION_MS) / 1000 : 0);
    const count = h.count;
    const quantile = (q: number) => (count ? seconds(h.percentile(q * 100)) : 0);
    const result = [
      '# HELP wsa_event_loop_delay_seconds Event-loop delay since the previous scrape (perf_hooks.monitorEventLoopDelay, beyond its 10 ms sampling interval).',
      '# TYPE wsa_event_loop_delay_seconds summary',
      ...[0.5, 0.9, 0.99].map((q) => `wsa_event_loop_delay_seconds{quantile="${q}"} ${quantile(q)}`),
      `wsa_event_loop_delay_seconds{quantile="1"} ${count ? seconds(h.max) : 0}`,
      `wsa_event_loop_delay_seconds_sum ${count ? seconds(h.mean) * count : 0}`,
      `wsa_event_loop_delay_seconds_count ${count}`,
    ];
    h.reset();
    return result;
  }

  stop(): void {
    this.histogram.disable();
  }
}

/** The process's own memory and CPU, under the names Prometheus client libraries use. */
function processLines(): string[] {
  const memory = process.memoryUsage();
  const cpu = process.cpuUsage();
  return [
    '# TYPE process_cpu_seconds_total counter',
    `process_cpu_seconds_total ${(cpu.user + cpu.system) / 1e6}`,
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${memory.rss}`,
    '# TYPE nodejs_heap_used_bytes gauge',
    `nodejs_heap_used_bytes ${memory.heapUsed}`,
  ];
}

export class Metrics {
  private readonly eventLoop = new EventLoopDelay();

  constructor(private readonly poolWaits: PoolWaits | null) {}

  /** The exposition text (text/plain; version=0.0.4). */
  render(): string {
    return [...this.eventLoop.lines(), ...(this.poolWaits?.lines() ?? []), ...processLines()].join('\n') + '\n';
  }

  stop(): void {
    this.eventLoop.stop();
  }
}
