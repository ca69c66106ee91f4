// No webhook delivery is lost across a SIGKILL of the service: the service runs as a child process
// and delivers; one delivery is mid-attempt (the receiver holds its answer) and another event is
// written while the service is down. After the kill and a restart both arrive, the interrupted one
// again with the same webhook-id, and both are recorded as succeeded. The test app in this process
// only serves the API (it delivers nothing and runs no workers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startServiceProcess, type ServiceProcess } from '../helpers/process.js';
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let r: WebhookReceiver;
const services: ServiceProcess[] = [];

function startService(): Promise<ServiceProcess> {
  return startServiceProcess({
    DATABASE_URL: t.databaseUrl,
    // The same data directory: the same generated secret key, which unseals the signing secrets.
    DATA_DIR: t.app.deps.config.dataDir,
    RUN_WORKERS: '0',
    WEBHOOK_DELIVERY_CONCURRENCY: '2',
    // A short time-out makes the claim of the killed process (twice the time-out and 1 s) end soon.
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_SCHEDULE: '0.05,0.05,0.05',
    ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: '127.0.0.1',
  }).then((service) => {
    services.push(service);
    return service;
  });
}

beforeAll(async () => {
  r = await startWebhookReceiver();
  t = await startTestApp({
    runWorkers: 0,
    webhookDeliveryConcurrency: 0,
    allowPlainHttpEndpoints: ['127.0.0.1'],
    outboundAllowPrivate: ['127.0.0.1'],
  });
});
afterAll(async () => {
  for (const service of services) if (service.child.exitCode === null) service.child.kill('SIGKILL');
  await t?.stop();
  await r?.close();
});

describe('webhook deliveries across a SIGKILL', () => {
  it('an interrupted attempt and an event written while the service was down both arrive after a restart', async () => {
    const created = await t.rest('POST', '/api/v1/webhook-subscriptions', { body: { url: r.url, event_kinds: ['model.changed'] } });
    expect(created.status).toBe(201);
    const sub = created.body as { id: string; secret: string };
    // The receiver holds its first answer: the service is provably mid-attempt when it is killed.
    r.plan.push({ hang: true });
    const first = await startService();
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    const held = await r.waitFor((h) => h.headers['webhook-id'] === ping.body.event_id, 'the held attempt');
    first.child.kill('SIGKILL');
    await first.exited;

    // Written while no process delivers: it waits in the outbox.
    const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'p' } });
    await t.rest('POST', '/api/v1/models', { body: { key: 'while-down', provider_id: provider.body.id, provider_model: 'echo' } });
    const pending = (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries`)).body.items;
    expect(pending.map((d: { status: string }) => d.status)).toEqual(['pending', 'pending']);

    await startService();
    const again = await r.waitFor(
      (h) => h.headers['webhook-id'] === ping.body.event_id && h !== held,
      'the interrupted ping again',
      60_000,
    );
    expect(again.body).toBe(held.body);
    verifyHook(sub.secret, again);
    const model = await r.waitFor(
      (h) => h.json.type === 'model.changed' && h.json.data.model_key === 'while-down',
      'the event written while down',
    );
    verifyHook(sub.secret, model);
    const deliveries = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries`)).body.items,
      (items: any[]) => items.length === 2 && items.every((d) => d.status === 'succeeded'),
      'both deliveries recorded as succeeded',
      60_000,
    );
    // The killed attempt left no record (it never finished); the restarted service's attempt is its first recorded one.
    const pingDelivery = deliveries.find((d) => d.id === ping.body.id)!;
    expect(pingDelivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([204]);
    expect(pingDelivery.event_id).toBe(ping.body.event_id);
  }, 180_000);
});
