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
  // Test files share their worker process (and so this registry): earlier files' runs may have used
  // part of the cap already, so the test reads how much is left and checks the counts it adds.
  const startedByAgent = async () => {
    const families = parsePrometheusTextFormat(await processRegistry.metrics());
    const named = new Set<string>();
    for (const name of ['wsa_runs_started_total', 'wsa_runs_ended_total']) {
      for (const sample of families.find((f) => f.name === name)?.metrics ?? []) named.add(sample.labels!.agent!);
    }
    const started = families.find((f) => f.name === 'wsa_runs_started_total')?.metrics ?? [];
    return { named, counts: new Map(started.map((sample) => [sample.labels!.agent!, Number(sample.value)])) };
  };

  it(`name at most ${LABEL_CAP} agents; the rest are counted as other`, async () => {
    const before = await startedByAgent();
    const namedBefore = [...before.named].filter((agent) => agent !== OTHER && agent !== 'none').length;
    const room = LABEL_CAP - namedBefore;
    const accepted = new Date(Date.now() - 1_000);
    const started = new Date();
    const prefix = `agt_cap${Date.now().toString(36)}_`;
    const agents = Array.from({ length: LABEL_CAP + 10 }, (_, n) => `${prefix}${String(n).padStart(4, '0')}`);
    for (const agent of agents) runMetrics.started(agent, accepted, started);
    // One already named (when there was room for it), after the cap: still under its own name.
    runMetrics.started(agents[0]!, accepted, started);
    const after = await startedByAgent();
    const ours = agents.filter((agent) => after.counts.has(agent));
    expect(ours).toEqual(agents.slice(0, Math.max(0, room)));
    const otherAdded = (after.counts.get(OTHER) ?? 0) - (before.counts.get(OTHER) ?? 0);
    expect(otherAdded).toBe(agents.length + 1 - ours.length - (ours.length > 0 ? 1 : 0));
    if (ours.length > 0) expect(after.counts.get(agents[0]!)).toBe(2);
    const namedAfter = [...after.named].filter((agent) => agent !== OTHER && agent !== 'none').length;
    expect(namedAfter).toBeLessThanOrEqual(LABEL_CAP);
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
