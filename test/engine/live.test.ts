// Live runs as clients see them, through real graphql-ws clients and real HTTP: a subscriber that
// arrives mid-stream gets every item in order and each change once (no waiting on subscribe), a
// reconnect with `position` gets each later change once — in one process and across two instances
// through Redis — and the completion signals: runStatus emits first and completes, and the `wait`
// argument (REST `Prefer: wait=N`) answers when the run is sealed or waiting, or as it is when the
// time is up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { insertModel } from '../helpers/fixtures.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { runTail } from '../../src/features/runs/run-tail.js';
import { localRuns } from '../../src/features/runs/local-runs.js';
import { waitFor } from '../helpers/wait.js';
import { recordStatements } from '../helpers/query-plans.js';
import pg from 'pg';
import { processRegistry } from '../../src/lib/service-metrics.js';
import { settleRun } from '../helpers/runs.js';
import { lockWaiters, withTableLocked } from '../helpers/table-locks.js';

const redisAvailable = await redisReachable();

let loopback: ModelServer;
let t: TestApp;
let otherKey: string;
beforeAll(async () => {
  loopback = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  await addLoopbackModel(t, loopback, 'loop');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
});
afterAll(async () => {
  await t?.stop();
  await loopback?.close();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const seq = (streamId: string) => Number(streamId.slice(1));

type Seen = { ordinal: number; state: string; text?: string; lastStreamId: string };

/** A graphql-ws subscription; `onNext` returning true stops it. Resolves 'complete' or 'stopped'. */
function subscribe(app: TestApp, query: string, variables: Record<string, unknown>, onNext: (data: any) => boolean | void) {
  const ws = createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${app.apiKey}` },
  });
  return new Promise<'complete' | 'stopped'>((resolve, reject) => {
    const stop = ws.subscribe(
      { query, variables },
      {
        next: (value) => {
          if (value.errors) reject(new Error(JSON.stringify(value.errors)));
          if (onNext(value.data) === true) {
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

const ITEMS =
  'subscription($id: ID!, $after: Int, $position: String) { runItems(runId: $id, after: $after, position: $position) { ordinal state content lastStreamId } }';
const followItems = (app: TestApp, runId: string, position: string | null, onItem: (item: Seen) => boolean | void) =>
  subscribe(app, ITEMS, { id: runId, position }, (data) => {
    const item = data.runItems;
    return onItem({ ordinal: item.ordinal, state: item.state, text: item.content.text, lastStreamId: item.lastStreamId });
  });

/** Each item's changes arrive in stream order, each once, every text state extending the one before. */
function expectInOrderOnce(seen: Seen[]) {
  const byOrdinal = new Map<number, Seen[]>();
  for (const item of seen) byOrdinal.set(item.ordinal, [...(byOrdinal.get(item.ordinal) ?? []), item]);
  for (const changes of byOrdinal.values()) {
    for (let i = 1; i < changes.length; i++) {
      expect(seq(changes[i]!.lastStreamId)).toBeGreaterThan(seq(changes[i - 1]!.lastStreamId));
      if (changes[i - 1]!.text !== undefined) expect(changes[i]!.text!.startsWith(changes[i - 1]!.text!)).toBe(true);
    }
  }
  // Ordinals first appear in order (the replay by ordinal, then new items as they open).
  const firsts = [...byOrdinal.keys()];
  expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
}

const ANSWER = 'alpha beta gamma delta epsilon zeta eta theta';

/** Streaming guarantees, for a front instance (subscribers) and the instance executing runs. */
function streamingGuarantees(apps: () => { front: TestApp; agentId: string }) {
  it('a subscriber arriving mid-stream gets every item, in order, each change once, without waiting', async () => {
    const { front, agentId } = apps();
    const held = streamGate(3);
    loopback.turns.push({ text: ANSWER, gate: held.gate });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await held.reached; // the model is provably mid-stream: some deltas are published, perhaps not written
    const seen: Seen[] = [];
    const outcome = await followItems(front, run.id, null, (item) => {
      seen.push(item);
      // Live changes follow once the replay showed the held text.
      if (item.ordinal === 2 && item.state === 'in_progress') held.open();
    });
    expect(outcome).toBe('complete');
    expect(seen[0]).toMatchObject({ ordinal: 1, state: 'completed' });
    expect(seen.filter((i) => i.ordinal === 2).at(-1)).toMatchObject({ state: 'completed', text: ANSWER });
    expectInOrderOnce(seen);
    const stored = (await front.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    expect(stored.map((i: { ordinal: number; last_stream_id: string }) => [i.ordinal, i.last_stream_id])).toEqual(
      [1, 2].map((ordinal) => [ordinal, seen.filter((i) => i.ordinal === ordinal).at(-1)!.lastStreamId]),
    );
  });

  it('a reconnect with position gets each later change once', async () => {
    const { front, agentId } = apps();
    const held = streamGate(2);
    loopback.turns.push({ text: ANSWER, gate: held.gate });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await held.reached;
    const first: Seen[] = [];
    expect(await followItems(front, run.id, null, (item) => (first.push(item), item.ordinal === 2))).toBe('stopped');
    const position = first.reduce((max, item) => (seq(item.lastStreamId) > seq(max) ? item.lastStreamId : max), 's0');
    const second: Seen[] = [];
    const reconnected = followItems(front, run.id, position, (item) => {
      second.push(item);
    });
    held.open();
    expect(await reconnected).toBe('complete');
    for (const item of second) expect(seq(item.lastStreamId)).toBeGreaterThan(seq(position));
    expectInOrderOnce([...first, ...second]);
    expect(second.at(-1)).toMatchObject({ ordinal: 2, state: 'completed', text: ANSWER });
  });
}

describe('runItems, in one process', () => {
  let agentId: string;
  beforeAll(async () => {
    agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'live', config: { model: 'loop' } } })).body.id;
  });
  streamingGuarantees(() => ({ front: t, agentId }));

  it('reads the database once per subscription: the run with its items in one statement, nothing more when it ends', async () => {
    loopback.turns.push({ text: 'settled' });
    const run = (await t.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=30' }, body: { agent_id: agentId, input: text('go') } }))
      .body;
    expect(run.status).toBe('completed');
    // That request authenticated the key just now: no last-use write can land while counting.
    const before = t.app.database.operationCount();
    const seen: Seen[] = [];
    expect(await followItems(t, run.id, null, (item) => void seen.push(item))).toBe('complete');
    expect(seen.map((item) => [item.ordinal, item.state])).toEqual([
      [1, 'completed'],
      [2, 'completed'],
    ]);
    expect(t.app.database.operationCount() - before).toBe(1);
  });

  it('a subscriber to a run this process is executing starts from its live tail, without reading the database', async () => {
    const held = streamGate(0);
    loopback.turns.push({ text: ANSWER, gate: held.gate });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await held.reached;
    // The model is held; once the database has every item state the tail has, the item writer has
    // nothing left to write, and every query counted from here on is the subscription's.
    const database = new pg.Client({ connectionString: t.databaseUrl });
    await database.connect();
    try {
      const stored = async () =>
        (await database.query('SELECT ordinal, last_stream_id FROM run_items WHERE run_id = $1 ORDER BY ordinal', [run.id])).rows
          .map((row) => `${row.ordinal}:${row.last_stream_id}`)
          .join();
      const told = () =>
        runTail(t.app.deps.events)
          .peek(run.id)!
          .sort((a, b) => a.ordinal - b.ordinal)
          .map((item) => `${item.ordinal}:${item.lastStreamId}`)
          .join();
      await waitFor(
        async () => ({ stored: await stored(), told: told() }),
        ({ stored, told }) => told !== '' && stored === told,
        'the item writer to have stored what the tail holds',
      );
    } finally {
      await database.end();
    }
    // Another workspace's key: the run is not found, from memory as from the database.
    await expect(
      new Promise((resolve, reject) => {
        const ws = createClient({
          url: `${t.url.replace('http', 'ws')}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { authorization: `Bearer ${otherKey}` },
        });
        ws.subscribe(
          { query: ITEMS, variables: { id: run.id } },
          {
            next: (value) => (value.errors ? reject(new Error(JSON.stringify(value.errors))) : resolve(value)),
            error: (error) => reject(new Error(JSON.stringify(error))),
            complete: () => resolve('complete'),
          },
        );
      }),
    ).rejects.toThrow(/not found|NOT_FOUND/i);
    const before = t.app.database.operationCount();
    let atReplay = -1;
    const seen: Seen[] = [];
    const outcome = await followItems(t, run.id, null, (item) => {
      seen.push(item);
      if (atReplay < 0) {
        atReplay = t.app.database.operationCount() - before;
        held.open();
      }
    });
    expect(atReplay).toBe(0);
    expect(outcome).toBe('complete');
    expect(seen[0]).toMatchObject({ ordinal: 1, state: 'completed' });
    expect(seen.at(-1)).toMatchObject({ ordinal: 2, state: 'completed', text: ANSWER });
    expectInOrderOnce(seen);
  });

  it('a subscriber to a run still queued behind another claim waits for its own, then starts from the live tail', async () => {
    // A claim reads trace_spans (a resumed run's parent span): with the table locked, the first run's
    // claim waits in PostgreSQL and the second run waits behind it in the pool's queue.
    await withTableLocked(t.databaseUrl, 'trace_spans', (lock, release) =>
      recordStatements(async (statements) => {
        // The feed's first read, caught where node-postgres sends it: `"runWorkspaceId"` names it.
        const feedReads = (runId: string) => statements.filter((s) => s.text.includes('"runWorkspaceId"') && s.values.includes(runId));
        loopback.turns.push({ text: ANSWER }, { text: ANSWER });
        const first = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('one') } })).body;
        await waitFor(
          () => lockWaiters(lock, '%claimed AS%'),
          (n) => n === 1,
          'the first claim to wait for the lock',
        );
        const second = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('two') } })).body;
        expect(second.status).toBe('accepted');
        const open = async () => (await processRegistry.getSingleMetric('wsa_subscriptions_open')!.get()).values[0]?.value ?? 0;
        const before = await open();
        const seen: Seen[] = [];
        const outcome = followItems(t, second.id, null, (item) => void seen.push(item));
        await waitFor(open, (n) => n === before + 1, 'the subscription to start');
        // A feed that did not wait would have read the accepted run by now (its read takes no lock).
        expect(feedReads(second.id)).toEqual([]);
        await release();
        expect(await outcome).toBe('complete');
        expect(seen.at(-1)).toMatchObject({ ordinal: 2, state: 'completed', text: ANSWER });
        expectInOrderOnce(seen);
        // Claimed here at its first attempt: the feed started from the tail, never from the database.
        expect(feedReads(second.id)).toEqual([]);
        expect((await settleRun(t, first.id)).status).toBe('completed');
      }),
    );
  });
});

describe('runItems, with every worker slot busy', () => {
  let busy: TestApp;
  let agentId: string;
  beforeAll(async () => {
    busy = await startTestApp({ runWorkers: 1, allowPlainHttpEndpoints: ['127.0.0.1'] });
    await addLoopbackModel(busy, loopback, 'loop');
    agentId = (await busy.rest('POST', '/api/v1/agents', { body: { name: 'live', config: { model: 'loop' } } })).body.id;
  });
  afterAll(async () => {
    await busy?.stop();
  });

  it('a run the pool cannot claim now lets its subscribers read it at once, and they follow it when it starts', async () => {
    const held = streamGate(0);
    loopback.turns.push({ text: ANSWER, gate: held.gate }, { text: ANSWER });
    const first = (await busy.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('one') } })).body;
    await held.reached;
    const second = (await busy.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('two') } })).body;
    expect(second.status).toBe('accepted');
    // The only slot is busy: the run stays queued in the database, and no feed waits for a claim of it.
    const local = localRuns(busy.app.deps.events);
    await waitFor(
      () =>
        Promise.race([local.settled(second.id).then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]),
      (released) => released,
      'the queued run to be released to the database read',
    );
    const seen: Seen[] = [];
    const outcome = followItems(busy, second.id, null, (item) => void seen.push(item));
    held.open();
    expect(await outcome).toBe('complete');
    expect(seen.at(-1)).toMatchObject({ ordinal: 2, state: 'completed', text: ANSWER });
    expectInOrderOnce(seen);
    expect((await settleRun(busy, first.id)).status).toBe('completed');
  });
});

describe.skipIf(!redisAvailable)('runItems and waits across instances (Redis)', () => {
  let front: TestApp;
  let back: TestApp;
  let agentId: string;
  beforeAll(async () => {
    front = await startTestApp({ runWorkers: 0, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] });
    back = await startTestApp({ runWorkers: 2, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] }, front);
    await addLoopbackModel(front, loopback, 'loop');
    agentId = (await front.rest('POST', '/api/v1/agents', { body: { name: 'live', config: { model: 'loop' } } })).body.id;
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
  });
  streamingGuarantees(() => ({ front, agentId }));

  it('a subscriber to a running run reads the database once, and ends on the live status without reading again', async () => {
    const held = streamGate(2);
    loopback.turns.push({ text: ANSWER, gate: held.gate });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await held.reached;
    // The front instance runs no workers: every query it makes while following is the subscription's.
    const before = front.app.database.operationCount();
    const seen: Seen[] = [];
    const outcome = await followItems(front, run.id, null, (item) => {
      seen.push(item);
      if (item.ordinal === 2 && item.state === 'in_progress') held.open();
    });
    expect(outcome).toBe('complete');
    expect(seen.at(-1)).toMatchObject({ ordinal: 2, state: 'completed', text: ANSWER });
    expectInOrderOnce(seen);
    expect(front.app.database.operationCount() - before).toBe(1);
  });

  it('a wait on one instance answers when another instance seals the run', async () => {
    loopback.turns.push({ text: 'done elsewhere' });
    const created = await front.rest('POST', '/api/v1/runs', {
      headers: { prefer: 'wait=30' },
      body: { agent_id: agentId, input: text('go') },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=30');
    expect(created.body).toMatchObject({ status: 'completed', output: 'done elsewhere' });
  });

  it('a wait for a new run listens before the run is written: the creation is its only query on the instance', async () => {
    loopback.turns.push({ text: 'first' }, { text: 'second' });
    const wait = () =>
      front.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=30' }, body: { agent_id: agentId, input: text('go') } });
    expect((await wait()).body.status).toBe('completed');
    // That request authenticated the key just now; the front instance runs no workers.
    const before = front.app.database.operationCount();
    expect((await wait()).body).toMatchObject({ status: 'completed', output: 'second' });
    expect(front.app.database.operationCount() - before).toBe(1);
  });

  it('runStatus reads the run once, then follows it live until it is sealed', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'held back', gate: held.gate });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('go') } })).body;
    await held.reached;
    const before = front.app.database.operationCount();
    const seen: string[] = [];
    const outcome = await subscribe(front, 'subscription($id: ID!) { runStatus(runId: $id) { status } }', { id: run.id }, (data) => {
      seen.push(data.runStatus.status);
      if (seen.length === 1) held.open();
    });
    expect(outcome).toBe('complete');
    expect(seen[0]).toBe('running');
    expect(seen.at(-1)).toBe('completed');
    expect(front.app.database.operationCount() - before).toBe(1);
  });
});

describe('runStatus', () => {
  const STATUS = 'subscription($id: ID!) { runStatus(runId: $id) { id status version } }';

  it('emits a sealed run once and completes', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'echo', config: { model: 'dev' } } })).body;
    const run = (await t.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=30' }, body: { agent_id: agent.id, input: text('hi') } }))
      .body;
    expect(run.status).toBe('completed');
    const seen: string[] = [];
    expect(await subscribe(t, STATUS, { id: run.id }, (data) => void seen.push(data.runStatus.status))).toBe('complete');
    expect(seen).toEqual(['completed']);
  });

  it('emits the current run first, then its changes, and completes when it is sealed', async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'held', config: { model: 'loop' } } })).body;
    const held = streamGate(1);
    loopback.turns.push({ text: 'later', gate: held.gate });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('hi') } })).body;
    await held.reached;
    const seen: { status: string; version: number }[] = [];
    const outcome = await subscribe(t, STATUS, { id: run.id }, (data) => {
      seen.push({ status: data.runStatus.status, version: data.runStatus.version });
      if (seen.length === 1) held.open();
    });
    expect(outcome).toBe('complete');
    expect(seen[0]!.status).toBe('running');
    expect(seen.at(-1)!.status).toBe('completed');
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.version).toBeGreaterThan(seen[i - 1]!.version);
  });

  it("answers another workspace's run as not found", async () => {
    const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'mine', config: { model: 'dev' } } })).body;
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('hi') } })).body;
    const other = { ...t, apiKey: otherKey };
    await expect(subscribe(other, STATUS, { id: run.id }, () => undefined)).rejects.toThrow(/not_found/);
  });
});

describe('waiting for a run (Prefer: wait=N, the wait argument)', () => {
  let echo: string;
  let loop: string;
  beforeAll(async () => {
    echo = (await t.rest('POST', '/api/v1/agents', { body: { name: 'echo', config: { model: 'dev' } } })).body.id;
    loop = (await t.rest('POST', '/api/v1/agents', { body: { name: 'loop', config: { model: 'loop' } } })).body.id;
  });
  const start = (agentId: string, prefer?: string) =>
    t.rest('POST', '/api/v1/runs', { headers: prefer ? { prefer } : {}, body: { agent_id: agentId, input: text('hello') } });

  it('answers a wait at once, with the run as it is, when the service stops', async () => {
    // A second instance with no workers takes the request; this file's instance runs the run and holds it
    // mid-stream. The run is written only after the wait listens, so once it streams the wait is in place.
    const stopping = await startTestApp({ runWorkers: 0, allowPlainHttpEndpoints: ['127.0.0.1'] }, t);
    const held = streamGate(1);
    loopback.turns.push({ text: 'held until after the stop', gate: held.gate });
    const answer = stopping.rest('POST', '/api/v1/runs', { headers: { prefer: 'wait=60' }, body: { agent_id: loop, input: text('go') } });
    await held.reached;
    await stopping.stop();
    const created = await answer;
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=60');
    expect(created.body.status).not.toBe('completed');
    held.open();
    expect((await t.rest('GET', `/api/v1/runs/${created.body.id}`, { headers: { prefer: 'wait=30' } })).body.status).toBe('completed');
  });

  it('answers with the sealed run, keeping the status code', async () => {
    const created = await start(echo, 'wait=30');
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=30');
    expect(created.body).toMatchObject({ status: 'completed', output: 'echo: hello' });
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:${created.body.version}"`);
    const read = await t.rest('GET', `/api/v1/runs/${created.body.id}`, { headers: { prefer: 'wait=5' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('preference-applied')).toBe('wait=5');
    expect(read.body.status).toBe('completed');
  });

  it('answers with the waiting run (tool approval), and resume waits for its successor', async () => {
    const agent = (
      await t.rest('POST', '/api/v1/agents', {
        body: {
          name: 'asks',
          config: {
            model: 'dev',
            model_settings: { script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: {} } }], [{ text: 'Not deleted.' }]] },
            client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
          },
        },
      })
    ).body;
    const waiting = await start(agent.id, 'wait=30');
    expect(waiting.headers.get('preference-applied')).toBe('wait=30');
    expect(waiting.body).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const successor = await t.rest('POST', `/api/v1/runs/${waiting.body.id}/resume`, {
      headers: { 'idempotency-key': 'deny', prefer: 'wait=30' },
      body: { approvals: { del_1: { action: 'deny' } } },
    });
    expect(successor.status).toBe(200);
    expect(successor.headers.get('preference-applied')).toBe('wait=30');
    expect(successor.body).toMatchObject({ status: 'completed', output: 'Not deleted.' });
  });

  it('answers with the run as it is when the time is up, then a later wait sees it sealed', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'slow answer', gate: held.gate });
    const created = await start(loop, 'wait=1');
    expect(created.status).toBe(201);
    expect(created.headers.get('preference-applied')).toBe('wait=1');
    expect(['accepted', 'running']).toContain(created.body.status);
    await held.reached;
    const read = t.graphql('query($id: ID!) { run(id: $id, wait: 30) { status output } }', { id: created.body.id });
    held.open();
    expect((await read).data.run).toEqual({ status: 'completed', output: 'slow answer' });
  });

  it("answers 404 for another workspace's run, at once", async () => {
    const run = (await start(echo)).body;
    const read = await t.rest('GET', `/api/v1/runs/${run.id}`, { token: otherKey, headers: { prefer: 'wait=30' } });
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('not_found');
    expect(read.headers.get('preference-applied')).toBeNull();
  });

  it('ignores Prefer values that are not a wait in seconds, and cuts long waits to the maximum', async () => {
    for (const prefer of ['wait=abc', 'wait=-1', 'wait=1.5', 'wait', 'wait=', 'handling=strict']) {
      const created = await start(echo, prefer);
      expect(created.status, prefer).toBe(201);
      expect(created.headers.get('preference-applied'), prefer).toBeNull();
    }
    const capped = await start(echo, 'respond-async, wait=100000');
    expect(capped.headers.get('preference-applied')).toBe('wait=60');
    expect(capped.body.status).toBe('completed');
    const quoted = await start(echo, 'wait="7"; foo=bar');
    expect(quoted.headers.get('preference-applied')).toBe('wait=7');
    // GraphQL refuses what REST would ignore: an argument is the caller's explicit request.
    for (const wait of [-1, 61]) {
      const result = await t.graphql(
        'mutation($a: String!, $w: Int) { startRun(input: {agentId: $a, input: {content: [{type: "text", text: "hi"}]}}, wait: $w) { run { id } } }',
        {
          a: echo,
          w: wait,
        },
      );
      expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'wait' } });
    }
  });

  it('waits for the run a delivery or a fork starts; a delivery that queues answers at once', async () => {
    const first = (await start(echo, 'wait=30')).body;
    const delivered = await t.rest('POST', `/api/v1/threads/${first.thread_id}/inbox`, {
      headers: { prefer: 'wait=30' },
      body: { payload: text('again') },
    });
    expect(delivered.status).toBe(201);
    expect(delivered.headers.get('preference-applied')).toBe('wait=30');
    expect(delivered.body.run).toMatchObject({ status: 'completed', output: 'echo: again' });
    expect(delivered.body).not.toHaveProperty('waited');
    const forked = await t.rest('POST', `/api/v1/runs/${first.id}/fork`, {
      headers: { prefer: 'wait=30', 'idempotency-key': 'fork-1' },
      body: { payload: text('fork') },
    });
    expect(forked.status).toBe(201);
    expect(forked.headers.get('preference-applied')).toBe('wait=30');
    expect(forked.body.run).toMatchObject({ status: 'completed', output: 'echo: fork' });

    const held = streamGate(1);
    loopback.turns.push({ text: 'busy for a while', gate: held.gate });
    const busy = (await start(loop)).body;
    await held.reached;
    const queued = await t.rest('POST', `/api/v1/threads/${busy.thread_id}/inbox`, {
      headers: { prefer: 'wait=30' },
      body: { payload: text('after you'), agent_id: echo },
    });
    expect(queued.status).toBe(201);
    expect(queued.headers.get('preference-applied')).toBeNull();
    expect(queued.body.entry.status).toBe('pending');
    held.open();
  });

  it('waits over graphql-ws too', async () => {
    const result = await new Promise<any>((resolve, reject) => {
      const ws = createClient({
        url: `${t.url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { authorization: `Bearer ${t.apiKey}` },
      });
      ws.subscribe(
        {
          query:
            'mutation($a: String!) { startRun(input: {agentId: $a, input: {content: [{type: "text", text: "ws"}]}}, wait: 30) { run { status output } } }',
          variables: { a: echo },
        },
        { next: (value) => resolve(value), error: reject, complete: () => void ws.dispose() },
      );
    });
    expect(result.data.startRun.run).toEqual({ status: 'completed', output: 'echo: ws' });
  });
});
