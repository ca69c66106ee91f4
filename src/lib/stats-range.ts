// The time range and buckets of the dashboards' aggregate reads (runStats, webhookStats): checked,
// clipped to what PostgreSQL holds, and bounded in the number of buckets it makes.
import { invalidArgument } from './errors.js';

export const STATS_BUCKETS = ['minute', 'hour', 'day'] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];

const BUCKET_MS: Record<StatsBucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
/** A bucket's length in seconds (a fixed length: a UTC day is always 86,400 s, whatever the session's time zone). */
export const BUCKET_SECONDS: Record<StatsBucket, number> = { minute: 60, hour: 3600, day: 86_400 };
/** The longest range one read covers (as the usage report's). */
export const STATS_MAX_RANGE_DAYS = 93;
/** The most buckets one read answers (a chart of more points than this says nothing more). */
export const MAX_BUCKETS = 1500;
/** The end of year 9999 (UTC): no run is created later. */
const LATEST_MS = Date.UTC(10000, 0, 1);

export interface StatsRangeArgs {
  from: Date;
  to: Date;
  bucket?: string | null;
}

/** The bucket that suits a range when none is asked for: between 24 and 1,440 points for the console's ranges. */
export function defaultBucket(rangeMs: number): StatsBucket {
  if (rangeMs <= 2 * BUCKET_MS.hour) return 'minute';
  if (rangeMs <= 8 * BUCKET_MS.day) return 'hour';
  return 'day';
}

/** Checks a range and its bucket; the range is clipped to what PostgreSQL and the data can hold. */
export function statsRange(args: StatsRangeArgs): { from: Date; to: Date; bucket: StatsBucket; starts: Date[] } {
  const { from, to } = args;
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw invalidArgument('from and to must be dates', 'from');
  if (from.getTime() >= to.getTime()) throw invalidArgument('from must be before to', 'from');
  const range = to.getTime() - from.getTime();
  if (range > STATS_MAX_RANGE_DAYS * BUCKET_MS.day)
    throw invalidArgument(`from and to may be at most ${STATS_MAX_RANGE_DAYS} days apart`, 'from');
  const bucket = (args.bucket ?? defaultBucket(range)) as StatsBucket;
  if (!STATS_BUCKETS.includes(bucket)) throw invalidArgument(`bucket must be one of ${STATS_BUCKETS.join(', ')}`, 'bucket');
  const size = BUCKET_MS[bucket];
  const first = Math.floor(from.getTime() / size) * size;
  const count = Math.ceil((to.getTime() - first) / size);
  if (count > MAX_BUCKETS)
    throw invalidArgument(`a ${bucket} bucket over this range makes ${count} buckets; at most ${MAX_BUCKETS}`, 'bucket');
  // Buckets are UTC (a day starts at 00:00 UTC), as date_trunc of a UTC timestamp gives them.
  const starts = Array.from({ length: count }, (_, index) => new Date(first + index * size));
  return {
    from: new Date(Math.max(from.getTime(), 0)),
    to: new Date(Math.min(Math.max(to.getTime(), 0), LATEST_MS)),
    bucket,
    starts,
  };
}
