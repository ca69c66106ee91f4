// Webhook retention (WEBHOOK_RETENTION_DAYS, 30 by default): the run workers' housekeeping deletes
// deliveries that settled (succeeded, or failed for good) longer ago than the retention, then events
// that old with no delivery left; pending deliveries stay whatever their age, and so do recent ones
// and the events they belong to. Retention is global: two workspaces' rows follow the same rule.
// Deliveries are made and settled by the real deliverers against real loopback receivers; only their
// timestamps are moved into the past, in the database, as the trace retention test does. A deleted
// delivery reads 404 through REST like any unknown id. The deletion statements are checked to be
// served by their indexes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Prisma } from '../../src/generated/prisma/client.js';
import { restClient, startTestApp, type Rest, type TestApp } from '../helpers/app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { expiredDeliveriesStatement, expiredEventsStatement } from '../../src/features/webhooks/webhook-retention.js';

let t: TestApp;
let other: Rest;
let accepting: WebhookReceiver;
let refusing: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({
    allowPlainHttpEndpoints: ['127.0.0.1'],
    outboundAllowPrivate: ['127.0.0.1'],
    // One retry, an hour after a failed first attempt: a failing delivery stays pending meanwhile.
    webhookRetryDelaysMs: [3_600_000],
    webhookTimeoutMs: 1_000,
  });
  other = restClient(t.url, (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token);
  accepting = await startWebhookReceiver();
  refusing = await startWebhookReceiver();
  refusing.fallback = { status: 500 };
});
afterAll(async () => {
  await t?.stop();
  await accepting?.close();
  await refusing?.close();
});

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    return (await client.query(query, params)).rows as T[];
  } finally {
    await client.end();
  }
}

interface Delivery {
  id: string;
  event_id: string;
  subscription_id: string;
  status: string;
  attempt_count: number;
}

async function subscribe(rest: Rest, url: string): Promise<string> {
  const created = await rest('POST', '/api/v1/webhook-subscriptions', { body: { url, event_kinds: ['run.completed'] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

async function ping(rest: Rest, subscriptionId: string): Promise<Delivery> {
  const queued = await rest('POST', `/api/v1/webhook-subscriptions/${subscriptionId}/test`);
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  return queued.body;
}

const read = (rest: Rest, d: Delivery) => rest('GET', `/api/v1/webhook-subscriptions/${d.subscription_id}/deliveries/${d.id}`);

async function until(rest: Rest, d: Delivery, ok: (d: Delivery) => boolean, what: string): Promise<Delivery> {
  return waitFor(async () => (await read(rest, d)).body as Delivery, ok, `${d.id} ${what}`);
}

/**
 * A workspace's deliveries, each settled by the real deliverers: two succeeded (to an accepting
 * receiver), one pending after a failed first attempt and one failed for good (to a refusing
 * receiver), and two pings of a subscription deleted afterwards (their events left without deliveries).
 */
async function deliveriesOf(rest: Rest) {
  const toAccepting = await subscribe(rest, accepting.url);
  const toRefusing = await subscribe(rest, refusing.url);
  const gone = await subscribe(rest, accepting.url);
  const oldSucceeded = await ping(rest, toAccepting);
  const recentSucceeded = await ping(rest, toAccepting);
  const failed = await ping(rest, toRefusing);
  const pending = await ping(rest, toRefusing);
  const orphans = [await ping(rest, gone), await ping(rest, gone)];
  for (const d of [oldSucceeded, recentSucceeded, ...orphans]) await until(rest, d, (r) => r.status === 'succeeded', 'to succeed');
  for (const d of [failed, pending]) await until(rest, d, (r) => r.attempt_count === 1, 'to fail its first attempt');
  // The retry of `failed`, due in an hour, made due now and announced: its second attempt fails for good.
  await sql(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id = $1`, [failed.id]);
  await sql(`SELECT pg_notify('webhook_deliveries', $1)`, [failed.event_id]);
  await until(rest, failed, (r) => r.status === 'failed', 'to fail for good');
  expect((await read(rest, pending)).body).toMatchObject({ status: 'pending', attempt_count: 1 });
  const deleted = await rest('DELETE', `/api/v1/webhook-subscriptions/${gone}`);
  expect(deleted.status).toBe(204);
  return { oldSucceeded, recentSucceeded, failed, pending, orphans };
}

const daysAgo = (days: number) => `now() - interval '${days} days'`;

describe('webhook retention', () => {
  it('the workers delete settled deliveries and delivery-less events older than WEBHOOK_RETENTION_DAYS; pending and recent ones stay', async () => {
    expect(t.app.deps.config.webhookRetentionDays).toBe(30);
    const a = await deliveriesOf(t.rest);
    const b = await deliveriesOf(other);

    for (const w of [a, b]) {
      // Written 40 days ago, every one of them (the events too).
      const ids = [w.oldSucceeded, w.recentSucceeded, w.failed, w.pending].map((d) => d.id);
      await sql(`UPDATE webhook_deliveries SET created_at = ${daysAgo(40)} WHERE id = ANY($1)`, [ids]);
      await sql(`UPDATE webhook_events SET created_at = ${daysAgo(40)} WHERE id = ANY($1)`, [
        [w.oldSucceeded, w.recentSucceeded, w.failed, w.pending, w.orphans[0]!].map((d) => d.event_id),
      ]);
      // Settled 31 days ago: past the retention. `recentSucceeded` settled a day ago (as after a
      // redelivery): retention counts from when a delivery settled, not from when it was written.
      await sql(`UPDATE webhook_deliveries SET completed_at = ${daysAgo(31)} WHERE id = ANY($1)`, [[w.oldSucceeded.id, w.failed.id]]);
      await sql(`UPDATE webhook_deliveries SET completed_at = ${daysAgo(1)} WHERE id = $1`, [w.recentSucceeded.id]);
    }

    // Not yet time for a sweep (the first comes minutes after the pool starts): nothing goes.
    expect(await t.app.housekeeping!.sweepWebhooks()).toEqual({ deliveries: 0, events: 0 });
    expect(await read(t.rest, a.oldSucceeded)).toMatchObject({ status: 200 });

    const swept = await t.app.housekeeping!.sweepWebhooks(Date.now() + 10 * 3_600_000);
    // Both workspaces: the old succeeded and the failed deliveries; their events and the old orphan.
    expect(swept).toEqual({ deliveries: 4, events: 6 });

    for (const [rest, w] of [
      [t.rest, a],
      [other, b],
    ] as const) {
      for (const d of [w.oldSucceeded, w.failed]) {
        const gone = await read(rest, d);
        expect(gone.status, JSON.stringify(gone.body)).toBe(404);
        expect(gone.body.error.code).toBe('not_found');
        const again = await rest('POST', `/api/v1/webhook-subscriptions/${d.subscription_id}/deliveries/${d.id}/redeliver`);
        expect(again.status).toBe(404);
      }
      expect((await read(rest, w.recentSucceeded)).body).toMatchObject({ status: 'succeeded' });
      expect((await read(rest, w.pending)).body).toMatchObject({ status: 'pending', attempt_count: 1 });
      const listed = await rest('GET', `/api/v1/webhook-subscriptions/${w.oldSucceeded.subscription_id}/deliveries`);
      expect(listed.body.items.map((d: Delivery) => d.id)).toEqual([w.recentSucceeded.id]);
    }

    // Events: those of the kept deliveries stay however old; the recent orphan stays too.
    const events = await sql<{ id: string }>(`SELECT id FROM webhook_events ORDER BY id`);
    const kept = [a, b].flatMap((w) => [w.recentSucceeded.event_id, w.pending.event_id, w.orphans[1]!.event_id]);
    expect(events.map((e) => e.id)).toEqual([...kept].sort());

    // The sweep ran: the next is an hour later.
    expect(await t.app.housekeeping!.sweepWebhooks(Date.now() + 10 * 3_600_000 + 60_000)).toEqual({ deliveries: 0, events: 0 });
  });

  it('the deletion statements are served by indexes, not a scan of the tables', async () => {
    const plan = async (statement: Prisma.Sql) =>
      t.app.deps.db.$transaction(async (tx) => {
        // The tables are tiny here: with sequential scans priced out, the plan shows the usable indexes.
        await tx.$executeRaw`SET LOCAL enable_seqscan = off`;
        const rows = await tx.$queryRaw<{ 'QUERY PLAN': string }[]>(Prisma.sql`EXPLAIN ${statement}`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    const deliveries = await plan(expiredDeliveriesStatement(30, 5_000));
    expect(deliveries).toContain('webhook_deliveries_settled_idx');
    expect(deliveries).not.toMatch(/Seq Scan/);
    const events = await plan(expiredEventsStatement(30, 5_000));
    expect(events).toContain('webhook_events_created_at_idx');
    expect(events).toContain('webhook_deliveries_event_id_idx');
    expect(events).not.toMatch(/Seq Scan/);
  });
});
