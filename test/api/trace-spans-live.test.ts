// The runTraceSpans subscription over graphql-ws against a real service and a loopback model the
// test holds mid-stream: a follower that arrives while an attempt runs gets the attempt's spans that
// are not stored yet (started and ended ones, sent again at its request), then each span's end as it
// happens, and the subscription completes when the run settles — its spans then equal the stored
// trace, and the model request carries its time to first token. A settled run's trace is sent
// whole and the subscription completes at once. Another workspace's run and an unknown id are not
// found. Across instances (Redis), a follower on an instance without workers hears the spans of an
// attempt another instance runs, including those it holds from before the follower came.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { settleRun } from '../helpers/runs.js';
import { createWorkspace } from '../../src/features/access/admin.js';

interface Update {
  inProgress: boolean;
  span: { spanId: string; parentSpanId: string | null; name: string; runId: string; attributes: Record<string, unknown> };
}

const QUERY = `subscription ($runId: ID!) { runTraceSpans(runId: $runId) { inProgress span { spanId parentSpanId name runId attributes } } }`;
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** Follows a run's trace; `until` waits for an update that matches; `done` settles when the service completes it. */
function followTrace(url: string, token: string, runId: string) {
  const ws: Client = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
  });
  const seen: Update[] = [];
  const waiters: { test: (update: Update) => boolean; resolve: () => void }[] = [];
  const done = new Promise<void>((resolve, reject) =>
    ws.subscribe(
      { query: QUERY, variables: { runId } },
      {
        next: (value) => {
          if (value.errors) return reject(Object.assign(new Error('errors'), { errors: value.errors }));
          const update = (value.data as { runTraceSpans: Update }).runTraceSpans;
          seen.push(update);
          for (const waiter of [...waiters])
            if (waiter.test(update)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve();
            }
        },
        error: reject,
        complete: resolve,
      },
    ),
  );
  done.catch(() => undefined);
  return {
    seen,
    done,
    until: (test: (update: Update) => boolean) =>
      seen.some(test) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ test, resolve })),
    /** Each span's final state: an ended state is never replaced by an in-progress one. */
    final(): Map<string, Update> {
      const spans = new Map<string, Update>();
      for (const update of seen)
        if (!(update.inProgress && spans.get(update.span.spanId)?.inProgress === false)) spans.set(update.span.spanId, update);
      return spans;
    },
    close: () => ws.dispose(),
  };
}

const storedSpans = async (t: TestApp, runId: string) =>
  (await t.rest('GET', `/api/v1/runs/${runId}/trace`)).body.spans as {
    span_id: string;
    name: string;
    attributes: Record<string, unknown>;
  }[];

describe('runTraceSpans', () => {
  let t: TestApp;
  let loopback: ModelServer;
  let otherKey: string;
  let agentId: string;
  beforeAll(async () => {
    loopback = await startOpenAICompatibleServer();
    t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
    await addLoopbackModel(t, loopback, 'loop');
    otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
    agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'followed', config: { model: 'loop' } } })).body.id;
  });
  afterAll(async () => {
    await t?.stop();
    await loopback?.close();
  });

  it('sends a running attempt’s spans to a late follower, then each end as it happens, and completes when the run settles', async () => {
    const held = streamGate(1);
    loopback.turns.push({ text: 'Hello from a held stream.', gate: held.gate });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('hi') } })).body;
    await held.reached;
    const follow = followTrace(t.url, t.apiKey, run.id);
    try {
      // Nothing of the attempt is stored yet: the attempt and its model request come from the replay, open.
      await follow.until((u) => u.inProgress && u.span.name.startsWith('invoke_agent'));
      await follow.until((u) => u.inProgress && u.span.name.startsWith('chat'));
      expect(follow.seen.every((u) => u.inProgress)).toBe(true);
      held.open();
      await follow.done;
      const final = follow.final();
      expect([...final.values()].every((u) => !u.inProgress)).toBe(true);
      const stored = await storedSpans(t, run.id);
      expect(new Set(final.keys())).toEqual(new Set(stored.map((s) => s.span_id)));
      const chat = stored.find((s) => s.name.startsWith('chat'))!;
      expect(chat.attributes['wsa.model.time_to_first_token_ms']).toEqual(expect.any(Number));
      expect(final.get(chat.span_id)!.span.attributes['gen_ai.usage.output_tokens']).toBe(7);
    } finally {
      await follow.close();
    }
  });

  it('sends a settled run’s stored trace and completes at once', async () => {
    loopback.turns.push({ text: 'Done.' });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('hi') } })).body;
    await settleRun(t, run.id);
    const follow = followTrace(t.url, t.apiKey, run.id);
    await follow.done;
    const stored = await storedSpans(t, run.id);
    expect(follow.seen.map((u) => u.span.spanId)).toEqual(stored.map((s) => s.span_id));
    expect(follow.seen.every((u) => !u.inProgress)).toBe(true);
  });

  it('does not follow another workspace’s run or an unknown one', async () => {
    loopback.turns.push({ text: 'Mine.' });
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('hi') } })).body;
    for (const [token, runId] of [
      [otherKey, run.id],
      [t.apiKey, 'run_01JAAAAAAAAAAAAAAAAAAAAAAA'],
    ]) {
      const follow = followTrace(t.url, token!, runId!);
      // graphql-ws reports a refused subscription's errors as an array (or, in `next`, on the result).
      const caught = await follow.done.then(
        () => null,
        (error: unknown) => error,
      );
      const errors = (Array.isArray(caught) ? caught : (caught as { errors?: unknown[] } | null)?.errors) as
        { extensions?: { code?: string } }[] | undefined;
      expect(errors?.[0]?.extensions?.code).toBe('not_found');
      expect(follow.seen).toEqual([]);
      await follow.close();
    }
    await settleRun(t, run.id);
  });
});

const redisAvailable = await redisReachable();

describe.skipIf(!redisAvailable)('runTraceSpans across instances (Redis)', () => {
  let front: TestApp;
  let back: TestApp;
  let loopback: ModelServer;
  beforeAll(async () => {
    loopback = await startOpenAICompatibleServer();
    front = await startTestApp({ runWorkers: 0, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] });
    back = await startTestApp({ runWorkers: 2, redisUrl, allowPlainHttpEndpoints: ['127.0.0.1'] }, front);
    await addLoopbackModel(front, loopback, 'loop');
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
    await loopback?.close();
  });

  it('a follower on one instance hears the spans of an attempt another instance runs', async () => {
    const agent = (await front.rest('POST', '/api/v1/agents', { body: { name: 'remote', config: { model: 'loop' } } })).body;
    const held = streamGate(1);
    loopback.turns.push({ text: 'Hello across instances.', gate: held.gate });
    const run = (await front.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('hi') } })).body;
    await held.reached;
    const follow = followTrace(front.url, front.apiKey, run.id);
    try {
      // Held by the back instance's worker, asked for through Redis.
      await follow.until((u) => u.inProgress && u.span.name.startsWith('chat'));
      held.open();
      await follow.done;
      const stored = await storedSpans(front, run.id);
      expect(new Set(follow.final().keys())).toEqual(new Set(stored.map((s) => s.span_id)));
      expect([...follow.final().values()].every((u) => !u.inProgress)).toBe(true);
    } finally {
      await follow.close();
    }
  });
});
