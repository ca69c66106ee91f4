// Label cardinality stays bounded: the first LABEL_CAP distinct agents (and models) a process sees keep
// their names in the labels, every later one is counted under `other`, and names already seen keep
// theirs after the cap is reached. Read back from the process registry's own exposition. And the
// webhook backlog's reading is reused within its interval, shared by concurrent scrapes, and a failed
// reading is not kept.
import { describe, expect, it } from 'vitest';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { CappedLabel, LABEL_CAP, OTHER, processRegistry, runMetrics } from '../../src/lib/service-metrics.js';
import { cachedFor } from '../../src/lib/metrics.js';

describe('CappedLabel', () => {
  it('keeps the first values it sees, answers other for the rest, and none for a missing one', () => {
    const label = new CappedLabel(2);
    expect([label.value('a'), label.value('b'), label.value('c'), label.value('a'), label.value(null)]).toEqual([
      'a',
      'b',
      OTHER,
      'a',
      'none',
    ]);
  });
});

describe('runs counted by agent', () => {
  it(`name at most ${LABEL_CAP} agents; the rest are counted as other`, async () => {
    const accepted = new Date(Date.now() - 1_000);
    const started = new Date();
    const agents = Array.from({ length: LABEL_CAP + 10 }, (_, n) => `agt_${String(n).padStart(4, '0')}`);
    for (const agent of agents) runMetrics.started(agent, accepted, started);
    // One already named, after the cap: still under its own name.
    runMetrics.started(agents[0]!, accepted, started);
    const family = parsePrometheusTextFormat(await processRegistry.metrics()).find((f) => f.name === 'wsa_runs_started_total')!;
    const byAgent = new Map(family.metrics.map((sample) => [sample.labels!.agent!, Number(sample.value)]));
    expect(byAgent.size).toBe(LABEL_CAP + 1);
    expect(byAgent.get(OTHER)).toBe(10);
    expect(byAgent.get(agents[0]!)).toBe(2);
    expect(byAgent.has(agents[LABEL_CAP]!)).toBe(false);
    const total = [...byAgent.values()].reduce((sum, count) => sum + count, 0);
    expect(total).toBe(agents.length + 1);
  });
});

describe('cachedFor', () => {
  it('reads once within its interval, shares a reading under way, and reads again after a failure', async () => {
    let reads = 0;
    const read = cachedFor(60_000, async () => {
      reads += 1;
      return reads;
    });
    expect(await Promise.all([read(), read()])).toEqual([1, 1]);
    expect(await read()).toBe(1);
    expect(reads).toBe(1);
    // A failed reading is dropped at once: the next scrape reads again, within the interval.
    let failing = true;
    const flaky = cachedFor(60_000, async () => {
      if (failing) throw new Error('down');
      return 7;
    });
    await expect(flaky()).rejects.toThrow('down');
    failing = false;
    expect(await flaky()).toBe(7);
  });
});
