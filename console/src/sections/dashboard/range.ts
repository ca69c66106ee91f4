// The dashboards' time ranges: the last hour, day, week or month up to now. The end is taken when the
// range is chosen (rounded up to the minute), so the query's variables stay the same until the user
// picks a range again or refreshes.
export const RANGES = [
  { key: '1h', label: '1 hour', ms: 3_600_000 },
  { key: '24h', label: '24 hours', ms: 86_400_000 },
  { key: '7d', label: '7 days', ms: 7 * 86_400_000 },
  { key: '30d', label: '30 days', ms: 30 * 86_400_000 },
] as const;

export type RangeKey = (typeof RANGES)[number]['key'];

export const isRangeKey = (value: string | null): value is RangeKey => RANGES.some((range) => range.key === value);

export interface TimeRange {
  key: RangeKey;
  from: string;
  to: string;
}

export function timeRange(key: RangeKey, now = Date.now()): TimeRange {
  const to = Math.ceil(now / 60_000) * 60_000;
  const span = RANGES.find((range) => range.key === key)!.ms;
  return { key, from: new Date(to - span).toISOString(), to: new Date(to).toISOString() };
}

/** The usage ledger's grouping for the range's charts over time (it sums by hour or day). */
export const usageGroup = (key: RangeKey) => (key === '30d' ? 'day' : 'hour');

/** Every hour or day start of the range, for the usage charts (the ledger answers only the groups it has). */
export function usageTimes(range: TimeRange): number[] {
  const size = usageGroup(range.key) === 'day' ? 86_400_000 : 3_600_000;
  const first = Math.floor(Date.parse(range.from) / size) * size;
  const times: number[] = [];
  for (let time = first; time < Date.parse(range.to); time += size) times.push(time);
  return times;
}

/** A usage key (2026-11-27 or 2026-11-27T20:00:00Z) as the start of its bucket. */
export const usageKeyTime = (key: string) => Date.parse(key.length === 10 ? `${key}T00:00:00Z` : key);
