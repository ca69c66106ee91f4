// Following presence: the presenceChanged subscription. Entries live in PostgreSQL, shared by every
// instance; a touch or leave that changes who is present announces it on the event bus
// (`presenceChanged`, through Redis with REDIS_URL, so a change made on another instance is heard).
// Each instance follows a workspace for its own subscribers with one watcher: it reads the frame
// after each burst of announcements, and once more when the earliest entry it last read would
// expire — so an expiry is announced by every instance to its own subscribers, from its own reads,
// with no instance-wide timer and nothing to agree on between instances. Frames are read after
// the change committed, so an announcement that overtakes another cannot leave a stale frame last.
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { onReconnected, subscriptionsActive } from '../../lib/events.js';
import type { Deps } from '../../services/deps.js';
import type { CallContext } from '../../services/call-context.js';
import { listenTo } from '../../services/event-topics.js';
import { requirePermission } from '../access/permissions.js';
import { readPresence, type PresenceFrame } from './presence.js';
import { Wakeup } from '../../lib/wakeup.js';

/** Per app instance (its Deps): workspace id → the watcher its presenceChanged subscriptions share. */
const watchersByInstance = new WeakMap<Deps, Map<string, PresenceWatcher>>();

function watchersOf(deps: Deps): Map<string, PresenceWatcher> {
  let watchers = watchersByInstance.get(deps);
  if (!watchers) watchersByInstance.set(deps, (watchers = new Map()));
  return watchers;
}

/** Stops this instance's presence watchers (app.stop()). */
export function stopPresenceWatchers(deps: Deps): void {
  for (const watcher of [...(watchersByInstance.get(deps)?.values() ?? [])]) watcher.stop();
}

/** One subscription: what it was last sent (who was present), and how to hand it the next frame. */
interface Follower {
  lastSent: string | null;
  deliver(frame: PresenceFrame): void;
}

/** Who is present, as one comparable string (principal and participant of each entry, in frame order). */
const whoOf = (frame: PresenceFrame) => frame.participants.map((p) => `${p.principalId}\u0000${p.participantId}`).join('\u0001');

/** After a failed read, the next try comes this long after (the bus or the expiry timer may come sooner). */
const RETRY_MS = 1_000;

/**
 * One instance's watcher of one workspace's presence, shared by that instance's subscriptions of
 * the workspace; it stops with the last of them.
 */
export class PresenceWatcher {
  private readonly followers = new Set<Follower>();
  /** Who was present at the last read (null before the first). */
  private known: string | null = null;
  /** The participant named by the latest announcement not yet read after; null: none waiting. */
  private announced: string | null = null;
  /** The expiry timer (or a retry after a failed read) came due. */
  private due = false;
  private reading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly unlistenAll: (() => void)[];

  constructor(
    private readonly deps: Deps,
    private readonly workspaceId: string,
  ) {
    // Listening before the first read: nothing committed after that read is missed.
    this.unlistenAll = [
      listenTo(deps.events, 'presenceChanged', workspaceId, (signal) => {
        this.announced = signal.participantId;
        void this.pump();
      }),
      // Back after a Redis outage: a read as the timer's, sent only if the participants changed.
      onReconnected(deps.events, () => {
        this.due = true;
        void this.pump();
      }),
    ];
    // The first read learns who is present (sent to nobody: it is no change) and when they expire.
    // (Redis unreachable: the read still goes; the bus reconnects by itself.)
    void subscriptionsActive(deps.events)
      .catch(() => undefined)
      .then(() => {
        this.due = true;
        void this.pump();
      });
  }

  join(follower: Follower): () => void {
    this.followers.add(follower);
    return () => {
      this.followers.delete(follower);
      if (this.followers.size === 0) this.stop();
    };
  }

  stop() {
    if (this.stopped) return;
    this.stopped = true;
    for (const unlisten of this.unlistenAll) unlisten();
    if (this.timer) clearTimeout(this.timer);
    const watchers = watchersOf(this.deps);
    if (watchers.get(this.workspaceId) === this) watchers.delete(this.workspaceId);
  }

  /** Reads while an announcement or the timer is waiting; one read answers every announcement heard before it began. */
  private async pump() {
    if (this.reading) return;
    this.reading = true;
    try {
      while (!this.stopped && (this.announced !== null || this.due)) {
        const announced = this.announced;
        this.announced = null;
        this.due = false;
        const frame = await readPresence(this.deps, this.deps.db, this.workspaceId, announced ?? '');
        if (this.stopped) return;
        this.send(frame, announced !== null);
        this.scheduleExpiry(frame);
      }
    } catch (error) {
      if (this.stopped) return;
      this.deps.logger.warn({ err: error, workspaceId: this.workspaceId }, 'reading presence for its subscribers failed');
      this.schedule(RETRY_MS);
    } finally {
      this.reading = false;
    }
  }

  /**
   * Sends the frame to each follower not already sent this set of participants: after an
   * announcement, and after an expiry the timer found (the set differs from the last read's).
   */
  private send(frame: PresenceFrame, announced: boolean) {
    const who = whoOf(frame);
    const changed = this.known !== null && who !== this.known;
    this.known = who;
    if (!announced && !changed) return;
    for (const follower of this.followers) {
      if (follower.lastSent === who) continue;
      follower.lastSent = who;
      follower.deliver(frame);
    }
  }

  /** Reads again when the earliest entry would expire (a touch may have moved it on meanwhile: then later). */
  private scheduleExpiry(frame: PresenceFrame) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!frame.participants.length) return;
    const earliest = frame.participants.reduce((soonest, p) => Math.min(soonest, p.expiresAt.getTime()), Infinity);
    // Both times are the database's clock; one millisecond more covers its rounding to milliseconds.
    this.schedule(Math.max(0, earliest - frame.serverTime.getTime()) + 1);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.due = true;
      void this.pump();
    }, ms);
    this.timer.unref();
  }
}

/**
 * The workspace's presence frames for a subscriber: one each time who is present changes — someone
 * arrived, left, or expired — on any instance, until the client leaves. The frame is read after the
 * change; a subscriber that is slow to take frames gets the newest one, not every one in between.
 */
export function watchPresence(call: CallContext): AsyncGenerator<PresenceFrame, void, undefined> {
  requirePermission(call.actor, 'read');
  const { deps, actor } = call;
  return closableStream(async function* (closed) {
    let next: PresenceFrame | null = null;
    const wakeup = new Wakeup();
    const { wake } = wakeup;
    const watchers = watchersOf(deps);
    let watcher = watchers.get(actor.workspaceId);
    if (!watcher) watchers.set(actor.workspaceId, (watcher = new PresenceWatcher(deps, actor.workspaceId)));
    const leave = watcher.join({
      lastSent: null,
      deliver: (frame) => {
        next = frame;
        wake();
      },
    });
    const stopClose = onClose(closed, wake);
    try {
      while (!closed.aborted) {
        if (!next) {
          await wakeup.wait();
          continue;
        }
        const frame: PresenceFrame = next;
        next = null;
        yield frame;
      }
    } finally {
      stopClose();
      leave();
    }
  });
}
