// Reading run items: the paged items response (GET /runs/{id}/items) and the live feed behind the
// runItems subscription — replay from the database, then live changes, each change delivered once.
import { Prisma, type Run, type RunItem } from '../../generated/prisma/client.js';
import { queryDirect } from '../../db.js';
import { invalidArgument, notFound } from '../../lib/errors.js';
import { onReconnected, subscriptionsActive } from '../../lib/events.js';
import { returningColumns } from '../../storage/columns.js';
import { requirePermission } from '../access/permissions.js';
import { applyTextDelta, runTail } from './run-tail.js';
import { localRuns } from './local-runs.js';
import { SEALED, type RunStatus } from './run-lifecycle.js';
import type { CallContext } from '../../services/call-context.js';
import { getRun } from './runs.js';
import { subagentChildren } from './subagent-runs.js';
import { isTextDelta, listenTo, type ItemEvent, type ItemTextDelta, type ItemView } from '../../services/event-topics.js';
import {
  carriesFullContent,
  leavesOutEarlier,
  MAX_PENDING,
  MAX_PENDING_BYTES,
  openParts,
  pendingFragments,
  type PendingFragments,
} from './run-items-continuation.js';
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { readUsage } from './run-members.js';
import { appendedLateral, withAppended, withStoredAppends } from './item-appends.js';

export type { ItemEvent, ItemTextDelta, ItemView };

/** The id of the `counter`-th change of a run's attempt: sequences only grow, across attempts too. */
export function streamId(attempt: number, counter: number): string {
  return `s${attempt * 1_000_000 + counter}`;
}

/** The position of a change in its run's stream (see streamId). */
export function streamSequence(streamId: string | null | undefined): number {
  const match = /^s(\d+)$/.exec(streamId ?? '');
  return match ? Number(match[1]) : 0;
}

const settled = (status: string) => SEALED.has(status as RunStatus) || status === 'waiting';

/** The id of a content ref: the item's id and the content member it holds (read by run-item-content.ts). */
export const contentRefId = (itemId: string, member: string) => `${itemId}:${member}`;

/** Hides the stored full text of large content; the view keeps the preview and sizes. */
export function publicRefs(refs: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, ref] of Object.entries((refs as Record<string, Record<string, unknown>>) ?? {})) {
    const { full: _full, ...rest } = ref;
    out[name] = rest;
  }
  return out;
}

/** What memory recall put into the model's context from one mount: an element of `memory_sources`. */
export interface MemorySource {
  kind: 'records';
  status: 'completed';
  memory: string;
  memory_id: string;
  cursor: null;
  files: unknown[];
  records: string[];
  sources_truncated: boolean;
}

/**
 * The items response's `continuation` (the spec's members; what each means, and which never change:
 * docs/api/runs.md, "The items continuation"). The page's own members come from run-items-continuation.ts.
 */
export interface RunItemsContinuation {
  arguments: { at: null; event: null; key: null; sequence: number; size: number; stream: string | null };
  fragments: { gap: boolean; max_bytes: number; max_pending: number; pending: Record<string, PendingFragments> };
  full_content: boolean;
  memory_sources: Record<string, MemorySource[]>;
  next_ordinal: number;
  observer: {
    run_id: string;
    thread_id: string;
    state: { children: unknown[]; parts: unknown[]; request_index: number; threads: unknown[] };
  };
  position: { attempt: number; sequence: number };
  response_groups: Record<string, string>;
  run_id: string;
}

export async function listRunItems(
  call: CallContext,
  runId: string,
  args: { before?: number | null; after?: number | null; limit?: number | null },
) {
  const run = await getRun(call, runId);
  if (args.before != null && args.after != null) throw invalidArgument('before and after are mutually exclusive', 'before');
  const limit = args.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw invalidArgument('limit must be an integer from 1 to 500', 'limit');
  for (const name of ['before', 'after'] as const) {
    const value = args[name];
    if (value != null && (!Number.isInteger(value) || value < 0)) throw invalidArgument(`${name} must be a non-negative ordinal`, name);
  }
  // Items that retention removed answer as none at all, with the marker (`itemsRemovedAt`), from the
  // moment the run is marked — also while the sweep is still deleting its rows.
  if (run.itemsRemovedAt) return removedItemsPage(call, run, run.itemsRemovedAt, args);
  // The run was read first: when it had settled then, every item write had already completed.
  const firstOpen = await call.db.runItem.findFirst({
    where: { runId, state: 'in_progress' },
    orderBy: { ordinal: 'asc' },
    select: { ordinal: true },
  });
  let items: RunItem[];
  if (args.after != null) {
    items = await call.db.runItem.findMany({ where: { runId, ordinal: { gt: args.after } }, orderBy: { ordinal: 'asc' }, take: limit });
  } else if (args.before != null) {
    items = (
      await call.db.runItem.findMany({ where: { runId, ordinal: { lt: args.before } }, orderBy: { ordinal: 'desc' }, take: limit })
    ).reverse();
  } else {
    // The newest items, always with the live tail: from the oldest item still in progress onwards.
    const newest = (await call.db.runItem.findMany({ where: { runId }, orderBy: { ordinal: 'desc' }, take: limit })).reverse();
    items =
      firstOpen && newest.length && firstOpen.ordinal < newest[0]!.ordinal
        ? await call.db.runItem.findMany({ where: { runId, ordinal: { gte: firstOpen.ordinal } }, orderBy: { ordinal: 'asc' } })
        : newest;
  }
  // Open items' text streamed since their row was written is in their appends.
  items = await withStoredAppends(call.db, items);
  const last = await call.db.runItem.findFirst({ where: { runId }, orderBy: { ordinal: 'desc' }, select: { ordinal: true } });
  const first = await call.db.runItem.findFirst({ where: { runId }, orderBy: { ordinal: 'asc' }, select: { ordinal: true } });
  const position = items.reduce((max, item) => Math.max(max, streamSequence(item.lastStreamId)), 0);
  // What memory recall put into the model's context, by mount.
  const recalls = await call.db.runItem.findMany({
    where: { runId, kind: 'memory_recall' },
    orderBy: { ordinal: 'asc' },
    select: { content: true },
  });
  const memorySources: Record<string, MemorySource[]> = {};
  for (const { content } of recalls) {
    const recall = content as { memory_id: string; memory: string; records: { id: string }[] };
    (memorySources[recall.memory] ??= []).push({
      kind: 'records',
      status: 'completed',
      memory: recall.memory,
      memory_id: recall.memory_id,
      cursor: null,
      files: [],
      records: recall.records.map((r) => r.id),
      sources_truncated: false,
    });
  }
  const nextOrdinal = (last?.ordinal ?? 0) + 1;
  // The runs its subagent calls started, each in a child thread (docs/api/tools.md, "Subagents").
  const children = await subagentChildren(call, run.id);
  const continuation: RunItemsContinuation = {
    arguments: { at: null, event: null, key: null, sequence: position, size: 0, stream: position ? `s${position}` : null },
    fragments: {
      gap: leavesOutEarlier(items, first?.ordinal ?? null),
      max_bytes: MAX_PENDING_BYTES,
      max_pending: MAX_PENDING,
      pending: pendingFragments(items),
    },
    full_content: carriesFullContent(items),
    memory_sources: memorySources,
    next_ordinal: nextOrdinal,
    observer: {
      run_id: run.id,
      thread_id: run.threadId,
      state: {
        children,
        parts: openParts(items),
        request_index: readUsage(run.usageAtSeal)?.requests ?? 0,
        threads: children.map((child) => child.thread_id),
      },
    },
    position: { attempt: run.attempts, sequence: position },
    response_groups: {},
    run_id: run.id,
  };
  return {
    baseline: args.before == null && args.after == null,
    // A property of the run, the same on every page: it has settled and none of its items is still open.
    complete: settled(run.status) && !firstOpen,
    itemsRemovedAt: null as Date | null,
    items: items.map(publicItem),
    position: position ? `s${position}` : '',
    resumeAfter: items.length ? String(items[items.length - 1]!.ordinal) : String(args.after ?? 0),
    run,
    continuation,
  };
}

/**
 * The page of a run whose items retention removed (docs/api/runs.md, "Retention"): no items, `complete`
 * (only sealed runs lose their items), the continuation of a run without items, and the marker.
 */
async function removedItemsPage(call: CallContext, run: Run, removedAt: Date, args: { before?: number | null; after?: number | null }) {
  const children = await subagentChildren(call, run.id);
  const continuation: RunItemsContinuation = {
    arguments: { at: null, event: null, key: null, sequence: 0, size: 0, stream: null },
    fragments: { gap: false, max_bytes: MAX_PENDING_BYTES, max_pending: MAX_PENDING, pending: {} },
    full_content: true,
    memory_sources: {},
    next_ordinal: 1,
    observer: {
      run_id: run.id,
      thread_id: run.threadId,
      state: {
        children,
        parts: [],
        request_index: readUsage(run.usageAtSeal)?.requests ?? 0,
        threads: children.map((child) => child.thread_id),
      },
    },
    position: { attempt: run.attempts, sequence: 0 },
    response_groups: {},
    run_id: run.id,
  };
  return {
    baseline: args.before == null && args.after == null,
    complete: true,
    itemsRemovedAt: removedAt as Date | null,
    items: [] as ReturnType<typeof publicItem>[],
    position: '',
    resumeAfter: String(args.after ?? 0),
    run,
    continuation,
  };
}

const publicItem = (item: RunItem) => ({ ...item, contentRefs: publicRefs(item.contentRefs) });

/** The run's status and its stored items after `after`, in one statement (the feed's only query). */
async function readFeedStart(call: CallContext, runId: string, after: number): Promise<{ status: string; items: ItemView[] }> {
  requirePermission(call.actor, 'read');
  // Open items with the text appended since their row was written (see item-appends.ts).
  const rows = await queryDirect<
    RunItem & { runStatus: string; runWorkspaceId: string; appended: unknown; appendedSequence: bigint | null }
  >(
    call.db,
    Prisma.sql`
    SELECT r.status AS "runStatus", r.workspace_id AS "runWorkspaceId", ${ITEM_COLUMNS}, ap.appended, ap.last_sequence AS "appendedSequence"
    FROM runs r LEFT JOIN run_items i ON i.run_id = r.id AND i.ordinal > ${after} AND r.items_removed_at IS NULL
    ${appendedLateral(Prisma.sql`i.state = 'in_progress'`)}
    WHERE r.id = ${runId}
    ORDER BY i.ordinal`,
  );
  const first = rows[0];
  if (!first || first.runWorkspaceId !== call.actor.workspaceId) throw notFound('run', runId);
  const items: ItemView[] = [];
  for (const { runStatus: _status, runWorkspaceId: _workspace, appended, appendedSequence, ...row } of rows) {
    if (row.id === null) continue;
    const item = withAppended(row, appended, appendedSequence);
    items.push({ ...item, contentRefs: publicRefs(item.contentRefs) });
  }
  return { status: first.runStatus, items };
}

const ITEM_COLUMNS = returningColumns(Prisma.RunItemScalarFieldEnum, 'i');

/**
 * The run's status and the newest state of each of its items after `after`, by ordinal: the tail
 * first, then the database (see streamRunItems), the newer state of an item kept.
 */
async function readReplay(call: CallContext, runId: string, after: number): Promise<{ status: string; items: ItemView[] }> {
  const local = localRuns(call.deps.events);
  // A claim of the run under way in this process: its outcome decides where the replay comes from.
  await local.settled(runId);
  // This process runs the run's first attempt: the tail holds every item state the database has, and
  // newer ones (local-runs.ts). Checked and read in one synchronous step, before the tail can go.
  const held = local.held(runId);
  const heldTail = held && runTail(call.deps.events).peek(runId);
  if (held && heldTail) {
    requirePermission(call.actor, 'read');
    if (held.workspaceId !== call.actor.workspaceId) throw notFound('run', runId);
    return { status: 'running', items: heldTail.filter((item) => item.ordinal > after).sort((a, b) => a.ordinal - b.ordinal) };
  }
  // A run that is not running has an empty tail.
  const tail = await runTail(call.deps.events).read(runId);
  const start = await readFeedStart(call, runId, after);
  const replay = new Map<number, ItemView>();
  for (const item of start.items) replay.set(item.ordinal, item);
  for (const item of tail) {
    const known = replay.get(item.ordinal);
    if (item.ordinal > after && (!known || streamSequence(item.lastStreamId) > streamSequence(known.lastStreamId)))
      replay.set(item.ordinal, item);
  }
  return { status: start.status, items: [...replay.values()].sort((a, b) => a.ordinal - b.ordinal) };
}

/**
 * Replays items after `after`, then streams live changes; ends once the run has settled (sealed or
 * waiting) and everything before that is delivered. Each change is delivered once: a change is
 * skipped when its stream sequence is not newer than what was already sent for its item. Every
 * change is a snapshot (the item's whole state); see streamRunItemEvents for appends as deltas.
 *
 * No waiting for the item writer (which streams first and writes behind): the feed listens before
 * anything is read, then the run's tail (what was published, perhaps not yet written; see
 * src/features/runs/run-tail.ts) is read, then the database — the run and its items in one statement. A
 * change published before the feed listened is in the tail, or — once the tail is forgotten after
 * the commit — in the database read after it; every later change arrives live. The replay sends the
 * newest state of each item by ordinal, then live changes follow in stream order.
 *
 * Items and the run's status are heard by synchronous listeners (`listen`), in the order they were
 * published, and the item writer publishes every item's last state before the run's status changes:
 * when the settled status arrives, every item change before it has arrived too, so the feed ends
 * without reading the database again. One query per subscription.
 */
export function streamRunItems(
  call: CallContext,
  runId: string,
  after = 0,
  position: string | null = null,
): AsyncGenerator<ItemView, void, undefined> {
  // Closable: a client that unsubscribes while nothing happens stops the listeners at once.
  return closableStream((closed) => feedRunItems(call, runId, after, position, closed, 'snapshots')) as AsyncGenerator<
    ItemView,
    void,
    undefined
  >;
}

/**
 * As streamRunItems, with appended text as deltas (docs/api/runs.md, "Streaming deltas"): the
 * replay, openings, completions and every other change are snapshots; an append is a delta when the
 * subscriber holds the item's state right before it — what this subscription sent it, or, after a
 * reconnect with `position`, the state it had at that position — and a snapshot otherwise.
 */
export function streamRunItemEvents(
  call: CallContext,
  runId: string,
  after = 0,
  position: string | null = null,
): AsyncGenerator<ItemEvent, void, undefined> {
  return closableStream((closed) => feedRunItems(call, runId, after, position, closed, 'deltas'));
}

/**
 * The snapshot after a delta, made once for every snapshot feed that holds the state before it (they
 * all hold the same state: the one at the delta's previousStreamId), not once per subscriber.
 */
const snapshotsAfter = new WeakMap<ItemTextDelta, ItemView>();
function snapshotAfter(state: ItemView, delta: ItemTextDelta): ItemView | null {
  const known = snapshotsAfter.get(delta);
  if (known) return known;
  const next = applyTextDelta(state, delta);
  if (next) snapshotsAfter.set(delta, next);
  return next;
}

const eventSequence = (event: ItemEvent) => streamSequence(isTextDelta(event) ? event.streamId : event.lastStreamId);

async function* feedRunItems(
  call: CallContext,
  runId: string,
  after: number,
  position: string | null,
  closed: AbortSignal,
  mode: 'snapshots' | 'deltas',
): AsyncGenerator<ItemEvent, void, undefined> {
  // `position`: the last stream id the client saw; every change at or before it is skipped, so a
  // client that reconnects with it gets each later change exactly once (the database may hold an
  // older state of an item than the client already has).
  const seen = streamSequence(position);
  const { deps } = call;
  const queue: ItemEvent[] = [];
  let settledLive = false;
  // Redis came back after an outage: changes published meanwhile may never arrive (see below).
  let missedSome = false;
  let notify: (() => void) | null = null;
  const wake = () => {
    const resolve = notify;
    notify = null;
    resolve?.();
  };
  const unlisten = [
    listenTo(deps.events, 'runItem', runId, (item) => {
      queue.push(item);
      wake();
    }),
    listenTo(deps.events, 'runChanged', runId, (run) => {
      if (!settled(run.status)) return;
      settledLive = true;
      wake();
    }),
    onReconnected(deps.events, () => {
      missedSome = true;
      wake();
    }),
    // The client leaving ends the wait too. Listened once per feed, not per wait: with 1,000
    // subscribers of one run, an abort listener added and removed at every event cost a third of
    // the fan-out's latency.
    onClose(closed, wake),
  ];
  // The stream sequence of each item's state the client holds (sent by this feed).
  const held = new Map<number, number>();
  // Snapshot feeds: that state itself, to which the next delta is applied.
  const states = new Map<number, ItemView>();
  const fresh = (event: ItemEvent) => event.ordinal > after && eventSequence(event) > Math.max(seen, held.get(event.ordinal) ?? 0);
  const hold = (item: ItemView) => {
    held.set(item.ordinal, streamSequence(item.lastStreamId));
    if (mode === 'snapshots') states.set(item.ordinal, item);
  };
  /** What to send for a fresh delta: itself, its snapshot (snapshot feeds), or null when the client lacks the state before it. */
  const deliverable = (delta: ItemTextDelta): ItemEvent | null => {
    const previous = streamSequence(delta.previousStreamId);
    if (mode === 'snapshots') {
      const state = states.get(delta.ordinal);
      return state ? snapshotAfter(state, delta) : null;
    }
    const holds = held.get(delta.ordinal);
    // Nothing sent for the item yet: a client resuming at `seen` holds every change up to it, so the
    // item's state at `previous` when that is at or before it.
    return (holds === undefined ? previous > 0 && previous <= seen : holds === previous) ? delta : null;
  };
  try {
    await subscriptionsActive(deps.events);
    const start = await readReplay(call, runId, after);
    for (const item of start.items) {
      if (!fresh(item)) continue;
      hold(item);
      yield item;
    }
    // Settled when read: every item was committed with the seal, so the replay had them all.
    if (settled(start.status)) return;
    for (;;) {
      // Taken one at a time: the listener may add more while this generator is suspended in a yield.
      while (queue.length) {
        const event = queue.shift()!;
        if (!fresh(event)) continue;
        if (!isTextDelta(event)) {
          hold(event);
          yield event;
          continue;
        }
        const out = deliverable(event);
        if (out) {
          held.set(event.ordinal, streamSequence(event.streamId));
          if (!isTextDelta(out)) states.set(out.ordinal, out);
          yield out;
          continue;
        }
        // The client does not hold the state this delta applies to: send the item's snapshot from
        // the tail (written before the delta was published, so at least as new). Rare: a resumed
        // client's item it never had, or a missed event.
        const replay = await readReplay(call, runId, after);
        for (const item of replay.items) {
          if (!fresh(item)) continue;
          hold(item);
          yield item;
        }
        if (settled(replay.status)) settledLive = true;
        // Still fresh (the tail was out of reach): the delta is dropped; the item's next snapshot,
        // at the latest its completion, brings the text.
      }
      if (settledLive || closed.aborted) return;
      if (missedSome) {
        // Back after a Redis outage, resubscribed: what was published while this process could not
        // hear it is in the tail or the database now (as at the start), and whatever comes later
        // arrives live. Already-sent states are skipped, so nothing is delivered twice.
        missedSome = false;
        const missed = await readReplay(call, runId, after);
        queue.push(...missed.items);
        if (settled(missed.status)) settledLive = true;
        continue;
      }
      await new Promise<void>((resolve) => (notify = resolve));
    }
  } finally {
    for (const stop of unlisten) stop();
  }
}

/** Run items by id for `node(id)` (src/services/nodes.ts), as the items page shows them: the stored full text of large content hidden. */
export const loadRunItems: NodeRowsLoader<ItemView> = async (call, ids) =>
  (await withStoredAppends(call.db, await call.db.runItem.findMany({ where: idsInWorkspace(call, ids) }))).map((item) => ({
    ...item,
    contentRefs: publicRefs(item.contentRefs),
  }));
