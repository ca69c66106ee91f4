// Runs whose every item this process has published: runs its own worker pool claimed for their
// first attempt and is executing now. For such a run the process already holds what a `runItems`
// subscriber's first read would fetch — the run is running, its workspace is known, and every item
// state the database has was published to the run's live tail first (the item writer writes behind
// the stream; a first attempt starts with no items) — so the feed starts from the tail alone and
// the watched run costs one statement less (docs/benchmarks.md, "Writes per watched run").
//
// Only on the in-process event bus: with REDIS_URL the tail is in Redis and the run may be executed
// by another instance. Without Redis a subscriber only hears live changes of runs its own process
// executes anyway (docs/operations.md, REDIS_URL), and every other run is read from the database as
// before. An entry is exact or absent; anything uncertain removes it:
//   - it is made when the pool's claim of the run it was told about returns that run at attempt 1
//     (a run named by its creation event or NOTIFY; the feed waits for a claim queued or under way —
//     `settled` — since a watcher usually subscribes while it is in flight, and when many runs are
//     created at once, while the run waits behind the others' claims; a run the pool cannot claim
//     now, its slots busy, is released to the database read at once);
//   - it goes when the run's status is announced as anything but running its first attempt (sealed,
//     waiting, requeued, handed back, taken over), synchronously before that announcement reaches any
//     listener, so a feed that missed the announcement reads the database, which has the change; and
//     when the attempt ends in any other way;
//   - it counts only while the run's lease is known to be held: within half a lease of the claim or of
//     the last heartbeat that extended it. Another worker can take a run over only after its lease
//     expired, so a process cut off from the database stops answering from memory long before.
// The feed checks the entry and reads the tail in one synchronous step (`held` + RunTail.peek): the
// tail is forgotten only after the run's seal was announced, which removed the entry first.
import { redisClientsOf } from '../../lib/events.js';

interface Entry {
  /** Settles when the pool's claim under way for the run has ended (either way). */
  claiming: Promise<void> | null;
  settleClaim: (() => void) | null;
  /** Set once this process's pool holds the run's first attempt. */
  workspaceId: string | null;
  /** Date.now() until which the lease is known held. */
  heldUntil: number;
}

export interface LocalRuns {
  /**
   * The pool is about to claim the named run (it is queued for a claim, or the claim starts): a feed
   * starting meanwhile waits for the outcome. Marking a run already marked keeps its waiters waiting.
   */
  claiming(runId: string): void;
  /** The claim ended: the pool holds the run's first attempt under a lease of `leaseMs`, or (null) not. */
  claimed(runId: string, held: { workspaceId: string; leaseMs: number } | null): void;
  /** A heartbeat extended the lease (it is held `leaseMs` from now). */
  extended(runId: string, leaseMs: number): void;
  /** The run's status as announced: anything but running its first attempt ends the entry. */
  changed(run: { id: string; status: string; attempts: number }): void;
  /** The attempt ended (sealed, handed back, requeued, failed): no entry any more. */
  ended(runId: string): void;
  /** Resolves when no claim of the run is under way in this process. */
  settled(runId: string): Promise<void>;
  /** The run's workspace when this process holds its first attempt now; read with the tail in one synchronous step. */
  held(runId: string): { workspaceId: string } | null;
}

/**
 * The process's event bus, by identity only (the registry never publishes): taken as any object, so
 * that services/event-topics.ts, which tells the registry of status changes, imports this module
 * without a cycle back.
 */
type EventBusKey = object;

const registries = new WeakMap<EventBusKey, LocalRuns>();

/** The registry of this event bus's process (inactive — remembers nothing — on a Redis bus). */
export function localRuns(events: EventBusKey): LocalRuns {
  let registry = registries.get(events);
  if (!registry) registries.set(events, (registry = redisClientsOf(events) ? inactive : processRegistry()));
  return registry;
}

const inactive: LocalRuns = {
  claiming: () => undefined,
  claimed: () => undefined,
  extended: () => undefined,
  changed: () => undefined,
  ended: () => undefined,
  settled: () => Promise.resolve(),
  held: () => null,
};

function processRegistry(): LocalRuns {
  const entries = new Map<string, Entry>();
  const remove = (runId: string) => {
    const entry = entries.get(runId);
    if (!entry) return;
    entries.delete(runId);
    entry.settleClaim?.();
  };
  return {
    claiming(runId) {
      // Already waiting for this claim (queued, then claimed): the feeds waiting keep waiting.
      if (entries.get(runId)?.claiming) return;
      remove(runId);
      let settleClaim!: () => void;
      const claiming = new Promise<void>((resolve) => (settleClaim = resolve));
      entries.set(runId, { claiming, settleClaim, workspaceId: null, heldUntil: 0 });
    },
    claimed(runId, held) {
      const entry = entries.get(runId);
      if (!entry) return;
      if (!held) return remove(runId);
      entry.workspaceId = held.workspaceId;
      entry.heldUntil = Date.now() + held.leaseMs / 2;
      entry.settleClaim?.();
      entry.claiming = entry.settleClaim = null;
    },
    extended(runId, leaseMs) {
      const entry = entries.get(runId);
      if (entry?.workspaceId) entry.heldUntil = Date.now() + leaseMs / 2;
    },
    changed(run) {
      if (!(run.status === 'running' && run.attempts === 1)) remove(run.id);
    },
    ended: remove,
    settled(runId) {
      return entries.get(runId)?.claiming ?? Promise.resolve();
    },
    held(runId) {
      const entry = entries.get(runId);
      return entry?.workspaceId && Date.now() < entry.heldUntil ? { workspaceId: entry.workspaceId } : null;
    },
  };
}
