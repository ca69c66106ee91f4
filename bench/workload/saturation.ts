// Counting saturation honestly (the loopback model shares the machine, so a saturated service slows the
// model too, and token delay alone then looks fine): how many runs stream at the same moment, and how
// long each run streamed against the pace the model planned for it.

/**
 * The most runs streaming at one moment: a run streams at time t when one of its tokens reached its
 * subscriber in (t − window, t]. `receipts` holds, per run, the receipt times of its tokens (any order).
 */
export function maxStreamingAtOnce(receipts: number[][], windowMs: number): number {
  const edges: [number, number][] = [];
  for (const times of receipts) {
    if (times.length === 0) continue;
    const sorted = [...times].sort((a, b) => a - b);
    // The run's receipts as intervals [r, r + window), merged where they overlap.
    let start = sorted[0]!;
    let end = start + windowMs;
    for (const time of sorted.slice(1)) {
      if (time < end) end = time + windowMs;
      else {
        edges.push([start, 1], [end, -1]);
        start = time;
        end = time + windowMs;
      }
    }
    edges.push([start, 1], [end, -1]);
  }
  // An interval that ends where another begins does not overlap it: ends sort first.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let max = 0;
  for (const [, step] of edges) max = Math.max(max, (now += step));
  return max;
}

/**
 * A run's streaming time against the model's pace: the time from its first token's receipt to its last
 * one's, over the time the model's plan needs for the same (`plannedMs`). 1 is exactly the model's pace.
 */
export function paceRatio(receipts: number[], plannedMs: number): number {
  if (receipts.length < 2 || plannedMs <= 0) return NaN;
  return (Math.max(...receipts) - Math.min(...receipts)) / plannedMs;
}

export interface Held {
  held: boolean;
  reasons: string[];
}

/**
 * A level is held when its p99 token delay is within the limit, nothing failed, at least `share` of its
 * runs streamed at once and at least `share` of them streamed at the model's pace (ratio ≤ tolerance).
 */
export function judgeLevel(level: {
  runs: number;
  p99DelayMs: number;
  errors: number;
  streamingAtOnce: number;
  atPace: number;
  limits: { p99DelayMs: number; share: number };
}): Held {
  const reasons: string[] = [];
  const { limits } = level;
  if (!(level.p99DelayMs <= limits.p99DelayMs)) reasons.push(`p99 delay over ${limits.p99DelayMs} ms`);
  if (level.errors > 0) reasons.push(`${level.errors} errors`);
  if (level.streamingAtOnce < limits.share * level.runs) reasons.push(`only ${level.streamingAtOnce} of ${level.runs} streamed at once`);
  if (level.atPace < limits.share * level.runs) reasons.push(`only ${level.atPace} of ${level.runs} at the model's pace`);
  return { held: reasons.length === 0, reasons };
}
