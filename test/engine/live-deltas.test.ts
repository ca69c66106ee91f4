// runItemEvents: appended text as deltas, through real graphql-ws clients against a real service —
// the deltas rebuild the answer exactly, snapshots come on open, close and replay, a reconnect with
// `position` gets each later change once (also mid-item, as deltas), appends of one turn coalesce,
// each delta frame is its text plus a bounded envelope (bytes linear in the answer), another
// workspace's run is not found — in one process and across two instances through Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const redisAvailable = await redisReachable();

let loopback: ModelServer;
let t: TestApp;
let otherKey: string;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, loopback, 'loop');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
});
afterAll(async () => {
  await t?.stop();
  await loopback?.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const seq = (streamId: string) => Number(streamId.slice(1));

type Snapshot = { __typename: 'RunItem'; ordinal: number; state: string; content: { text?: string }; lastStreamId: string };
type Delta = {
  __typename: 'RunItemTextDelta';
  ordinal: number;
  itemId: string;
  member: string;
  offset: number;
  text: string;
  streamId: string;
};
type Event = (Snapshot | Delta) & { bytes: number };

const EVENTS = `subscription($id: ID!, $after: Int, $position: String) {
  runItemEvents(runId: $id, after: $after, position: $position) {
    __typename
    ... on RunItem { ordinal state content lastStreamId }
    ... on RunItemTextDelta { ordinal itemId member offset text streamId }
  }
}`;

/** A websocket that counts the bytes of each message it receives (the frame's payload). */
function countingSocket(received: number[]) {
  return class extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      this.on('message', (data: Buffer) => received.push(data.length));
    }
  };
}

/**
 * Follows runItemEvents; `onEvent` returning true stops. Resolves 'complete' or 'stopped'. Each
 * event carries the bytes of the frame it came in.
 */
function follow(app: TestApp, runId: string, position: string | null, onEvent: (event: Event) => boolean | void, apiKey = app.apiKey) {
  const frames: number[] = [];
  const ws = createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: countingSocket(frames),
    connectionParams: { authorization: `Bearer ${apiKey}` },
  });
  return new Promise<'complete' | 'stopped'>((resolve, reject) => {
    const stop = ws.subscribe(
      { query: EVENTS, variables: { id: runId, position } },
      {
        next: (value) => {
          if (value.errors) return reject(new Error(JSON.stringify(value.errors)));
          const event = { ...(value.data as any).runItemEvents, bytes: frames.at(-1)! } as Event;
          if (onEvent(event) === true) {
            stop();
            void Promise.resolve(ws.dispose()).then(() => resolve('stopped'));
          }
        },
        error: (error) => reject(error instanceof Error ? error : new Error(JSON.stringify(error))),
        complete: () => void Promise.resolve(ws.dispose()).then(() => resolve('complete')),
      },
    );
  });
}

/** Another selection of the same events: no typename, no positions, no content. */
const LEAN_EVENTS = `subscription($id: ID!) {
  runItemEvents(runId: $id) {
    ... on RunItem { ordinal state }
    ... on RunItemTextDelta { ordinal text }
  }
}`;

/** Follows `query` until it completes, pushing each event (the subscription field's value) to `events`. */
function followDocument(app: TestApp, query: string, variables: Record<string, unknown>, events: unknown[], apiKey = app.apiKey) {
  const ws = createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${apiKey}` },
  });
  return new Promise<void>((resolve, reject) => {
    ws.subscribe(
      { query, variables },
      {
        next: (value) => {
          if (!value.errors) return void events.push((value.data as any).runItemEvents);
          reject(new Error(JSON.stringify(value.errors)));
          void ws.dispose();
        },
        error: (error) => {
          reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
          void ws.dispose();
        },
        complete: () => void Promise.resolve(ws.dispose()).then(() => resolve()),
      },
    );
  });
}

const position = (event: Event) => (event.__typename === 'RunItem' ? event.lastStreamId : event.streamId);

/**
 * Applies events as a client would, checking each delta against the state it holds: its offset is
 * the text's length, and every event's position grows. Returns each item's text.
 */
function rebuild(events: Event[], start = new Map<number, { text: string; at: number }>()) {
  const items = new Map(start);
  for (const event of events) {
    const held = items.get(event.ordinal);
    if (held) expect(seq(position(event))).toBeGreaterThan(held.at);
    if (event.__typename === 'RunItem') items.set(event.ordinal, { text: event.content.text ?? '', at: seq(event.lastStreamId) });
    else {
      expect(held, 'a delta only follows a state the client holds').toBeDefined();
      expect(event.member).toBe('text');
      expect(event.offset).toBe(held!.text.length);
      items.set(event.ordinal, { text: held!.text + event.text, at: seq(event.streamId) });
    }
  }
  return items;
}

const ANSWER = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu';
const LONG = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' ');

/** Waits until `condition` holds, looking again every few milliseconds (a signal, not a delay). */
async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The text an event stream shows for item 2 so far (replay snapshot plus deltas). */
const textOf = (events: Event[]) => rebuild(events).get(2)?.text ?? '';

function deltaGuarantees(apps: () => { front: TestApp; agentId: string; otherKey: string }) {
  it('deltas rebuild the answer; snapshots on replay and on close', async () => {
    const { front, agentId } = apps();
    // Held after 2 chunks (the subscriber arrives), then after 6 (chunks 2–5 have streamed as deltas).
    const first = streamGate(2);
    const second = streamGate(6);
    loopback.turns.push({ text: ANSWER, gate: [first.gate, second.gate] });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await first.reached;
    const events: Event[] = [];
    const outcome = await follow(front, run.id, null, (event) => {
      events.push(event);
      if (event.ordinal === 2 && event.__typename === 'RunItem' && event.state === 'in_progress') first.open();
      if (textOf(events).length === 24) second.open();
    });
    expect(outcome).toBe('complete');
    const answer = events.filter((e) => e.ordinal === 2);
    // The replay's snapshot (held mid-stream), deltas, the completed snapshot.
    expect(answer[0]).toMatchObject({ __typename: 'RunItem', state: 'in_progress', content: { text: ANSWER.slice(0, 8) } });
    expect(answer.at(-1)).toMatchObject({ __typename: 'RunItem', state: 'completed', content: { text: ANSWER } });
    const deltas = answer.filter((e): e is Delta & { bytes: number } => e.__typename === 'RunItemTextDelta');
    expect(deltas.length).toBeGreaterThan(0);
    expect(rebuild(answer.slice(0, -1)).get(2)!.text.length).toBeGreaterThanOrEqual(24);
    expect(ANSWER.startsWith(rebuild(answer.slice(0, -1)).get(2)!.text)).toBe(true);
    const stored = (await front.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(stored[1].id).toBe(deltas[0]!.itemId);
    expect(stored[1].last_stream_id).toBe((answer.at(-1) as Snapshot).lastStreamId);
  });

  it('a reconnect with position mid-item gets each later change once, as deltas on the text it holds', async () => {
    const { front, agentId } = apps();
    const first = streamGate(3);
    const second = streamGate(8);
    loopback.turns.push({ text: ANSWER, gate: [first.gate, second.gate] });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await first.reached;
    const before: Event[] = [];
    expect(await follow(front, run.id, null, (event) => (before.push(event), event.ordinal === 2))).toBe('stopped');
    const at = before.map(position).reduce((max, id) => (seq(id) > seq(max) ? id : max), 's0');
    // The item writer follows within milliseconds: once the stored text is what the client holds, the
    // model is held and nothing else writes, so the next statement is the subscription's own read.
    const held = rebuild(before).get(2)!.text;
    const storedText = async () =>
      (await front.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items[1]?.content?.text as string | undefined;
    while ((await storedText()) !== held) await new Promise((resolve) => setTimeout(resolve, 5));
    const after: Event[] = [];
    // The subscription reads the run once it listens: after that read, every change arrives live.
    const reads = front.app.database.operationCount();
    const reconnected = follow(front, run.id, at, (event) => {
      after.push(event);
      if (textOf([...before, ...after]).length === 32) second.open();
    });
    await until(() => front.app.database.operationCount() > reads);
    first.open();
    expect(await reconnected).toBe('complete');
    for (const event of after) expect(seq(position(event))).toBeGreaterThan(seq(at));
    // The client holds item 2 as of its position: the appends after it come as deltas on that text.
    expect(after[0]).toMatchObject({ __typename: 'RunItemTextDelta', ordinal: 2, offset: 12 });
    expect(rebuild(after, rebuild(before)).get(2)!.text).toBe(ANSWER);
    expect(after.at(-1)).toMatchObject({ __typename: 'RunItem', state: 'completed', content: { text: ANSWER } });
  });

  it('a reconnect after a delta, while the model streams on, gets each later change once', async () => {
    const { front, agentId } = apps();
    const first = streamGate(2);
    const second = streamGate(6);
    loopback.turns.push({ text: ANSWER, gate: [first.gate, second.gate] });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await first.reached;
    const before: Event[] = [];
    const stopped = await follow(front, run.id, null, (event) => {
      before.push(event);
      if (event.ordinal === 2 && event.__typename === 'RunItem') first.open();
      return event.__typename === 'RunItemTextDelta'; // leaves mid-item, after its first delta
    });
    expect(stopped).toBe('stopped');
    const at = position(before.at(-1)!);
    await second.reached; // more text may have streamed while nobody listened
    // Written too (the writer follows within milliseconds): from here on only the subscription reads.
    const storedText = async () =>
      (await front.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items[1]?.content?.text as string | undefined;
    while ((await storedText())?.length !== 24) await new Promise((resolve) => setTimeout(resolve, 5));
    const after: Event[] = [];
    const reads = front.app.database.operationCount();
    const reconnected = follow(front, run.id, at, (event) => void after.push(event));
    await until(() => front.app.database.operationCount() > reads);
    second.open();
    expect(await reconnected).toBe('complete');
    for (const event of after) expect(seq(position(event))).toBeGreaterThan(seq(at));
    expect(rebuild(after, rebuild(before)).get(2)!.text).toBe(ANSWER);
  });

  it('subscribers of one run: one document gets identical events, another selection its own shape, another workspace not_found', async () => {
    // Each event is executed once per document, operation, variables and workspace and shared by
    // the subscribers that asked exactly that (docs/ARCHITECTURE.md): nothing may leak between them.
    const { front, agentId, otherKey } = apps();
    // Held after 2 chunks (until every subscriber is in), then after 6 (chunks 2–5 stream as deltas).
    const first = streamGate(2);
    const second = streamGate(6);
    loopback.turns.push({ text: ANSWER, gate: [first.gate, second.gate] });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await first.reached;
    const same: Event[][] = [[], [], []];
    const lean: Array<{ ordinal: number; state?: string; text?: string }> = [];
    const afterFirst: Event[] = [];
    const done = [
      ...same.map((events) => followDocument(front, EVENTS, { id: run.id }, events)),
      followDocument(front, LEAN_EVENTS, { id: run.id }, lean),
      followDocument(front, EVENTS, { id: run.id, after: 1 }, afterFirst),
    ];
    // Every subscriber holds the answer's opening snapshot: the rest reaches all of them live.
    const opened = (events: Array<{ ordinal: number; state?: string }>) => events.some((e) => e.ordinal === 2 && e.state === 'in_progress');
    await until(() => [...same, lean, afterFirst].every(opened));
    await expect(followDocument(front, EVENTS, { id: run.id }, [], otherKey)).rejects.toThrow(/not_found/);
    first.open();
    const streamed = (events: Array<{ ordinal: number }>) => events.some((e) => 'text' in e);
    await until(() => [...same, lean, afterFirst].every(streamed));
    second.open();
    await Promise.all(done);
    const events = same[0]!.map(({ bytes: _bytes, ...event }) => event);
    for (const other of same) expect(other.map(({ bytes: _bytes, ...event }) => event)).toEqual(events);
    expect(events.some((e) => e.__typename === 'RunItemTextDelta')).toBe(true);
    expect(rebuild(same[0]!).get(2)!.text).toBe(ANSWER);
    expect(events.at(-1)).toMatchObject({ __typename: 'RunItem', ordinal: 2, state: 'completed', content: { text: ANSWER } });
    // Other variables, other selection: their own executions, each in its own shape.
    expect(afterFirst.map(({ bytes: _bytes, ...event }) => event)).toEqual(events.filter((e) => e.ordinal > 1));
    expect(lean).toEqual(
      events.map((e) => (e.__typename === 'RunItem' ? { ordinal: e.ordinal, state: e.state } : { ordinal: e.ordinal, text: e.text })),
    );
  });

  it('appends of one turn coalesce, and each delta frame is its text plus a bounded envelope', async () => {
    const { front, agentId } = apps();
    // 100 chunks are written at once between the two gates; the answer is held after them.
    const first = streamGate(1);
    const second = streamGate(101);
    loopback.turns.push({ text: LONG, gate: [first.gate, second.gate] });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await first.reached;
    const events: Event[] = [];
    expect(
      await follow(front, run.id, null, (event) => {
        events.push(event);
        if (event.ordinal === 2 && event.__typename === 'RunItem' && event.state === 'in_progress') first.open();
        if (textOf(events).length === 404) second.open();
      }),
    ).toBe('complete');
    const answer = events.filter((e) => e.ordinal === 2);
    const held = answer.slice(0, answer.findIndex((e) => textOf(answer.slice(0, answer.indexOf(e) + 1)).length === 404) + 1);
    const deltas = held.filter((e): e is Delta & { bytes: number } => e.__typename === 'RunItemTextDelta');
    expect(deltas.length).toBeGreaterThan(0);
    // Chunks that arrive in one network read are one delta: far fewer deltas than the 100 chunks.
    expect(deltas.length).toBeLessThan(25);
    expect(deltas.reduce((sum, d) => sum + d.text.length, 0)).toBe(400);
    // Linear bytes: a delta frame is its text and an envelope of ids and positions, never the item's text so far.
    for (const delta of deltas) expect(delta.bytes - Buffer.byteLength(JSON.stringify(delta.text))).toBeLessThan(400);
    expect(rebuild(answer.slice(0, -1)).get(2)!.text).toBe(LONG.slice(0, rebuild(answer.slice(0, -1)).get(2)!.text.length));
    expect(answer.at(-1)).toMatchObject({ __typename: 'RunItem', state: 'completed', content: { text: LONG } });
  });
}

describe('runItemEvents, in one process', () => {
  let agentId: string;
  beforeAll(async () => {
    agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'deltas', config: { model: 'loop' } } })).body.id;
  });
  deltaGuarantees(() => ({ front: t, agentId, otherKey }));

  it("answers another workspace's run as not found", async () => {
    loopback.turns.push({ text: 'mine' });
    const run = (await t.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=30' }, body: { agent_id: agentId, input: text('go') } }))
      .body;
    await expect(follow(t, run.id, null, () => undefined, otherKey)).rejects.toThrow(/not_found/);
  });

  it('a sealed run replays its items as snapshots and completes', async () => {
    loopback.turns.push({ text: ANSWER });
    const run = (await t.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=30' }, body: { agent_id: agentId, input: text('go') } }))
      .body;
    const events: Event[] = [];
    expect(await follow(t, run.id, null, (event) => void events.push(event))).toBe('complete');
    expect(events.map((e) => [e.__typename, e.ordinal])).toEqual([
      ['RunItem', 1],
      ['RunItem', 2],
    ]);
    expect(events[1]).toMatchObject({ state: 'completed', content: { text: ANSWER } });
  });
});

describe.skipIf(!redisAvailable)('runItemEvents across instances (Redis)', () => {
  let front: TestApp;
  let back: TestApp;
  let agentId: string;
  let frontOtherKey: string;
  beforeAll(async () => {
    front = await startTestApp({ runWorkers: 0, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] });
    back = await startTestApp({ runWorkers: 2, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] }, front);
    await addLoopbackModel(front, loopback, 'loop');
    agentId = (await front.rest('POST', '/api/v1/agents', { body: { name: 'deltas', config: { model: 'loop' } } })).body.id;
    frontOtherKey = (await createWorkspace(front.app.deps, { name: 'B' })).apiKey.token;
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
  });
  deltaGuarantees(() => ({ front, agentId, otherKey: frontOtherKey }));
});
