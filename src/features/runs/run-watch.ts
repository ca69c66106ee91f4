// Following a run until it settles (sealed or waiting) on the event bus: the runStatus
// subscription, and the `wait` argument of the mutations that create runs and of the `run` query
// (REST: `Prefer: wait=N`). Nothing polls and no database connection is held while waiting: the
// feed listens first, then the run is read once, then its `runChanged` events are followed (through
// Redis with REDIS_URL, so a run executed by another instance is followed too).
import type { Run } from '../../generated/prisma/client.js';
import { invalidArgument } from '../../lib/errors.js';
import { MAX_WAIT_SECONDS } from '../../lib/prefer-wait.js';
import { onReconnected, subscriptionsActive } from '../../lib/events.js';
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { listenTo, type Events } from '../../services/event-topics.js';
import { SEALED, type RunStatus } from './run-lifecycle.js';
import type { CallContext } from '../../services/call-context.js';
import type { DeliveryResult } from './inbox.js';
import { getRun } from './runs.js';

export { MAX_WAIT_SECONDS };

/** Sealed or waiting: the run will not change again by itself. */
export const runSettled = (status: string) => SEALED.has(status as RunStatus) || status === 'waiting';

/** Checks a `wait` argument (seconds): null/0 = no wait; 1…MAX_WAIT_SECONDS. */
export function checkWait(wait: number | null | undefined): number {
  if (wait == null) return 0;
  if (!Number.isInteger(wait) || wait < 0 || wait > MAX_WAIT_SECONDS)
    throw invalidArgument(`wait must be a whole number of seconds from 0 to ${MAX_WAIT_SECONDS}`, 'wait');
  return wait;
}

/** Waits in progress per event bus, answered at once when the service stops. */
const waits = new WeakMap<Events, { stopping: boolean; release: Set<() => void> }>();
const waitsOf = (events: Events) => {
  let entry = waits.get(events);
  if (!entry) waits.set(events, (entry = { stopping: false, release: new Set() }));
  return entry;
};

/** Shutdown: every wait answers now with the run as it is; later waits do not wait. */
export function releaseRunWaits(events: Events) {
  const entry = waitsOf(events);
  entry.stopping = true;
  for (const release of entry.release) release();
}

/**
 * A run's row changes, heard by a synchronous listener (`listenTo`) from the moment it is opened:
 * one function call per event, no repeater or promise chain per follower. Each state newer than the
 * newest already heard is queued; `changed` resolves at the next one, or when `wake` is called.
 * When Redis is back after an outage the changes published meanwhile may have been missed: the run
 * is read again, and a newer state joins the queue like a heard one.
 */
function followRun(call: CallContext, runId: string) {
  const queue: Run[] = [];
  let newest = 0;
  let notify: (() => void) | null = null;
  const wake = () => {
    const resolve = notify;
    notify = null;
    resolve?.();
  };
  const heard = (run: Run) => {
    if (run.version <= newest) return;
    newest = run.version;
    queue.push(run);
    wake();
  };
  const stop = [
    listenTo(call.deps.events, 'runChanged', runId, heard),
    // Unreadable now (the database away too): the wait goes on, and ends at its deadline at the latest.
    onReconnected(call.deps.events, () => void getRun(call, runId).then(heard, () => undefined)),
  ];
  return {
    /** The next state heard and not yet taken (oldest first). */
    take: (): Run | undefined => queue.shift(),
    changed: () => new Promise<void>((resolve) => (notify = resolve)),
    wake,
    close: () => stop.forEach((unlisten) => unlisten()),
  };
}

/**
 * Emits the run as it is now, then each newer state, and ends after a state that is sealed or
 * waiting (at once when it already is). Versions only grow, so an event older than what was
 * emitted (published before the read) is skipped. One query: the read after the listener.
 */
export function watchRun(call: CallContext, runId: string): AsyncGenerator<Run, void, undefined> {
  // Closable: a client that unsubscribes while the run is queued stops the listener at once.
  return closableStream(async function* (closed) {
    const { deps } = call;
    const feed = followRun(call, runId);
    // The client leaving ends the wait (listened once, not per wait).
    const stopClose = onClose(closed, feed.wake);
    try {
      await subscriptionsActive(deps.events);
      let run = await getRun(call, runId);
      yield run;
      while (!runSettled(run.status) && !closed.aborted) {
        const next = feed.take();
        if (!next) {
          await feed.changed();
          continue;
        }
        if (next.version <= run.version) continue;
        run = next;
        yield run;
      }
    } finally {
      stopClose();
      feed.close();
    }
  });
}

/**
 * The run once it is sealed or waiting, or as it is when `seconds` are up, the client went away
 * (`signal`) or the service stops. `run` is the caller's fresh copy (e.g. just created); with no
 * wait it is returned as it is. The run may change between that copy and the listener: it is read
 * once more after listening (`waitAfterListening` avoids that read).
 */
export async function waitForRun(call: CallContext, run: Run, seconds: number, signal?: AbortSignal | null): Promise<Run> {
  if (!seconds || runSettled(run.status) || waitsOf(call.deps.events).stopping) return run;
  const feed = followRun(call, run.id);
  try {
    await subscriptionsActive(call.deps.events);
    return await settle(call, await getRun(call, run.id), seconds, signal, feed);
  } finally {
    feed.close();
  }
}

/**
 * `waitForRun` for a run that `obtain` creates or reads after calling `listening(runId)` (before
 * the run's row is written, or before it is read): every change after that copy is heard, so the
 * wait reads nothing itself — a new run with `wait` costs no query beyond its creation. Without a
 * wait `listening` does nothing.
 */
export async function waitAfterListening(
  call: CallContext,
  seconds: number,
  signal: AbortSignal | null | undefined,
  obtain: (listening: (runId: string) => Promise<void>) => Promise<Run>,
): Promise<Run> {
  if (!seconds || waitsOf(call.deps.events).stopping) return obtain(async () => undefined);
  let feed: { runId: string; follow: RunFollower } | null = null;
  try {
    const run = await obtain(async (runId) => {
      feed?.follow.close();
      feed = { runId, follow: followRun(call, runId) };
      await subscriptionsActive(call.deps.events);
    });
    const heard = feed as { runId: string; follow: RunFollower } | null;
    if (heard?.runId === run.id) return await settle(call, run, seconds, signal, heard.follow);
    return await waitForRun(call, run, seconds, signal);
  } finally {
    (feed as { follow: RunFollower } | null)?.follow.close();
  }
}

type RunFollower = ReturnType<typeof followRun>;

/** Follows `latest` (read or written after `feed` listened) until it settles or the wait ends. */
async function settle(
  call: CallContext,
  latest: Run,
  seconds: number,
  signal: AbortSignal | null | undefined,
  feed: RunFollower,
): Promise<Run> {
  const registry = waitsOf(call.deps.events);
  let ended: 'timeout' | 'released' | null = registry.stopping ? 'released' : null;
  const end = (why: 'timeout' | 'released') => {
    ended ??= why;
    feed.wake();
  };
  const timer = setTimeout(() => end('timeout'), seconds * 1000);
  const onRelease = () => end('released');
  registry.release.add(onRelease);
  signal?.addEventListener('abort', onRelease, { once: true });
  try {
    for (;;) {
      for (let next = feed.take(); next; next = feed.take()) if (next.version > latest.version) latest = next;
      if (runSettled(latest.status)) return latest;
      if (ended === 'released' || signal?.aborted) return latest;
      // Time is up: the run as it is now (a change that publishes no event, e.g. labels, included).
      if (ended === 'timeout') return await getRun(call, latest.id);
      await feed.changed();
    }
  } finally {
    clearTimeout(timer);
    registry.release.delete(onRelease);
    signal?.removeEventListener('abort', onRelease);
  }
}

export type DeliveryAnswer = DeliveryResult & { waited?: boolean };

/**
 * A delivery (or fork) that started a run of its own waits for it (`wait` seconds at most); one that
 * queued, steered or interrupted on a busy thread answers at once with its entry (waited = false).
 */
export async function waitForDelivery(
  call: CallContext,
  result: DeliveryResult,
  wait: number,
  signal: AbortSignal | null,
): Promise<DeliveryAnswer> {
  if (!wait || !result.run || result.entry.assignedRunId !== result.run.id) return { ...result, waited: false };
  return { ...result, run: await waitForRun(call, result.run, wait, signal), waited: true };
}
