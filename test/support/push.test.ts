// Web push end to end: the real push code (web-push) against a loopback push service that verifies
// the VAPID JWT and decrypts the aes128gcm payload. Runs do not exist yet, so run notifications are
// driven by calling notifyRunEvent (what the run engine will call) directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import webpush from 'web-push';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { startPushService, type PushService } from '../helpers/push-service.js';
import { testAllowance } from '../helpers/test-dns.js';
import { createUser } from '../../src/features/access/admin.js';
import { notifyRunEvent, vapidKeys } from '../../src/features/support-api/push.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';

let push: PushService;
let t: TestApp;
const users: Record<string, { token: string; headers: Record<string, string> }> = {};

beforeAll(async () => {
  push = await startPushService();
  t = await startTestApp({ pushCaFile: push.caFile, pushActiveWindowSeconds: 60 });
  for (const name of ['ann', 'bob']) {
    await createUser(t.app.deps, {
      email: `${name}@example.com`,
      password: `${name} password`,
      workspaceId: t.workspaceId,
      role: 'writer',
    });
    const login = await t.rest('POST', '/api/auth/login', {
      token: null,
      body: { email: `${name}@example.com`, password: `${name} password` },
    });
    users[name] = { token: login.body.token, headers: { 'x-workspace-id': t.workspaceId } };
  }
});
afterAll(async () => {
  await t.stop();
  await push.stop();
});

async function subscribe(user: string) {
  const browser = push.subscribe();
  const response = await t.rest('PUT', '/api/push/subscription', {
    token: users[user]!.token,
    headers: users[user]!.headers,
    body: { endpoint: browser.endpoint, keys: browser.keys, expiration_time: null },
  });
  expect(response.status).toBe(200);
  return { ...browser, id: response.body.id as string };
}

describe('web push', () => {
  it('POST …/test delivers a VAPID-signed, aes128gcm-encrypted notification and reports the outcome', async () => {
    const config = await t.rest('GET', '/api/push/configuration');
    const ann = await subscribe('ann');
    const before = push.received.length;
    const result = await t.rest('POST', `/api/push/subscriptions/${ann.id}/test`, { token: users.ann!.token, headers: users.ann!.headers });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ subscription_id: ann.id, delivered: true, status_code: 201, removed: false, error: null });
    expect(push.failures).toEqual([]);
    const message = push.received[before]!;
    expect(message.token).toBe(ann.token);
    expect(message.vapidKey).toBe(config.body.public_key); // signed with the advertised key
    expect(message.jwt.claims).toMatchObject({ aud: push.url, sub: 'mailto:operator@localhost' });
    expect(message.payload).toMatchObject({ kind: 'test', title: expect.any(String), url: '/', workspace_id: t.workspaceId });
  });

  it('run notifications reach users not active in the UI, skip active ones, and carry a deep link', async () => {
    const ann = await subscribe('ann');
    const bob = await subscribe('bob');
    // Ann is looking at the UI: no pushes for her while the window lasts.
    expect(
      (await t.rest('POST', `/api/push/subscriptions/${ann.id}/activity`, { token: users.ann!.token, headers: users.ann!.headers })).status,
    ).toBe(204);
    const before = push.received.length;
    const { settled } = notifyRunEvent(t.app.deps, {
      workspaceId: t.workspaceId,
      runId: 'run_01TESTRUN0000000000000000',
      kind: 'waiting',
      waitingFor: 'approval',
      agentName: 'Helper',
    });
    const report = await settled;
    const annUser = (await t.app.deps.db.pushSubscription.findUniqueOrThrow({ where: { id: ann.id } })).principalId;
    expect(report.skippedActive).toContain(annUser);
    const delivered = push.received.slice(before);
    expect(delivered.map((message) => message.token)).toContain(bob.token);
    expect(delivered.map((message) => message.token)).not.toContain(ann.token);
    expect(delivered.find((message) => message.token === bob.token)!.payload).toEqual({
      kind: 'run.waiting',
      title: 'Helper is waiting for an approval',
      body: 'Open the run to answer.',
      url: `/workspaces/${t.workspaceId}/runs/run_01TESTRUN0000000000000000`,
      workspace_id: t.workspaceId,
      run_id: 'run_01TESTRUN0000000000000000',
      waiting_for: 'approval',
      tag: 'run-run_01TESTRUN0000000000000000',
      sent_at: expect.any(String),
    });
    expect(delivered.find((message) => message.token === bob.token)!.headers.urgency).toBe('high');

    for (const kind of ['failed', 'completed_after_wait'] as const) {
      const count = push.received.length;
      await notifyRunEvent(t.app.deps, {
        workspaceId: t.workspaceId,
        runId: 'run_01TESTRUN0000000000000001',
        kind,
        failureCode: kind === 'failed' ? 'model_error' : null,
      }).settled;
      const bobs = push.received.slice(count).filter((message) => message.token === bob.token);
      expect(bobs.map((message) => message.payload.kind)).toEqual([`run.${kind}`]);
    }
    expect(push.failures).toEqual([]);
  });

  it('end to end: a run that starts waiting, and completes after the wait, notifies the workspace', async () => {
    const bob = await subscribe('bob');
    await insertModel(t, 'push-dev');
    const agent = (
      await t.rest('POST', '/api/v1/agents', {
        body: {
          name: 'Pusher',
          config: {
            model: 'push-dev',
            client_tools: [{ name: 'confirm', permission: 'ask' }],
            model_settings: { script: [[{ tool_call: { id: 'c1', name: 'confirm' } }], [{ text: 'ok' }]] },
          },
        },
      })
    ).body;
    const run = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } }))
      .body;
    const received = (kind: string, runId: string) =>
      waitFor(
        async () =>
          push.received.find((m) => m.token === bob.token && (m.payload as any).run_id === runId && (m.payload as any).kind === kind),
        Boolean,
        `${kind} push for ${runId}`,
      ).then((m) => m!);
    const waiting = await received('run.waiting', run.id);
    expect(waiting.payload).toMatchObject({ waiting_for: 'approval', url: `/workspaces/${t.workspaceId}/runs/${run.id}` });
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'k' },
      body: { approvals: { c1: { action: 'deny' } } },
    });
    expect(successor.status).toBe(200);
    await received('run.completed_after_wait', successor.body.id);
  });

  it('never blocks the caller: notifyRunEvent returns before the push service answers', async () => {
    await subscribe('bob');
    // The push service answers nothing until released: notifyRunEvent must hand control back anyway.
    const release = push.hold();
    try {
      let answered = false;
      const { settled } = notifyRunEvent(t.app.deps, {
        workspaceId: t.workspaceId,
        runId: 'run_01TESTRUN0000000000000002',
        kind: 'failed',
      });
      void settled.then(() => (answered = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(answered).toBe(false);
      release();
      const report = await settled;
      expect(report.sent.length).toBeGreaterThan(0);
    } finally {
      release();
    }
    // A failing database or push service is logged, never thrown into the caller.
    const broken = notifyRunEvent(
      { ...t.app.deps, db: { pushSubscription: { findMany: () => Promise.reject(new Error('down')) } } as never },
      { workspaceId: t.workspaceId, runId: 'run_x', kind: 'failed' },
    );
    await expect(broken.settled).resolves.toEqual({ sent: [], skippedActive: [] });
  });

  it('users who lost access to the workspace get no run notifications', async () => {
    await createUser(t.app.deps, { email: 'cy@example.com', password: 'cy password', workspaceId: t.workspaceId, role: 'reader' });
    const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'cy@example.com', password: 'cy password' } });
    users.cy = { token: login.body.token, headers: { 'x-workspace-id': t.workspaceId } };
    const cy = await subscribe('cy');
    await t.app.deps.db.membership.deleteMany({ where: { userId: login.body.user.id } });
    const before = push.received.length;
    await notifyRunEvent(t.app.deps, { workspaceId: t.workspaceId, runId: 'run_01TESTRUN0000000000000004', kind: 'failed' }).settled;
    expect(push.received.slice(before).map((message) => message.token)).not.toContain(cy.token);
    expect(push.received.length).toBeGreaterThan(before); // the others still get it
  });

  it('subscriptions the push service reports gone (404/410) are removed', async () => {
    const gone = await subscribe('bob');
    push.answer(gone.token, 410);
    const result = await t.rest('POST', `/api/push/subscriptions/${gone.id}/test`, {
      token: users.bob!.token,
      headers: users.bob!.headers,
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ delivered: false, status_code: 410, removed: true });
    expect(await t.app.deps.db.pushSubscription.findUnique({ where: { id: gone.id } })).toBeNull();

    const missing = await subscribe('bob');
    push.answer(missing.token, 404);
    const report = await notifyRunEvent(t.app.deps, { workspaceId: t.workspaceId, runId: 'run_01TESTRUN0000000000000003', kind: 'failed' })
      .settled;
    expect(report.sent.find((outcome) => outcome.subscriptionId === missing.id)).toMatchObject({ removed: true, statusCode: 404 });
    expect(await t.app.deps.db.pushSubscription.findUnique({ where: { id: missing.id } })).toBeNull();

    // Other failures are reported and keep the subscription.
    const flaky = await subscribe('bob');
    push.answer(flaky.token, 500);
    const outcome = await t.rest('POST', `/api/push/subscriptions/${flaky.id}/test`, {
      token: users.bob!.token,
      headers: users.bob!.headers,
    });
    expect(outcome.body).toMatchObject({ delivered: false, status_code: 500, removed: false, error: expect.stringContaining('500') });
    expect(await t.app.deps.db.pushSubscription.findUnique({ where: { id: flaky.id } })).not.toBeNull();
  });
});

describe('the outbound policy', () => {
  // A subscription's endpoint is the caller's to name and the service posts to it.
  const config = () => t.app.deps.config as { outboundAllowPrivate: readonly string[] };
  let saved: readonly string[];
  beforeAll(() => {
    saved = config().outboundAllowPrivate;
  });
  afterAll(() => {
    config().outboundAllowPrivate = saved;
  });
  const put = (endpoint: string, keys: object) =>
    t.rest('PUT', '/api/push/subscription', {
      token: users.ann!.token,
      headers: users.ann!.headers,
      body: { endpoint, keys, expiration_time: null },
    });
  const test = async (id: string) =>
    (await t.rest('POST', `/api/push/subscriptions/${id}/test`, { token: users.ann!.token, headers: users.ann!.headers })).body;

  it('refuses an endpoint at a refused literal address when written, and any refused address at delivery', async () => {
    config().outboundAllowPrivate = testAllowance(['127.0.0.1']);
    const ann = await subscribe('ann');
    config().outboundAllowPrivate = testAllowance([]);
    const refused = await put(push.subscribe().endpoint, ann.keys);
    // The support API's validation failure (422), naming the policy.
    expect([refused.status, refused.body.detail?.[0]?.loc]).toEqual([422, ['body', 'endpoint']]);
    expect(refused.body.detail[0].msg).toContain('outbound_refused: 127.0.0.1 is a loopback address');
    // Written while allowed: delivery is refused, the push service receives nothing.
    const before = push.received.length;
    expect(await test(ann.id)).toMatchObject({
      delivered: false,
      status_code: null,
      error: 'outbound_refused: 127.0.0.1 is a loopback address; allow it with OUTBOUND_ALLOW_PRIVATE',
    });
    // A name is judged by the address it resolves to (test/helpers/test-dns.ts), before connecting.
    const named = await put('https://internal.wsa.test/push/named', ann.keys);
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect((await test(named.body.id)).error).toBe(
      'no answer from the push service: outbound_refused: internal.wsa.test (10.255.0.1) is a private address; allow it with OUTBOUND_ALLOW_PRIVATE',
    );
    expect(push.received.length).toBe(before);
    config().outboundAllowPrivate = testAllowance(['127.0.0.1']);
    expect(await test(ann.id)).toMatchObject({ delivered: true, status_code: 201 });
  });
});

describe('VAPID keys', () => {
  it('generated on first start are stored (private key sealed) and reused by the next start', async () => {
    const first = (await t.rest('GET', '/api/push/configuration')).body.public_key;
    const config = loadConfig(
      { NODE_ENV: 'test' },
      { databaseUrl: t.databaseUrl, dataDir: t.app.deps.config.dataDir, port: 0, host: '127.0.0.1', logLevel: 'silent' },
    );
    const second = await buildApp(config, { logger: createLogger('silent') });
    try {
      const keys = await vapidKeys(second.deps);
      expect(keys.source).toBe('stored');
      expect(keys.publicKey).toBe(first);
      const stored = await second.deps.db.serviceSetting.findUniqueOrThrow({ where: { key: 'push.vapid' } });
      expect(JSON.stringify(stored.value)).not.toContain(keys.privateKey);
    } finally {
      await second.stop();
    }
  });

  it('are used instead of generated ones', async () => {
    const keys = webpush.generateVAPIDKeys();
    const configured = await startTestApp({ vapidPublicKey: keys.publicKey, vapidPrivateKey: keys.privateKey, pushCaFile: push.caFile });
    try {
      expect((await configured.rest('GET', '/api/push/configuration')).body.public_key).toBe(keys.publicKey);
      expect(await configured.app.deps.db.serviceSetting.findUnique({ where: { key: 'push.vapid' } })).toBeNull();
      const browser = push.subscribe();
      const subscription = await configured.rest('PUT', '/api/push/subscription', {
        body: { endpoint: browser.endpoint, keys: browser.keys },
      });
      const before = push.received.length;
      const result = await configured.rest('POST', `/api/push/subscriptions/${subscription.body.id}/test`);
      expect(result.body.delivered).toBe(true);
      expect(push.received[before]!.vapidKey).toBe(keys.publicKey);
    } finally {
      await configured.stop();
    }
  });
});
