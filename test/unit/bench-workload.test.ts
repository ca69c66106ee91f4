// The workload benchmark's pure parts: reading token stamps back out of snapshots and deltas, counting
// runs streaming at once and their pace, judging a level, the plans and their ranges, WAL distances and
// Prometheus samples. No timing: every input is a fixed list of numbers.
import { describe, expect, it } from 'vitest';
import { percentile } from '../../bench/blackbox/stats.js';
import { walBytes } from '../../bench/workload/database.js';
import { levelMetrics, parseSamples } from '../../bench/workload/metrics.js';
import {
  drawPlan,
  parseRange,
  planFromText,
  planInput,
  plannedStreamingMs,
  seededRandom,
  type PlanKnobs,
} from '../../bench/workload/plan.js';
import { judgeLevel, maxStreamingAtOnce, paceRatio } from '../../bench/workload/saturation.js';
import { StampReader, formatToken } from '../../bench/workload/stamps.js';

const text = (...stamps: number[]) => stamps.map(formatToken).join('');

describe('token stamps', () => {
  it('reads each token of a growing snapshot once', () => {
    const reader = new StampReader();
    expect(reader.append(text(1, 2.5), 0)).toEqual([1, 2.5]);
    expect(reader.append(text(1, 2.5), 0)).toEqual([]); // the same snapshot again
    expect(reader.append(text(1, 2.5, 30.1, 400), 0)).toEqual([30.1, 400]);
  });

  it('waits for the rest of a token cut at the end of what arrived', () => {
    const reader = new StampReader();
    const whole = text(12.3, 45.6);
    expect(reader.append(whole.slice(0, 9), 0)).toEqual([12.3]); // "t12.3 t45"
    expect(reader.append(whole, 0)).toEqual([45.6]);
  });

  it('reads deltas by their offset, skips repeats and counts a gap', () => {
    const reader = new StampReader();
    const first = text(1);
    const second = text(2);
    expect(reader.append(first, 0)).toEqual([1]);
    expect(reader.append(first, 0)).toEqual([]); // replayed after a reconnect
    expect(reader.append(second, first.length)).toEqual([2]);
    expect(reader.append(text(9), first.length + second.length + 10)).toEqual([]);
    expect(reader.gaps).toBe(1);
  });
});

describe('saturation', () => {
  it('counts runs streaming at one moment within the window', () => {
    // Run a streams 0–1000, run b 500–1500, run c 3000–3500: a and b overlap, c is alone.
    const receipts = [
      [0, 250, 500, 750, 1000],
      [500, 1000, 1500],
      [3000, 3500],
    ];
    expect(maxStreamingAtOnce(receipts, 300)).toBe(2);
    // With a window wider than the gap between b's end and c's start, all three overlap.
    expect(maxStreamingAtOnce(receipts, 2500)).toBe(3);
    // A run with a gap longer than the window leaves and comes back: it is counted once at a time.
    expect(maxStreamingAtOnce([[0, 10_000]], 100)).toBe(1);
    expect(maxStreamingAtOnce([[], [5]], 100)).toBe(1);
    // An interval that ends where another begins does not overlap it.
    expect(maxStreamingAtOnce([[0], [100]], 100)).toBe(1);
  });

  it("measures a run's streaming time against the model's plan", () => {
    expect(paceRatio([1000, 1500, 3000], 2000)).toBe(1);
    expect(paceRatio([0, 5000], 2000)).toBe(2.5);
    expect(paceRatio([7], 2000)).toBeNaN();
  });

  it('holds a level only when delay, errors, streaming at once and pace all pass', () => {
    const limits = { p99DelayMs: 100, share: 0.9 };
    expect(judgeLevel({ runs: 100, p99DelayMs: 80, errors: 0, streamingAtOnce: 95, atPace: 90, limits })).toEqual({
      held: true,
      reasons: [],
    });
    const missed = judgeLevel({ runs: 100, p99DelayMs: 150, errors: 2, streamingAtOnce: 46, atPace: 10, limits });
    expect(missed.held).toBe(false);
    expect(missed.reasons).toEqual([
      'p99 delay over 100 ms',
      '2 errors',
      'only 46 of 100 streamed at once',
      "only 10 of 100 at the model's pace",
    ]);
    expect(judgeLevel({ runs: 10, p99DelayMs: NaN, errors: 0, streamingAtOnce: 10, atPace: 10, limits }).held).toBe(false);
  });

  it('takes percentiles by rank', () => {
    const values = Array.from({ length: 100 }, (_, index) => 100 - index);
    expect(percentile(values, 50)).toBe(51);
    expect(percentile(values, 99)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('plans', () => {
  const knobs: PlanKnobs = {
    ttftMs: parseRange('300-800'),
    tokensPerSecond: parseRange('30-100'),
    answerTokens: parseRange('200-800'),
    turns: parseRange('3-10'),
    clientToolShare: 0.5,
    largeResultShare: 0.5,
    largeResultKb: parseRange('50-200'),
    smallResultBytes: 400,
  };

  it('parses ranges and refuses what is not one', () => {
    expect(parseRange('300-800')).toEqual({ min: 300, max: 800 });
    expect(parseRange(' 7 ')).toEqual({ min: 7, max: 7 });
    expect(() => parseRange('8-3')).toThrow(/below its start/);
    expect(() => parseRange('fast')).toThrow(/not a range/);
  });

  it('draws plans within the ranges, the same again from the same seed', () => {
    const random = seededRandom(42);
    const plans = Array.from({ length: 200 }, (_, index) => drawPlan(`p${index}`, knobs, random));
    for (const plan of plans) {
      expect(plan.turns.length).toBeGreaterThanOrEqual(3);
      expect(plan.turns.length).toBeLessThanOrEqual(10);
      expect(plan.turns.at(-1)!.tool).toBeNull();
      expect(plan.turns.filter((turn) => turn.tool?.kind === 'client').length).toBeLessThanOrEqual(1);
      for (const turn of plan.turns) {
        expect(turn.ttftMs).toBeGreaterThanOrEqual(300);
        expect(turn.ttftMs).toBeLessThanOrEqual(800);
        expect(turn.tokens).toBeGreaterThanOrEqual(200);
        expect(turn.tokens).toBeLessThanOrEqual(800);
        if (turn.tool && turn.tool.resultBytes !== 400) {
          expect(turn.tool.resultBytes).toBeGreaterThanOrEqual(50 * 1024);
          expect(turn.tool.resultBytes).toBeLessThanOrEqual(200 * 1024);
        }
      }
    }
    const kinds = new Set(plans.flatMap((plan) => plan.turns.map((turn) => turn.tool?.kind)));
    expect(kinds).toEqual(new Set(['mcp', 'http', 'client', undefined]));
    expect(drawPlan('x', knobs, seededRandom(7))).toEqual(drawPlan('x', knobs, seededRandom(7)));
  });

  it('carries the plan in the run input and plans its streaming time', () => {
    const plan = {
      id: 'r1',
      turns: [
        { ttftMs: 500, tokensPerSecond: 50, tokens: 101, tool: { kind: 'mcp' as const, resultBytes: 400 } },
        { ttftMs: 300, tokensPerSecond: 100, tokens: 51, tool: null },
      ],
    };
    expect(planFromText(`hello ${planInput(plan)}`)).toEqual(plan);
    expect(planFromText('no plan here')).toBeNull();
    // 100 gaps at 50/s, then the second turn's first token after 300 ms, then 50 gaps at 100/s.
    expect(plannedStreamingMs(plan)).toBeCloseTo(2000 + 300 + 500);
  });
});

describe('database and metrics readings', () => {
  it('measures WAL distances across the 4 GB boundary', () => {
    expect(walBytes('0/100', '0/200')).toBe(256);
    expect(walBytes('0/FFFFFF00', '1/100')).toBe(512);
  });

  it('reads Prometheus samples and a level from two scrapes', () => {
    const start = parseSamples('# TYPE x counter\nwsa_db_pool_wait_seconds_sum 1\nwsa_db_pool_wait_seconds_count 10\n');
    const end = parseSamples(
      [
        'wsa_event_loop_delay_seconds{quantile="0.5"} 0.002',
        'wsa_event_loop_delay_seconds{quantile="0.99"} 0.05',
        'wsa_event_loop_delay_seconds{quantile="1"} 0.2',
        'wsa_db_pool_wait_seconds_sum 3',
        'wsa_db_pool_wait_seconds_count 110',
        'wsa_db_pool_wait_max_seconds 0.5',
      ].join('\n'),
    );
    expect(levelMetrics(start, end)).toEqual({
      eventLoopP50Ms: 2,
      eventLoopP99Ms: 50,
      eventLoopMaxMs: 200,
      poolWaitMeanMs: 20,
      poolWaitMaxMs: 500,
      poolAcquires: 100,
    });
  });
});
