// The support API under /api: status, presence (REST and graphql-ws), push configuration and
// subscriptions, pairing and device endpoints' statuses, 422 validation objects, permissions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createECDH, randomBytes } from 'node:crypto';
import { waitFor } from '../helpers/wait.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { createApiKey, createUser, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let reader: string;
let session: { token: string; userId: string };
let other: { id: string; apiKey: string };

function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

beforeAll(async () => {
  t = await startTestApp({ presenceTtlSeconds: 1 });
  reader = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] })).token;
  await createUser(t.app.deps, { email: 'ui@example.com', password: 'ui password', workspaceId: t.workspaceId, role: 'writer' });
  const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ui@example.com', password: 'ui password' } });
  session = { token: login.body.token, userId: login.body.user.id };
  const created = await createWorkspace(t.app.deps, { name: 'other' });
  other = { id: created.workspace.id, apiKey: created.apiKey.token };
});
afterAll(async () => {
  await t.stop();
});

const asUser = { 'x-workspace-id': '' };

describe('authentication', () => {
  it('UI endpoints need a credential: 401 without one', async () => {
    for (const [method, path] of [
      ['GET', '/api/status'],
      ['GET', '/api/presence'],
      ['GET', '/api/push/configuration'],
      ['GET', '/api/devices'],
      ['GET', '/api/device-pairings'],
    ]) {
      const response = await t.rest(method!, path!, { token: null });
      expect(response.status, path).toBe(401);
      expect(response.body.error.code).toBe('unauthenticated');
    }
  });

  it('a login session without X-Workspace-ID is a validation failure of the header', async () => {
    const response = await t.rest('GET', '/api/devices', { token: session.token });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['header', 'X-Workspace-ID']);
  });

  it('login sessions work with X-Workspace-ID', async () => {
    asUser['x-workspace-id'] = t.workspaceId;
    const response = await t.rest('GET', '/api/status', { token: session.token, headers: asUser });
    expect(response.status).toBe(200);
  });
});

describe('GET /api/status', () => {
  it('reports the listener status as JSON', async () => {
    const response = await t.rest('GET', '/api/status');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toMatchObject({
      status: 'ok',
      version: expect.any(String),
      uptime_seconds: expect.any(Number),
      queue_depth: 0,
      workspace_queue_depth: 0,
      run_workers: { up: true, count: t.app.deps.config.runWorkers },
      event_stream: { up: true },
      connected_devices: 0,
    });
    expect(Date.parse(response.body.started_at)).not.toBeNaN();
  });

  it('counts accepted runs as the queue; an instance without workers reports them down', async () => {
    const apiOnly = await startTestApp({ runWorkers: 0 });
    try {
      await insertModel(apiOnly, 'dev');
      const agent = (await apiOnly.rest('POST', '/api/v1/agents', { body: { name: 'queued', config: { model: 'dev' } } })).body;
      for (let i = 0; i < 2; i++) {
        const run = await apiOnly.rest('POST', '/api/v1/runs', {
          body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } },
        });
        expect(run.body.status).toBe('accepted');
      }
      const status = await apiOnly.rest('GET', '/api/status');
      expect(status.body).toMatchObject({ queue_depth: 2, workspace_queue_depth: 2, run_workers: { up: false, count: 0 } });
    } finally {
      await apiOnly.stop();
    }
  });
});

describe('GET /api/presence', () => {
  it('without participant_id registers the caller and returns the frame', async () => {
    const response = await t.rest('GET', '/api/presence');
    expect(response.status).toBe(200);
    expect(response.body.workspace_id).toBe(t.workspaceId);
    expect(response.body.participants.map((p: any) => p.participant_id)).toContain(response.body.participant_id);
  });

  it('accepts 80 characters and refuses 81 with 422 and a validation object', async () => {
    const ok = await t.rest('GET', `/api/presence?participant_id=${'a'.repeat(80)}`);
    expect(ok.status).toBe(200);
    expect(ok.body.participant_id).toBe('a'.repeat(80));
    const bad = await t.rest('GET', `/api/presence?participant_id=${'a'.repeat(81)}`);
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ detail: [{ loc: ['query', 'participant_id'], msg: expect.stringContaining('80'), type: 'value_error' }] });
  });

  it('lists every participant of the workspace with last-seen times, never another workspace', async () => {
    await t.rest('GET', '/api/presence?participant_id=tab-a', { token: session.token, headers: asUser });
    const frame = await t.rest('GET', '/api/presence?participant_id=tab-b');
    const ids = frame.body.participants.map((p: any) => p.participant_id);
    expect(ids).toEqual(expect.arrayContaining(['tab-a', 'tab-b']));
    const tabA = frame.body.participants.find((p: any) => p.participant_id === 'tab-a');
    expect(tabA).toMatchObject({ principal_id: session.userId, principal_kind: 'user' });
    expect(Date.parse(tabA.expires_at) - Date.parse(tabA.last_seen_at)).toBe(1000);
    const elsewhere = await t.rest('GET', '/api/presence', { token: other.apiKey });
    expect(elsewhere.body.participants.map((p: any) => p.participant_id)).not.toContain('tab-a');
  });

  it('entries expire after the timeout, and a graphql-ws subscription streams the changes', async () => {
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
      retryAttempts: 0,
    });
    const frames: any[] = [];
    const unsubscribe = client.subscribe(
      { query: 'subscription { presenceChanged { participants { participantId } } }' },
      {
        next: (value) => frames.push(value.data?.presenceChanged),
        error: (error) => frames.push({ error }),
        complete: () => undefined,
      },
    );
    const ids = () => frames.map((frame) => frame.participants.map((p: any) => p.participantId) as string[]);
    // graphql-ws does not acknowledge a subscription: announce the tab until a frame shows it, then
    // stop and wait for the frame that shows it gone (its entry expires after 1 s).
    await waitFor(
      async () => {
        if (!ids().some((list) => list.includes('streamed-tab'))) await t.rest('GET', '/api/presence?participant_id=streamed-tab');
        return ids();
      },
      (lists) => lists.some((list) => list.includes('streamed-tab')),
      'a presence frame with the tab',
      30_000,
      100,
    );
    await waitFor(
      async () => ids(),
      (lists) => !lists.at(-1)!.includes('streamed-tab'),
      'a presence frame without the tab',
      30_000,
      100,
    );
    const lists = frames.map((frame) => frame.participants.map((p: any) => p.participantId));
    expect(lists.some((list) => list.includes('streamed-tab'))).toBe(true);
    expect(lists.at(-1)).not.toContain('streamed-tab'); // expired after 1 s
    const after = await t.graphql('{ presence { participants { participantId } } }');
    expect(after.data.presence.participants.map((p: any) => p.participantId)).not.toContain('streamed-tab');
    unsubscribe();
    await client.dispose();
  });
});

describe('web push configuration and subscriptions', () => {
  it('GET /api/push/configuration returns the stored VAPID public key', async () => {
    const response = await t.rest('GET', '/api/push/configuration');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      enabled: true,
      notification_kinds: expect.arrayContaining(['run.waiting', 'run.failed', 'run.completed_after_wait', 'test']),
    });
    expect(Buffer.from(response.body.public_key, 'base64url')).toHaveLength(65);
    const stored = await t.app.deps.db.serviceSetting.findUnique({ where: { key: 'push.vapid' } });
    expect((stored!.value as any).public_key).toBe(response.body.public_key);
    expect(JSON.stringify(stored!.value)).not.toContain('"private_key"');
  });

  it('PUT upserts per caller and endpoint, DELETE answers 204, activity 204; other callers get 404', async () => {
    const keys = browserKeys();
    const body = { endpoint: 'https://push.example.test/send/abc', keys, expiration_time: null };
    const first = await t.rest('PUT', '/api/push/subscription', { token: session.token, headers: asUser, body });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      id: expect.stringMatching(/^psb_/),
      endpoint: body.endpoint,
      expiration_time: null,
      last_active_at: null,
    });
    expect(first.body).not.toHaveProperty('keys');
    const again = await t.rest('PUT', '/api/push/subscription', {
      token: session.token,
      headers: asUser,
      body: { ...body, expiration_time: 1893456000000 },
    });
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.expiration_time).toBe('2030-01-01T00:00:00.000Z');
    const id = first.body.id as string;

    expect((await t.rest('POST', `/api/push/subscriptions/${id}/activity`, { token: session.token, headers: asUser })).status).toBe(204);
    const row = await t.app.deps.db.pushSubscription.findUnique({ where: { id } });
    expect(row!.lastActiveAt).not.toBeNull();

    // Someone else's subscription is absent for them.
    expect((await t.rest('POST', `/api/push/subscriptions/${id}/activity`)).status).toBe(404);
    expect((await t.rest('DELETE', `/api/push/subscriptions/${id}`, { token: other.apiKey })).status).toBe(404);
    expect((await t.rest('POST', `/api/push/subscriptions/${id}/test`, { token: other.apiKey })).status).toBe(404);

    const deleted = await t.rest('DELETE', `/api/push/subscriptions/${id}`, { token: session.token, headers: asUser });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await t.rest('DELETE', `/api/push/subscriptions/${id}`, { token: session.token, headers: asUser })).status).toBe(404);
    const audit = await t.app.deps.db.auditEvent.findMany({ where: { resourceId: id }, orderBy: { id: 'asc' } });
    expect(audit.map((event) => event.action)).toEqual(['create', 'update', 'delete']);
  });

  it('made-up subscription ids answer 404', async () => {
    for (const id of ['psb_01AAAAAAAAAAAAAAAAAAAAAAAA', 'abc-xyz']) {
      expect((await t.rest('DELETE', `/api/push/subscriptions/${id}`)).status).toBe(404);
      expect((await t.rest('POST', `/api/push/subscriptions/${id}/activity`)).status).toBe(404);
      expect((await t.rest('POST', `/api/push/subscriptions/${id}/test`)).status).toBe(404);
    }
  });

  it('validation failures answer 422 with a validation error object', async () => {
    const keys = browserKeys();
    const cases: { body?: unknown; rawBody?: string; loc: string[] }[] = [
      { loc: ['body'] },
      { rawBody: '{"endpoint": ', loc: ['body'] },
      { body: [], loc: ['body'] },
      { body: { keys }, loc: ['body', 'endpoint'] },
      { body: { endpoint: 'http://push.example.test/x', keys }, loc: ['body', 'endpoint'] },
      { body: { endpoint: 'not a url', keys }, loc: ['body', 'endpoint'] },
      { body: { endpoint: 'https://push.example.test/x' }, loc: ['body', 'keys'] },
      { body: { endpoint: 'https://push.example.test/x', keys: { ...keys, p256dh: 'AAAA' } }, loc: ['body', 'keys', 'p256dh'] },
      { body: { endpoint: 'https://push.example.test/x', keys: { ...keys, auth: 'short' } }, loc: ['body', 'keys', 'auth'] },
      { body: { endpoint: 'https://push.example.test/x', keys, expiration_time: 'tomorrow' }, loc: ['body', 'expiration_time'] },
      { body: { endpoint: 'https://push.example.test/x', keys, colour: 'red' }, loc: ['body', 'colour'] },
    ];
    for (const item of cases) {
      const response = await t.rest('PUT', '/api/push/subscription', { body: item.body, rawBody: item.rawBody });
      expect(response.status, JSON.stringify(item)).toBe(422);
      expect(response.body.detail, JSON.stringify(item)).toEqual([
        { loc: expect.any(Array), msg: expect.any(String), type: expect.any(String) },
      ]);
      expect(response.body.detail[0].loc.slice(0, item.loc.length), JSON.stringify(item)).toEqual(item.loc);
    }
  });
});

describe('pairing and devices: statuses without a daemon', () => {
  let laptop: { pairing_id: string; user_code: string };
  it('POST /api/envd/pair is open and answers a pairing response; 422 without a body or with bad members', async () => {
    const response = await t.rest('POST', '/api/envd/pair', {
      token: null,
      body: { device_name: 'laptop', platform: 'linux-x64', public_key: 'ssh-ed25519 AAAA' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      pairing_id: expect.stringMatching(/^pai_/),
      user_code: expect.stringMatching(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/),
      poll_secret: expect.stringMatching(/^wsp_/),
      poll_interval_seconds: expect.any(Number),
    });
    laptop = response.body;
    expect((await t.rest('POST', '/api/envd/pair', { token: null })).status).toBe(422);
    for (const body of [
      {},
      { device_name: '', platform: 'x', public_key: 'k' },
      { device_name: 'n'.repeat(101), platform: 'x', public_key: 'k' },
      { device_name: 'n', platform: 7, public_key: 'k' },
      { device_name: 'n', platform: 'x', public_key: 'k', workspace_id: 'nope' },
      { device_name: 'n', platform: 'x', public_key: 'k', extra: 1 },
    ]) {
      const bad = await t.rest('POST', '/api/envd/pair', { token: null, body });
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.detail[0].loc[0]).toBe('body');
    }
  });

  it('GET /api/device-pairings and GET /api/devices answer arrays; an unaddressed challenge shows only with its user code', async () => {
    const pairings = await t.rest('GET', '/api/device-pairings');
    expect(pairings.status).toBe(200);
    expect(pairings.body).toEqual([]);
    for (const code of [laptop.user_code, laptop.user_code.toLowerCase().replace('-', '')]) {
      const found = await t.rest('GET', `/api/device-pairings?user_code=${code}`);
      expect(found.status).toBe(200);
      expect(found.body).toEqual([
        expect.objectContaining({
          id: laptop.pairing_id,
          user_code: laptop.user_code,
          device_name: 'laptop',
          status: 'pending',
          workspace_id: null,
          public_key_fingerprint: expect.stringMatching(/^SHA256:/),
        }),
      ]);
      expect(found.body[0]).not.toHaveProperty('poll_secret');
    }
    const badCode = await t.rest('GET', '/api/device-pairings?user_code=XYZ');
    expect(badCode.status).toBe(422);
    expect(badCode.body.detail[0].loc).toEqual(['query', 'user_code']);
    const devices = await t.rest('GET', '/api/devices');
    expect(devices.status).toBe(200);
    expect(devices.body).toEqual([]);
  });

  it('made-up pairings and devices answer 404 (path parameters are strings)', async () => {
    for (const id of ['pai_01AAAAAAAAAAAAAAAAAAAAAAAA', 'abc-xyz']) {
      expect((await t.rest('POST', `/api/device-pairings/${id}/approve`)).status).toBe(404);
      expect((await t.rest('POST', `/api/device-pairings/${id}/reject`)).status).toBe(404);
    }
    for (const id of ['dev_01AAAAAAAAAAAAAAAAAAAAAAAA', 'abc-xyz']) {
      for (const [method, path] of [
        ['GET', ''],
        ['POST', '/revoke'],
        ['GET', '/directories'],
      ]) {
        const response = await t.rest(method!, `/api/devices/${id}${path}`);
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    }
  });

  it('answering pairings needs write; a reader gets 403', async () => {
    const pairing = await t.rest('POST', '/api/envd/pair', { token: null, body: { device_name: 'r', platform: 'p', public_key: 'k' } });
    const id = pairing.body.pairing_id;
    for (const action of ['approve', 'reject']) {
      const response = await t.rest('POST', `/api/device-pairings/${id}/${action}`, { token: reader });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('permission_denied');
    }
    expect((await t.rest('GET', '/api/device-pairings', { token: reader })).status).toBe(200);
    // Reject → 204, then the poll learns it and the challenge leaves the list.
    expect((await t.rest('POST', `/api/device-pairings/${id}/reject`)).status).toBe(204);
    const poll = await t.rest('POST', '/api/envd/pair/poll', { token: null, body: { poll_secret: pairing.body.poll_secret } });
    expect(poll.body).toMatchObject({ status: 'rejected', device_credential: null });
    expect((await t.rest('GET', '/api/device-pairings')).body.map((p: any) => p.id)).not.toContain(id);
    expect((await t.rest('POST', `/api/device-pairings/${id}/approve`)).status).toBe(409);
  });

  it('a pairing addressed to another workspace is invisible here, even with its code', async () => {
    const pairing = await t.rest('POST', '/api/envd/pair', {
      token: null,
      body: { device_name: 'theirs', platform: 'p', public_key: 'k', workspace_id: other.id },
    });
    expect((await t.rest('GET', '/api/device-pairings')).body.map((p: any) => p.id)).not.toContain(pairing.body.pairing_id);
    expect((await t.rest('GET', `/api/device-pairings?user_code=${pairing.body.user_code}`)).body).toEqual([]);
    expect((await t.rest('POST', `/api/device-pairings/${pairing.body.pairing_id}/approve`)).status).toBe(404);
    expect((await t.rest('GET', '/api/device-pairings', { token: other.apiKey })).body.map((p: any) => p.id)).toContain(
      pairing.body.pairing_id,
    );
  });
});

describe('GraphQL', () => {
  it('serves the same capabilities, with the same error codes', async () => {
    const result = await t.graphql(
      '{ listenerStatus { status queueDepth } pushConfiguration { enabled publicKey } devices { id } devicePairings { id userCode } presence { workspaceId } }',
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.listenerStatus.status).toBe('ok');
    expect(result.data.presence.workspaceId).toBe(t.workspaceId);
    const tooLong = await t.graphql('mutation($p: String) { touchPresence(participantId: $p) { presence { participantId } } }', {
      p: 'x'.repeat(81),
    });
    expect(tooLong.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'participant_id' } });
    const missing = await t.graphql('{ device(id: "dev_01AAAAAAAAAAAAAAAAAAAAAAAA") { id } }');
    expect(missing.errors?.[0]?.extensions?.code).toBe('not_found');
  });
});

describe('rate limit of POST /api/envd/pair', () => {
  it('answers 429 rate_limited past the per-address limit', async () => {
    const limited = await startTestApp({ pairingRateLimitPerMinute: 2 });
    try {
      const body = { device_name: 'n', platform: 'p', public_key: 'k' };
      expect((await limited.rest('POST', '/api/envd/pair', { token: null, body })).status).toBe(200);
      expect((await limited.rest('POST', '/api/envd/pair', { token: null, body })).status).toBe(200);
      const third = await limited.rest('POST', '/api/envd/pair', { token: null, body });
      expect(third.status).toBe(429);
      expect(third.body.error.code).toBe('rate_limited');
      // GraphQL shares the limit (same client address).
      const graphql = await limited.graphql(
        'mutation { requestDevicePairing(input: {deviceName: "n", platform: "p", publicKey: "k"}) { pairingId } }',
        {},
        { token: null },
      );
      expect(graphql.errors?.[0]?.extensions?.code).toBe('rate_limited');
    } finally {
      await limited.stop();
    }
  });
});
