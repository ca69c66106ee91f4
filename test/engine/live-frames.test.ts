// The frames of a shared runItemEvents execution, read as text by raw `ws` clients: every
// subscriber of one document gets byte-identical frames (but for its own operation id), each frame
// is exactly what graphql-ws would stringify for `execute`'s result of that event — also for a
// subscriber with other aliases and selections — no placeholder ever reaches the wire, a real
// graphql-ws client reads the same events, and another workspace gets not_found.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { execute, parse } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { getSchema } from '../../src/graphql/schema.js';

let loopback: ModelServer;
let t: TestApp;
let otherKey: string;
let agentId: string;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, loopback, 'loop');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'frames', config: { model: 'loop' } } })).body.id;
});
afterAll(async () => {
  await t?.stop();
  await loopback?.close();
});

/** Every field of both event types: the event can be rebuilt from a frame of it. */
const FULL = `subscription($id: ID!) {
  runItemEvents(runId: $id) {
    __typename
    ... on RunItem { id ordinal kind state content contentRefs firstStreamId lastStreamId startedAt endedAt }
    ... on RunItemTextDelta { ordinal itemId member offset text streamId previousStreamId }
  }
}`;
const ALIASED = `subscription Aliased($id: ID!, $withText: Boolean!) {
  e: runItemEvents(runId: $id) {
    kind: __typename
    ... on RunItem { n: ordinal state ordinal refs: contentRefList { name } }
    ... on RunItemTextDelta { ordinal piece: text @include(if: $withText) at: streamId }
  }
}`;

/** A graphql-transport-ws conversation by hand: every frame the server sends, as its text. */
function rawSubscriber(app: TestApp, apiKey: string, id: string, query: string, variables: Record<string, unknown>) {
  const frames: string[] = [];
  const socket = new WebSocket(`${app.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
  const done = new Promise<string[]>((resolve, reject) => {
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${apiKey}` } })));
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) return reject(new Error('a binary frame'));
      const text = data.toString('utf8');
      const message = JSON.parse(text) as { type: string };
      if (message.type === 'connection_ack') return socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
      if (message.type === 'ping') return socket.send(JSON.stringify({ type: 'pong' }));
      frames.push(text);
      if (message.type === 'complete' || message.type === 'error') {
        socket.close();
        resolve(frames);
      }
    });
    socket.on('error', reject);
  });
  return { frames, done };
}

/** The event a FULL frame shows (the bus's ItemView or ItemTextDelta). */
function eventOf(frame: string): Record<string, unknown> {
  const { __typename, ...fields } = JSON.parse(frame).payload.data.runItemEvents;
  return __typename === 'RunItem' ? fields : { textDelta: true, ...fields };
}

/** The frame graphql-ws sends for `execute`'s result of `event` (JSON.stringify of the message). */
async function expectedFrame(id: string, query: string, variables: Record<string, unknown>, event: unknown) {
  const result = await execute({
    schema: getSchema(),
    document: parse(query),
    variableValues: variables,
    rootValue: event,
    contextValue: {},
  });
  return JSON.stringify({ id, type: 'next', payload: { ...result } });
}

async function until(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

const ANSWER = 'alpha beta "gamma" delta\n epsilon zeta € eta 😀 theta iota kappa lambda mu';

describe('shared runItemEvents frames on the wire', () => {
  it('are byte-identical across subscribers and to execute + JSON.stringify, in every selection', async () => {
    const first = streamGate(2);
    const second = streamGate(6);
    loopback.turns.push({ text: ANSWER, gate: [first.gate, second.gate] });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } } }))
      .body;
    await first.reached;
    const variables = { id: run.id };
    const aliasedVariables = { id: run.id, withText: true };
    const same = Array.from({ length: 6 }, (_, i) => rawSubscriber(t, t.apiKey, `op-${i}`, FULL, variables));
    const aliased = rawSubscriber(t, t.apiKey, 'aliased', ALIASED, aliasedVariables);
    const outsider = rawSubscriber(t, otherKey, 'outsider', FULL, variables);
    const clientEvents: unknown[] = [];
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });
    const clientDone = new Promise<void>((resolve, reject) =>
      client.subscribe({ query: FULL, variables }, { next: (value) => void clientEvents.push(value), error: reject, complete: resolve }),
    );
    const opened = (frames: string[]) => frames.some((f) => f.includes('"ordinal":2') && f.includes('"in_progress"'));
    await until(() => [...same, aliased].every((s) => opened(s.frames)) && clientEvents.length > 0);
    first.open();
    await until(() => [...same, aliased].every((s) => s.frames.some((f) => f.includes('RunItemTextDelta'))));
    second.open();
    const frames = await Promise.all(same.map((s) => s.done));
    const aliasedFrames = await aliased.done;
    await clientDone;
    await client.dispose();

    // The outsider: not_found, as before.
    const outsiderFrames = await outsider.done;
    expect(outsiderFrames).toHaveLength(1);
    expect(JSON.parse(outsiderFrames[0]!)).toMatchObject({ id: 'outsider', type: 'error' });
    expect(outsiderFrames[0]).toMatch(/not_found/);

    const nexts = frames[0]!.filter((f) => JSON.parse(f).type === 'next');
    expect(nexts.some((f) => f.includes('RunItemTextDelta'))).toBe(true);
    expect(frames[0]!.at(-1)).toBe(JSON.stringify({ id: 'op-0', type: 'complete' }));
    // Every subscriber of the same document: the same bytes, but for its id.
    for (const [i, own] of frames.entries()) {
      expect(own.map((f) => f.replace(`{"id":"op-${i}",`, '{"id":"op-0",'))).toEqual(frames[0]);
    }
    // Each frame is what graphql-ws makes of `execute`'s result for the event it shows.
    for (const frame of nexts) expect(frame).toBe(await expectedFrame('op-0', FULL, variables, eventOf(frame)));
    // The aliased subscriber: its own execution of the same events, each frame as graphql-ws would send it.
    const aliasedNexts = aliasedFrames.filter((f) => JSON.parse(f).type === 'next');
    expect(aliasedNexts).toHaveLength(nexts.length);
    for (const [i, frame] of aliasedNexts.entries()) {
      expect(frame).toBe(await expectedFrame('aliased', ALIASED, aliasedVariables, eventOf(nexts[i]!)));
    }
    // No placeholder ever leaves the service.
    for (const frame of [...frames.flat(), ...aliasedFrames]) expect(frame).not.toContain('encoded');
    // A graphql-ws client reads the same results.
    expect(clientEvents).toEqual(nexts.map((f) => JSON.parse(f).payload));
  });
});
