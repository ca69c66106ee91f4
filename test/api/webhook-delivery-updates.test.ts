// The webhookDeliveryUpdated subscription over graphql-ws against a real service and a loopback
// receiver the test holds: a delivery made by the outbox (an agent's first revision) is emitted
// created → attempted (the receiver answered 500, a retry is scheduled) → delivered (the retry
// succeeded), then queued again by a redelivery and delivered again — each state once, in order,
// with no polling. Every attempt is held at the receiver until the test has seen the state before
// it, so each emission can only come from the announcement under test. Another workspace's
// subscription and an unknown id are not found, a key without `admin` is refused; and a client that
// goes away leaves no listener behind (in process, and through Redis: the SUBSCRIBE is withdrawn).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { startWebhookReceiver, type Answer, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { dueDeliveryFollowers } from '../../src/features/webhooks/webhook-delivery-watch.js';

const FIELDS = 'id subscriptionId eventKind status attemptCount lastStatusCode attempts { attempt statusCode }';

type DeliverySeen = {
  id: string;
  subscriptionId: string;
  eventKind: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  attempts: { attempt: number; statusCode: number | null }[];
};

const appOptions = {
  allowPlainHttpEndpoints: ['127.0.0.1'],
  // The receiver is on loopback: allowed by name, as a deployment would allow its own receivers.
  outboundAllowPrivate: ['127.0.0.1'],
  // A retry comes at once; the receiver's gates decide when each attempt ends.
  webhookRetryDelaysMs: [10, 10],
  webhookTimeoutMs: 20_000,
};

/** A webhookDeliveryUpdated subscription that records what it emits; `until` waits for an emission that matches. */
function followDeliveries(url: string, token: string, subscriptionId: string) {
  const ws = createClient({
    url: `${url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    lazy: false,
  });
  const seen: DeliverySeen[] = [];
  const waiters: { test: (delivery: DeliverySeen) => boolean; resolve: (delivery: DeliverySeen) => void }[] = [];
  let failed!: (error: unknown) => void;
  const errored = new Promise<never>((_, reject) => (failed = reject));
  errored.catch(() => undefined);
  ws.subscribe(
    {
      query: `subscription ($id: ID!) { webhookDeliveryUpdated(subscriptionId: $id) { ${FIELDS} } }`,
      variables: { id: subscriptionId },
    },
    {
      next: (value) => {
        if (value.errors) return failed(value.errors);
        const delivery = (value.data as { webhookDeliveryUpdated: DeliverySeen }).webhookDeliveryUpdated;
        seen.push(delivery);
        for (const waiter of [...waiters])
          if (waiter.test(delivery)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(delivery);
          }
      },
      error: (error) => failed(error),
      complete: () => undefined,
    },
  );
  return {
    seen,
    errored,
    until(test: (delivery: DeliverySeen) => boolean): Promise<DeliverySeen> {
      const already = seen.find(test);
      if (already) return Promise.resolve(already);
      return Promise.race([errored, new Promise<DeliverySeen>((resolve) => waiters.push({ test, resolve }))]);
    },
    /** The socket goes away without a `complete`, as when a browser tab closes. */
    close: () => ws.dispose(),
  };
}

/** An answer the test gives when it decides: the receiver holds the attempt until then. */
function gate() {
  let open!: (answer: Answer) => void;
  const answered = new Promise<Answer>((resolve) => (open = resolve));
  return { plan: { gate: answered }, open };
}

async function createSubscription(t: TestApp, receiver: WebhookReceiver, eventKinds: string[]) {
  const created = await t.rest('POST', '/api/v1/webhook-subscriptions', { body: { url: receiver.url, event_kinds: eventKinds } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string };
}

/** The follower listens (in this process: the outbox relay; the bus listener is added in the same tick). */
async function listening(t: TestApp, subscriptionId: string) {
  await waitFor(
    async () => dueDeliveryFollowers(t.app.deps, subscriptionId),
    (count) => count >= 1,
    'the delivery follower to listen',
  );
}

describe('webhookDeliveryUpdated', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    t = await startTestApp(appOptions);
    await insertModel(t, 'dev');
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('emits an outbox delivery created, attempted, delivered, then redelivered and delivered again', async () => {
    const sub = await createSubscription(t, receiver, ['agent.revision_published']);
    const follow = followDeliveries(t.url, t.apiKey, sub.id);
    try {
      await listening(t, sub.id);
      const first = gate();
      const retry = gate();
      receiver.plan.push(first.plan, retry.plan);

      // The outbox writes the delivery in the transaction of the agent's creation.
      const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'hooked', config: { model: 'dev' } } });
      expect(agent.status).toBe(201);
      const created = await follow.until(() => true);
      expect(created).toMatchObject({ subscriptionId: sub.id, eventKind: 'agent.revision_published', status: 'pending', attemptCount: 0 });
      expect(created.attempts).toEqual([]);

      // The first attempt is at the receiver; it fails, and a retry is scheduled.
      await receiver.waitFor((hook) => hook.json.type === 'agent.revision_published', 'the first attempt');
      first.open({ status: 500, body: 'not now' });
      const attempted = await follow.until((d) => d.attemptCount === 1);
      expect(attempted).toMatchObject({ id: created.id, status: 'pending', lastStatusCode: 500 });

      // The retry succeeds.
      await receiver.waitForCount((hook) => hook.json.type === 'agent.revision_published', 2, 'the retry');
      retry.open({ status: 204 });
      const delivered = await follow.until((d) => d.status === 'succeeded');
      expect(delivered).toMatchObject({ id: created.id, attemptCount: 2, lastStatusCode: 204 });
      expect(delivered.attempts.map((a) => a.statusCode)).toEqual([500, 204]);

      // A redelivery queues it again (same event), and it is delivered again.
      const again = gate();
      receiver.plan.push(again.plan);
      const redelivered = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${created.id}/redeliver`);
      expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(202);
      const queued = await follow.until((d) => d.status === 'pending' && d.attempts.length === 2);
      expect(queued).toMatchObject({ id: created.id, attemptCount: 0 });
      await receiver.waitForCount((hook) => hook.json.type === 'agent.revision_published', 3, 'the redelivery');
      again.open({ status: 200 });
      await follow.until((d) => d.status === 'succeeded' && d.attempts.length === 3);

      // Each state once, in order: no repeats, nothing else.
      expect(follow.seen.map((d) => [d.id, d.status, d.attemptCount, d.attempts.length])).toEqual([
        [created.id, 'pending', 0, 0],
        [created.id, 'pending', 1, 1],
        [created.id, 'succeeded', 2, 2],
        [created.id, 'pending', 0, 2],
        [created.id, 'succeeded', 1, 3],
      ]);
    } finally {
      await follow.close();
    }
    // The socket closed: nothing of the follower is left in this process.
    await waitFor(
      async () => dueDeliveryFollowers(t.app.deps, sub.id),
      (count) => count === 0,
      'the follower to stop listening',
    );
  });

  it('emits a test event delivery, and only to followers of its subscription', async () => {
    const sub = await createSubscription(t, receiver, ['agent.revision_published']);
    const otherSub = await createSubscription(t, receiver, ['agent.revision_published']);
    const follow = followDeliveries(t.url, t.apiKey, sub.id);
    const followOther = followDeliveries(t.url, t.apiKey, otherSub.id);
    try {
      await listening(t, sub.id);
      await listening(t, otherSub.id);
      const held = gate();
      receiver.plan.push(held.plan);
      const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
      expect(ping.status, JSON.stringify(ping.body)).toBe(202);
      const created = await follow.until(() => true);
      expect(created).toMatchObject({ id: ping.body.id, eventKind: 'webhook.ping', status: 'pending', attemptCount: 0 });
      held.open({ status: 204 });
      await follow.until((d) => d.status === 'succeeded');
      // The other subscription's follower heard nothing of it.
      expect(followOther.seen).toEqual([]);
    } finally {
      await follow.close();
      await followOther.close();
    }
  });

  it("answers not_found for another workspace's subscription and an unknown id, permission_denied without admin", async () => {
    const other = await createWorkspace(t.app.deps, { name: 'elsewhere' });
    const foreign = await t.rest('POST', '/api/v1/webhook-subscriptions', {
      body: { url: receiver.url, event_kinds: ['agent.revision_published'] },
      token: other.apiKey.token,
    });
    expect(foreign.status).toBe(201);
    for (const id of [foreign.body.id, 'whs_01AAAAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      const follow = followDeliveries(t.url, t.apiKey, id);
      try {
        expect(JSON.stringify(await follow.errored.catch((e: unknown) => e))).toContain('not_found');
      } finally {
        await follow.close();
      }
    }
    expect(dueDeliveryFollowers(t.app.deps, foreign.body.id)).toBe(0);

    const own = await createSubscription(t, receiver, ['agent.revision_published']);
    const writer = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' })).token;
    const refused = followDeliveries(t.url, writer, own.id);
    try {
      expect(JSON.stringify(await refused.errored.catch((e: unknown) => e))).toContain('permission_denied');
    } finally {
      await refused.close();
    }
    expect(dueDeliveryFollowers(t.app.deps, own.id)).toBe(0);
  });
});

const redisAvailable = await redisReachable();
if (!redisAvailable) console.warn(`Redis not reachable at ${redisUrl}: the Redis part of the delivery follower tests is skipped`);

describe.skipIf(!redisAvailable)('webhookDeliveryUpdated through Redis', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let redis: Redis;
  beforeAll(async () => {
    t = await startTestApp({ ...appOptions, redisUrl });
    receiver = await startWebhookReceiver();
    redis = new Redis(redisUrl);
  });
  afterAll(async () => {
    redis?.disconnect();
    await t?.stop();
    await receiver?.close();
  });

  const subscribers = async (channel: string) => Number(((await redis.call('PUBSUB', 'NUMSUB', channel)) as (string | number)[])[1]);

  it('hears attempts over the bus, and withdraws its SUBSCRIBE when the socket closes', async () => {
    const sub = await createSubscription(t, receiver, ['agent.revision_published']);
    const channel = `webhookDeliveryChanged:${sub.id}`;
    expect(await subscribers(channel)).toBe(0);
    const follow = followDeliveries(t.url, t.apiKey, sub.id);
    await waitFor(
      () => subscribers(channel),
      (count) => count >= 1,
      'the follower to subscribe',
    );
    await listening(t, sub.id);
    const held = gate();
    receiver.plan.push(held.plan);
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    await follow.until((d) => d.id === ping.body.id && d.status === 'pending');
    held.open({ status: 204 });
    await follow.until((d) => d.id === ping.body.id && d.status === 'succeeded');

    await follow.close();
    await waitFor(
      () => subscribers(channel),
      (count) => count === 0,
      'the SUBSCRIBE to be withdrawn',
    );
    expect(dueDeliveryFollowers(t.app.deps, sub.id)).toBe(0);
  });
});
