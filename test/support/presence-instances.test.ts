// Presence shared by several service instances on one database, with REDIS_URL: a participant that
// touches on one instance is in the other's `presence`, and a graphql-ws presenceChanged subscriber
// on the other hears its arrival, its leave and — with a short TTL — its expiry (announced by the
// subscriber's own instance, which never saw the touch). A touch of a participant already present
// writes no audit row. The workers' housekeeping deletes expired entries nobody reads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { waitFor } from '../helpers/wait.js';
import { createWorkspace } from '../../src/features/access/admin.js';

const available = await redisReachable();
if (!available) console.warn(`Redis not reachable at ${redisUrl}: multi-instance presence tests skipped (.ci/run provides Redis)`);

const FRAME = 'participantId serverTime participants { participantId principalId principalKind firstSeenAt lastSeenAt expiresAt }';

type Frame = {
  participantId: string;
  serverTime: string;
  participants: { participantId: string; principalId: string; principalKind: string; lastSeenAt: string; expiresAt: string }[];
};

/** A presenceChanged subscription over graphql-ws that records its frames. */
function followPresence(app: TestApp, token = app.apiKey) {
  const client = createClient({
    url: `${app.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  const frames: Frame[] = [];
  const errors: unknown[] = [];
  const unsubscribe = client.subscribe(
    { query: `subscription { presenceChanged { ${FRAME} } }` },
    {
      next: (value) => (value.errors ? errors.push(value.errors) : frames.push((value.data as { presenceChanged: Frame }).presenceChanged)),
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  return {
    frames,
    errors,
    ids: (frame: Frame) => frame.participants.map((p) => p.participantId),
    async close() {
      unsubscribe();
      await client.dispose();
    },
  };
}

/**
 * graphql-ws does not acknowledge a subscription: the participant arrives on `on` (leaving first, as
 * announcing a participant already present announces nothing) until the follower's last frame has it.
 */
async function arriveUntilHeard(on: TestApp, follow: ReturnType<typeof followPresence>, participant: string): Promise<Frame> {
  const heard = await waitFor(
    async () => {
      if (!follow.frames.at(-1) || !follow.ids(follow.frames.at(-1)!).includes(participant)) {
        await on.rest('DELETE', `/api/presence?participant_id=${participant}`);
        await on.rest('GET', `/api/presence?participant_id=${participant}`);
      }
      return follow.frames.at(-1);
    },
    (frame) => frame !== undefined && follow.ids(frame).includes(participant),
    `a frame with ${participant}`,
    30_000,
    100,
  );
  return heard!;
}

describe.skipIf(!available)('presence across instances', () => {
  let front: TestApp;
  let back: TestApp;
  beforeAll(async () => {
    if (!available) return;
    // A long TTL: whatever disappears here left, it did not expire.
    front = await startTestApp({ runWorkers: 0, redisUrl, presenceTtlSeconds: 600 });
    back = await startTestApp({ runWorkers: 0, redisUrl, presenceTtlSeconds: 600 }, front);
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
  });

  it('a touch on one instance is read on the other, never in another workspace', async () => {
    const touched = await front.rest('GET', '/api/presence?participant_id=front-tab');
    expect(touched.status).toBe(200);
    const entry = touched.body.participants.find((p: any) => p.participant_id === 'front-tab');
    const read = await back.graphql(`{ presence { ${FRAME} } }`);
    expect(read.errors).toBeUndefined();
    const seen = (read.data.presence as Frame).participants.find((p) => p.participantId === 'front-tab');
    expect(seen).toMatchObject({ principalKind: 'api_key', lastSeenAt: entry.last_seen_at, expiresAt: entry.expires_at });
    // The other instance's touch sees the first one's participant too, and the reverse.
    const backTouch = await back.rest('GET', '/api/presence?participant_id=back-tab');
    expect(backTouch.body.participants.map((p: any) => p.participant_id)).toEqual(expect.arrayContaining(['back-tab', 'front-tab']));
    const frontRead = await front.graphql('{ presence { participants { participantId } } }');
    expect(frontRead.data.presence.participants.map((p: any) => p.participantId)).toContain('back-tab');

    const other = await createWorkspace(front.app.deps, { name: 'elsewhere' });
    const elsewhere = await back.rest('GET', '/api/presence', { token: other.apiKey.token });
    expect(elsewhere.body.participants.map((p: any) => p.participant_id)).toEqual([elsewhere.body.participant_id]);
  });

  it('a subscriber on one instance hears a touch and a leave made on the other', async () => {
    const follow = followPresence(back);
    try {
      const arrived = await arriveUntilHeard(front, follow, 'roaming-tab');
      expect(arrived.participantId).toBe('roaming-tab');
      // The frame is the shared state, read after the change: the other instance's entries too.
      const read = await back.graphql(`{ presence { ${FRAME} } }`);
      expect(follow.ids(arrived)).toEqual(read.data.presence.participants.map((p: any) => p.participantId));

      const before = follow.frames.length;
      const left = await front.rest('DELETE', '/api/presence?participant_id=roaming-tab');
      expect(left.status).toBe(204);
      const after = await waitFor(
        async () => follow.frames.slice(before),
        (frames) => frames.length > 0,
        'a frame after the leave',
        30_000,
      );
      expect(after[0]!.participantId).toBe('roaming-tab');
      expect(follow.ids(after[0]!)).not.toContain('roaming-tab');
      expect(follow.errors).toEqual([]);
    } finally {
      await follow.close();
    }
  });

  it('a touch of a participant already present writes no audit row', async () => {
    await front.rest('GET', '/api/presence?participant_id=steady-tab');
    const audit = () => front.app.deps.db.auditEvent.count({ where: { workspaceId: front.workspaceId } });
    const before = await audit();
    for (let i = 0; i < 3; i++) {
      expect((await front.rest('GET', '/api/presence?participant_id=steady-tab')).status).toBe(200);
      expect((await back.rest('GET', '/api/presence?participant_id=steady-tab')).status).toBe(200);
    }
    expect(await audit()).toBe(before);
  });
});

describe.skipIf(!available)('presence expiry across instances', () => {
  let front: TestApp;
  let back: TestApp;
  beforeAll(async () => {
    if (!available) return;
    front = await startTestApp({ runWorkers: 0, redisUrl, presenceTtlSeconds: 1 });
    back = await startTestApp({ runWorkers: 0, redisUrl, presenceTtlSeconds: 1 }, front);
  });
  afterAll(async () => {
    await back?.stop();
    await front?.stop();
  });

  it('a subscriber hears an expiry of a participant that only ever touched on the other instance', async () => {
    const follow = followPresence(back);
    try {
      const arrived = await arriveUntilHeard(front, follow, 'fading-tab');
      const entry = arrived.participants.find((p) => p.participantId === 'fading-tab')!;
      expect(Date.parse(entry.expiresAt) - Date.parse(entry.lastSeenAt)).toBe(1000);
      // Nobody touches it any more: the subscriber's own instance reads again when it would expire.
      const gone = await waitFor(
        async () => follow.frames.at(-1)!,
        (frame) => !follow.ids(frame).includes('fading-tab'),
        'a frame without the expired tab',
        30_000,
      );
      expect(gone.participantId).toBe(''); // a frame for an expiry answers no participant
      expect(Date.parse(gone.serverTime)).toBeGreaterThanOrEqual(Date.parse(entry.expiresAt));
      const read = await front.graphql('{ presence { participants { participantId } } }');
      expect(read.data.presence.participants.map((p: any) => p.participantId)).not.toContain('fading-tab');
      expect(follow.errors).toEqual([]);
    } finally {
      await follow.close();
    }
  });
});

describe('presence housekeeping', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ presenceTtlSeconds: 60 });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('the workers delete expired entries of workspaces nobody reads; present ones stay', async () => {
    const other = await createWorkspace(t.app.deps, { name: 'left alone' });
    await t.rest('GET', '/api/presence?participant_id=stale-tab', { token: other.apiKey.token });
    await t.rest('GET', '/api/presence?participant_id=fresh-tab', { token: other.apiKey.token });
    await t.app.deps.db.$executeRaw`
      UPDATE presence_entries SET last_seen_at = now() - interval '61 seconds' WHERE participant_id = 'stale-tab'`;
    const deleted = await t.app.housekeeping!.sweepPresence(Date.now() + 2 * 3_600_000);
    expect(deleted).toBe(1);
    const rows = await t.app.deps.db.presenceEntry.findMany({ where: { workspaceId: other.workspace.id } });
    expect(rows.map((row) => row.participantId)).toEqual(['fresh-tab']);
  });
});
