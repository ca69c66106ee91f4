// The registry of runs this process executes in their first attempt (src/features/runs/local-runs.ts),
// on which a runItems feed starts from the live tail instead of the database: an entry is exact or
// absent. These are its rules, on a real in-process event bus; test/engine/live.test.ts checks the
// feed end to end (a subscriber to a run executing here reads nothing, every change arrives once).
import { describe, expect, it } from 'vitest';
import { closeEvents, createEvents, listen, redisClientsOf } from '../../src/lib/events.js';
import { localRuns } from '../../src/features/runs/local-runs.js';
import { announceRunChanged, type EventTopics, type Events } from '../../src/services/event-topics.js';
import type { Run } from '../../src/generated/prisma/client.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';

const bus = () => createEvents<EventTopics>() as Events;
const run = (id: string, status: string, attempts: number) => ({ id, workspaceId: 'wsp_a', status, attempts }) as unknown as Run;
const LEASE_MS = 30_000;
const redisAvailable = await redisReachable();

describe('local runs', () => {
  it('a feed waits for a claim under way, and holds the run only when the claim took its first attempt here', async () => {
    const local = localRuns(bus());
    local.claiming('run_a');
    let settled = false;
    const waiting = local.settled('run_a').then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    expect(local.held('run_a')).toBeNull();
    local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: LEASE_MS });
    await waiting;
    expect(local.held('run_a')).toEqual({ workspaceId: 'wsp_a' });

    // Not claimed here (another worker took it, a workspace's queue held it, the claim failed): no entry.
    local.claiming('run_b');
    const other = local.settled('run_b');
    local.claimed('run_b', null);
    await other;
    expect(local.held('run_b')).toBeNull();
    // Never claimed here at all: nothing to wait for, nothing held.
    await local.settled('run_c');
    expect(local.held('run_c')).toBeNull();
  });

  it('a run marked again while its claim is awaited keeps its feeds waiting for that claim', async () => {
    const local = localRuns(bus());
    // Queued for a claim (the pool's wake-up), then the claim starts: one wait, ended by the claim.
    local.claiming('run_a');
    let settled = false;
    const waiting = local.settled('run_a').then(() => (settled = true));
    local.claiming('run_a');
    await Promise.resolve();
    await Promise.resolve();
    expect(settled).toBe(false);
    local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: LEASE_MS });
    await waiting;
    expect(local.held('run_a')).toEqual({ workspaceId: 'wsp_a' });
    // Once held, a new claim of the run (a late wake-up) starts over: the feed waits for it.
    local.claiming('run_a');
    expect(local.held('run_a')).toBeNull();
    local.claimed('run_a', null);
    await local.settled('run_a');
    expect(local.held('run_a')).toBeNull();
  });

  it('the entry is gone before any listener hears a status other than running the first attempt', () => {
    const events = bus();
    const local = localRuns(events);
    const heard: [string, boolean][] = [];
    listen(events, 'runChanged', 'run_a', (changed) => heard.push([(changed as Run).status, local.held('run_a') !== null]));
    for (const [status, attempts] of [
      ['completed', 1],
      ['waiting', 1],
      ['accepted', 1], // requeued or handed back
      ['running', 2], // a later attempt: earlier items may be only in the database
    ] as const) {
      local.claiming('run_a');
      local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: LEASE_MS });
      announceRunChanged(events, run('run_a', 'running', 1));
      announceRunChanged(events, run('run_a', status, attempts));
    }
    expect(heard).toEqual([
      ['running', true],
      ['completed', false],
      ['running', true],
      ['waiting', false],
      ['running', true],
      ['accepted', false],
      ['running', true],
      ['running', false],
    ]);
  });

  it('the attempt ending any other way removes the entry', () => {
    const local = localRuns(bus());
    local.claiming('run_a');
    local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: LEASE_MS });
    local.ended('run_a');
    expect(local.held('run_a')).toBeNull();
  });

  it('counts only within half a lease of the claim or of the last heartbeat that extended it', async () => {
    const local = localRuns(bus());
    local.claiming('run_a');
    local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: 4 });
    const claimedAt = Date.now();
    // Half of a 4 ms lease: past it (observed on the clock, not slept for), the run is not held.
    while (Date.now() < claimedAt + 3) await new Promise((resolve) => setImmediate(resolve));
    expect(local.held('run_a')).toBeNull();
    local.extended('run_a', LEASE_MS);
    expect(local.held('run_a')).toEqual({ workspaceId: 'wsp_a' });
  });

  it.skipIf(!redisAvailable)('remembers nothing on a Redis bus (the run may be executed by another instance)', async () => {
    const events = createEvents<EventTopics>({ redisUrl }) as Events;
    try {
      expect(redisClientsOf(events)).not.toBeNull();
      const local = localRuns(events);
      local.claiming('run_a');
      local.claimed('run_a', { workspaceId: 'wsp_a', leaseMs: LEASE_MS });
      expect(local.held('run_a')).toBeNull();
    } finally {
      await closeEvents(events);
    }
  });
});
