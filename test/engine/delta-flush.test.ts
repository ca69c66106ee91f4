// The text deltas of every run appended in one event-loop turn are published in one callback
// (src/engine/delta-flush.ts), so the frames of all of them leave a websocket connection in the same
// tick — and so in one corked write (src/graphql/ws.ts) — instead of one write per run. (Seen from a
// client in the same process the writes would merge anyway: the client reads after both, so the
// test observes the publishing itself.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunItemStream } from '../../src/engine/items.js';
import { listenTo } from '../../src/services/event-topics.js';
import { newId } from '../../src/lib/ids.js';
import { holdBareRun } from '../helpers/bare-runs.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// No run workers: nothing but the test streams items.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ runWorkers: 0 });
});
afterAll(async () => {
  await t?.stop();
});

/** A bare running run row held by attempt 1 (test/helpers/bare-runs.ts), and its item stream. */
async function heldStream(): Promise<RunItemStream> {
  const runId = newId('run');
  await holdBareRun(t.databaseUrl, t.workspaceId, runId);
  return new RunItemStream(t.app.deps, { id: runId, workspaceId: t.workspaceId, principalId: 'p' }, 1, 0);
}

describe('deltas of one turn', () => {
  it('are published for every run in one callback, with no tick between them', async () => {
    const streams = await Promise.all([heldStream(), heldStream(), heldStream()]);
    const items = streams.map((stream) => stream.open('text_message', { text: '' }));
    // Each publish notes whether a tick scheduled at the first publish has run since: with one
    // callback per run, Node runs the ticks (and so the sockets' uncork) between the callbacks.
    const seen: { runId: string; text: string; tickRan: boolean }[] = [];
    let tickRan = false;
    const stops = streams.map((stream) =>
      listenTo(t.app.deps.events, 'runItem', stream.runId, (event) => {
        if (!('textDelta' in event)) return;
        if (seen.length === 0) process.nextTick(() => (tickRan = true));
        seen.push({ runId: stream.runId, text: event.text, tickRan });
      }),
    );
    try {
      const published = new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
      streams.forEach((stream, at) => {
        stream.append(items[at]!, 'text', 'one ');
        stream.append(items[at]!, 'text', 'two');
      });
      await published;
      // One delta per run (the turn's appends joined), all before any tick ran.
      expect(seen).toEqual(streams.map((stream) => ({ runId: stream.runId, text: 'one two', tickRan: false })));
    } finally {
      stops.forEach((stop) => stop());
      for (const stream of streams) stream.close();
    }
  });
});
