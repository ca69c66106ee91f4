// Support API additions: a participant leaving presence at once (DELETE /api/presence, GraphQL
// leavePresence; the frame reaches presenceChanged subscribers over graphql-ws) and the caller's own
// push subscriptions (GET /api/push/subscriptions, GraphQL pushSubscriptions).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createECDH, randomBytes } from 'node:crypto';
import { waitFor } from '../helpers/wait.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let second: string; // another principal of the same workspace
let other: { id: string; apiKey: string }; // another workspace

function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

beforeAll(async () => {
  // A long TTL: whatever disappears in these tests left, it did not expire.
  t = await startTestApp({ presenceTtlSeconds: 600 });
  second = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: ['read'] })).token;
  const created = await createWorkspace(t.app.deps, { name: 'other' });
  other = { id: created.workspace.id, apiKey: created.apiKey.token };
});
afterAll(async () => {
  await t.stop();
});

const participants = (frame: any) => frame.participants.map((p: any) => p.participant_id ?? p.participantId) as string[];

describe('leaving presence', () => {
  it('DELETE /api/presence removes the participant at once and subscribers get the frame without it', async () => {
    const client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
      retryAttempts: 0,
    });
    const frames: string[][] = [];
    const unsubscribe = client.subscribe(
      { query: 'subscription { presenceChanged { participants { participantId } } }' },
      { next: (value) => frames.push(participants(value.data?.presenceChanged)), error: () => undefined, complete: () => undefined },
    );
    // graphql-ws does not acknowledge a subscription: announce the tab until a frame shows it (leaving
    // first, since announcing a participant already present publishes nothing).
    await waitFor(
      async () => {
        if (!frames.some((list) => list.includes('leaving-tab'))) {
          await t.rest('DELETE', '/api/presence?participant_id=leaving-tab');
          await t.rest('GET', '/api/presence?participant_id=leaving-tab');
        }
        return frames;
      },
      (lists) => lists.some((list) => list.includes('leaving-tab')),
      'a presence frame with the tab',
      30_000,
      100,
    );
    const left = await t.rest('DELETE', '/api/presence?participant_id=leaving-tab');
    expect(left.status).toBe(204);
    expect(left.body).toBeNull();
    await waitFor(
      async () => frames,
      (lists) => !lists.at(-1)!.includes('leaving-tab'),
      'a presence frame without the tab',
      30_000,
      100,
    );
    const now = await t.graphql('{ presence { participants { participantId } } }');
    expect(participants(now.data.presence)).not.toContain('leaving-tab');
    unsubscribe();
    await client.dispose();
  });

  it('leavePresence answers whether the participant was present, and leaves only the caller’s own', async () => {
    await t.rest('GET', '/api/presence?participant_id=shared-tab');
    await t.rest('GET', '/api/presence?participant_id=shared-tab', { token: second });
    const mutation =
      'mutation($p: String) { leavePresence(participantId: $p) { left presence { participants { participantId principalId } } } }';
    const first = await t.graphql(mutation, { p: 'shared-tab' }, { token: second });
    expect(first.errors).toBeUndefined();
    expect(first.data.leavePresence.left).toBe(true);
    // The first principal's participant of the same id is still there.
    expect(participants(first.data.leavePresence.presence)).toContain('shared-tab');
    const again = await t.graphql(mutation, { p: 'shared-tab' }, { token: second });
    expect(again.data.leavePresence.left).toBe(false);
    // Leaving twice, or when never present, is not an error.
    expect((await t.rest('DELETE', '/api/presence?participant_id=never-here')).status).toBe(204);
  });

  it('another workspace cannot remove this workspace’s participants', async () => {
    await t.rest('GET', '/api/presence?participant_id=stay-tab');
    expect((await t.rest('DELETE', '/api/presence?participant_id=stay-tab', { token: other.apiKey })).status).toBe(204);
    const frame = await t.graphql('{ presence { participants { participantId } } }');
    expect(participants(frame.data.presence)).toContain('stay-tab');
  });

  it('without participant_id the caller’s default participant leaves; a bad id is 422; no credential is 401', async () => {
    const joined = await t.rest('GET', '/api/presence');
    const me = joined.body.participant_id as string;
    expect(participants(joined.body)).toContain(me);
    expect((await t.rest('DELETE', '/api/presence')).status).toBe(204);
    const frame = await t.graphql('{ presence { participants { participantId } } }');
    expect(participants(frame.data.presence)).not.toContain(me);
    const bad = await t.rest('DELETE', `/api/presence?participant_id=${'a'.repeat(81)}`);
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'participant_id']);
    expect((await t.rest('DELETE', '/api/presence', { token: null })).status).toBe(401);
  });
});

describe("the caller's push subscriptions", () => {
  it('lists only the caller’s own subscriptions in this workspace, newest first, without keys', async () => {
    const put = async (endpoint: string, token?: string) =>
      (await t.rest('PUT', '/api/push/subscription', { token, body: { endpoint, keys: browserKeys() } })).body;
    const older = await put('https://push.example.test/send/older');
    const newer = await put('https://push.example.test/send/newer');
    await put('https://push.example.test/send/someone-else', second);
    await put('https://push.example.test/send/elsewhere', other.apiKey);

    const mine = await t.rest('GET', '/api/push/subscriptions');
    expect(mine.status).toBe(200);
    expect(mine.body.items.map((s: any) => s.id)).toEqual([newer.id, older.id]);
    expect(mine.body.items[0]).toEqual({
      id: newer.id,
      endpoint: 'https://push.example.test/send/newer',
      expiration_time: null,
      last_active_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const theirs = await t.rest('GET', '/api/push/subscriptions', { token: second });
    expect(theirs.body.items.map((s: any) => s.endpoint)).toEqual(['https://push.example.test/send/someone-else']);
    const elsewhere = await t.rest('GET', '/api/push/subscriptions', { token: other.apiKey });
    expect(elsewhere.body.items.map((s: any) => s.endpoint)).toEqual(['https://push.example.test/send/elsewhere']);

    // GraphQL answers the same list; a removed subscription leaves it.
    expect((await t.rest('DELETE', `/api/push/subscriptions/${older.id}`)).status).toBe(204);
    const listed = await t.graphql('{ pushSubscriptions { id endpoint } }');
    expect(listed.data.pushSubscriptions).toEqual([{ id: newer.id, endpoint: 'https://push.example.test/send/newer' }]);
    expect((await t.rest('GET', '/api/push/subscriptions', { token: null })).status).toBe(401);
  });
});
