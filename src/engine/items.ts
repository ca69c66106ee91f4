// Run items as a run streams them. Every change is published to subscribers at once (the pubsub
// never waits for the database); database writes are batched and flushed shortly after by the
// process's item writer (src/engine/item-writer.ts, one statement per tick for all runs), and always
// before the run changes status, so a reader that sees a status also sees every item before it.
// A flush writes what changed: an item's row when it opens, changes otherwise or ends, and only the
// appended text (run_item_appends) while it streams, so bytes written grow with an answer's length.
// What is published but not yet written stays readable in the run's tail (src/features/runs/run-tail.ts),
// so a subscriber that arrives mid-run never waits for the writer.
//
// Each change carries a stream sequence: attempt × 1e6 + a counter. Sequences only grow within a
// run — a takeover starts a higher attempt — so subscribers can drop what they have already seen.
//
// Appended text is published as deltas, not snapshots: the appends to one item member within one
// event-loop turn (a model's network read often carries several tokens) become one delta, published by
// a setImmediate at the end of the turn (one for all runs: delta-flush.ts) — one stream id, one bus
// message, one frame per subscriber. Every other change publishes the item's snapshot, and publishes
// pending deltas first (the stream stays in order); a snapshot of an item drops that item's own
// pending delta (it holds the text). A delta is handed to the writer when it is published (with its
// stream position), and pending deltas are published before the writer takes changes, so what is
// stored is always a state some change announced.
import { newId } from '../lib/ids.js';
import type { Deps } from '../services/deps.js';
import { itemsWrite, type ItemAppend, type ItemChanges, type ItemsWrite, type RunItemState } from '../features/runs/attempt-items.js';
import { itemWriter, type ItemChangeSource } from './item-writer.js';
import { cancelDeltaFlush, scheduleDeltaFlush, type DeltaSource } from './delta-flush.js';
import { contentRefId, publicRefs, streamId, streamSequence } from '../features/runs/run-items.js';
import { runTail } from '../features/runs/run-tail.js';
import { storedItemContent, storedItemRefs } from '../features/runs/run-item-documents.js';
import { storeRunOutput } from '../features/assets/assets.js';
import type { ItemView } from '../services/event-topics.js';
import { callContext, principalActor } from '../services/call-context.js';

export const ITEM_CONTENT_INLINE_LIMIT = 64 * 1024;
const PREVIEW_CHARS = 1024;

/** Items as the attempt holds them (the row's fields): declared beside the statements that write them. */
export type { RunItemState };

export class RunItemStream implements ItemChangeSource, DeltaSource {
  private nextOrdinal: number;
  private counter = 0;
  private readonly items = new Map<number, RunItemState>();
  /** Items whose row is written whole at the next write (their pending appends are in it). */
  private readonly dirty = new Set<number>();
  /** Text appended to items whose row is not dirty, by ordinal, not yet written. */
  private readonly appends = new Map<number, ItemAppend[]>();
  /** Items with appends written since their row: writing the row again deletes them. */
  private readonly appendsStored = new Set<number>();
  private readonly writer;
  /** Appends of this event-loop turn not yet published, by item ordinal (see publishDeltas). */
  private readonly pendingDeltas = new Map<number, { item: RunItemState; member: string; offset: number; text: string }>();

  constructor(
    private readonly deps: Deps,
    private readonly run: { id: string; workspaceId: string; principalId: string },
    private readonly attempt: number,
    lastOrdinal: number,
  ) {
    this.nextOrdinal = lastOrdinal + 1;
    this.writer = itemWriter(deps);
  }

  get runId() {
    return this.run.id;
  }

  private nextStreamId(): string {
    this.counter += 1;
    return streamId(this.attempt, this.counter);
  }

  /**
   * The published view is a snapshot (later changes must not change what a subscriber was sent; the
   * content's strings are shared, not copied), with the stored full text of large content hidden
   * once here rather than per subscriber.
   */
  private view(item: RunItemState): ItemView {
    return { ...item, content: { ...item.content }, contentRefs: publicRefs(item.contentRefs) };
  }

  /** A change other than an append: the item's snapshot is published, and its row written whole. */
  private changed(item: RunItemState) {
    // This snapshot holds the item's pending text; other items' pending deltas go first.
    this.pendingDeltas.delete(item.ordinal);
    this.publishDeltas();
    item.lastStreamId = this.nextStreamId();
    runTail(this.deps.events).publish(this.run.id, this.view(item));
    this.dirty.add(item.ordinal);
    this.appends.delete(item.ordinal);
    this.writer.schedule(this);
  }

  /** Queues an append for this turn's delta of the item's member (see publishDeltas). */
  private appended(item: RunItemState, member: string, offset: number, text: string) {
    const pending = this.pendingDeltas.get(item.ordinal);
    if (pending && pending.member === member) pending.text += text;
    else {
      if (pending) this.publishDeltas();
      this.pendingDeltas.set(item.ordinal, { item, member, offset, text });
    }
    scheduleDeltaFlush(this);
    // The writer publishes what is still pending before it takes the changes (takeChanges).
    this.writer.schedule(this);
  }

  /**
   * Publishes the pending appends, one delta per item, each with its own new stream id, and hands
   * each to the writer as an append at that position (an item whose row is to be written whole
   * needs none: the row holds the text). The writer was scheduled by the appends themselves.
   */
  private publishDeltas() {
    cancelDeltaFlush(this);
    if (this.pendingDeltas.size === 0) return;
    const tail = runTail(this.deps.events);
    for (const { item, member, offset, text } of this.pendingDeltas.values()) {
      const previousStreamId = item.lastStreamId;
      item.lastStreamId = this.nextStreamId();
      const delta = {
        textDelta: true as const,
        ordinal: item.ordinal,
        itemId: item.id,
        member,
        offset,
        text,
        streamId: item.lastStreamId,
        previousStreamId,
      };
      tail.publishDelta(this.run.id, delta, this.view(item));
      if (!this.dirty.has(item.ordinal)) this.noteAppend(item, member, text);
    }
    this.pendingDeltas.clear();
  }

  /** The turn's shared callback publishes this stream's pending deltas (src/engine/delta-flush.ts). */
  flushDeltas() {
    this.publishDeltas();
  }

  /** Keeps an append for the next write: run together with the one before it when of the same member. */
  private noteAppend(item: RunItemState, member: string, text: string) {
    const sequence = streamSequence(item.lastStreamId);
    const pending = this.appends.get(item.ordinal);
    const last = pending?.[pending.length - 1];
    if (last && last.member === member) {
      last.text += text;
      last.sequence = sequence;
    } else {
      const append = { runId: this.run.id, workspaceId: this.run.workspaceId, ordinal: item.ordinal, sequence, member, text };
      if (pending) pending.push(append);
      else this.appends.set(item.ordinal, [append]);
    }
  }

  open(kind: string, content: Record<string, unknown>, state: RunItemState['state'] = 'in_progress'): RunItemState {
    this.publishDeltas(); // before the new item's first id is taken (changed() reuses it)
    const first = this.nextStreamId();
    const now = new Date();
    const item: RunItemState = {
      id: newId('runItem'),
      runId: this.run.id,
      ordinal: this.nextOrdinal++,
      kind,
      state,
      content,
      contentRefs: {},
      firstStreamId: first,
      lastStreamId: first,
      startedAt: now,
      endedAt: state === 'in_progress' ? null : now,
    };
    this.items.set(item.ordinal, item);
    this.counter -= 1; // changed() takes the next id again: first and last id are equal for a new item
    this.changed(item);
    return item;
  }

  /** Appends to a string member of an open item (text deltas). */
  append(item: RunItemState, member: string, delta: string) {
    const before = (item.content[member] as string | undefined) ?? '';
    item.content[member] = `${before}${delta}`;
    this.appended(item, member, before.length, delta);
  }

  update(item: RunItemState, patch: Record<string, unknown>) {
    Object.assign(item.content, patch);
    this.changed(item);
  }

  complete(item: RunItemState, patch: Record<string, unknown> = {}, state: 'completed' | 'failed' = 'completed') {
    Object.assign(item.content, patch);
    item.state = state;
    item.endedAt = new Date();
    this.moveLargeContent(item);
    this.changed(item);
  }

  /**
   * Stores a large value of an item in its `content_refs` (the view shows the preview and sizes; the
   * whole text is read through the content reader): `content[member]` keeps a preview.
   */
  storeRef(item: RunItemState, member: string, text: string, mediaType: string, sizeBytes = Buffer.byteLength(text), assetId?: string) {
    this.publishDeltas(); // pending deltas describe the member before this replaces it
    const preview = text.slice(0, PREVIEW_CHARS);
    item.contentRefs[member] = {
      id: contentRefId(item.id, member),
      media_type: mediaType,
      preview,
      size_bytes: sizeBytes,
      truncated: true,
      // With an asset, the whole text is the asset's content (the row keeps only the reference; the
      // attempt keeps `full` in memory for `findRef`).
      ...(assetId ? { asset_id: assetId } : {}),
      full: text,
    };
    item.content[member] = preview;
  }

  /**
   * Like `storeRef`, with the whole text stored as an asset of the run's workspace (created by the
   * run's principal, labelled with the run and item): readable as a file, and out of the item's row.
   * If the asset cannot be stored, the text stays in the row as before.
   */
  async storeAsAsset(item: RunItemState, member: string, text: string, mediaType: string, sizeBytes = Buffer.byteLength(text)) {
    try {
      const call = callContext(this.deps, principalActor(this.run.workspaceId, this.run.principalId), null);
      const asset = await storeRunOutput(call, {
        name: `${member} of ${item.id}`,
        mediaType,
        content: Buffer.from(text),
        labels: { source: 'run_output', run_id: this.run.id, item_id: item.id },
      });
      this.storeRef(item, member, text, mediaType, sizeBytes, asset.id);
    } catch (error) {
      this.deps.logger.warn({ err: error, runId: this.run.id, itemId: item.id }, 'a large result could not be stored as an asset');
      this.storeRef(item, member, text, mediaType, sizeBytes);
    }
  }

  /** The whole stored text of a content ref of this attempt's items (null: not one of them). */
  findRef(refId: string): string | null {
    for (const item of this.items.values()) {
      for (const ref of Object.values(item.contentRefs) as { id?: string; full?: unknown }[])
        if (ref.id === refId && typeof ref.full === 'string') return ref.full;
    }
    return null;
  }

  /** Items whose text outgrows the inline limit keep a preview; the whole text moves to content_refs. */
  private moveLargeContent(item: RunItemState) {
    for (const [member, value] of Object.entries(item.content)) {
      if (member in item.contentRefs || typeof value !== 'string' || Buffer.byteLength(value) <= ITEM_CONTENT_INLINE_LIMIT) continue;
      item.contentRefs[member] = {
        id: contentRefId(item.id, member),
        media_type: 'text/plain; charset=utf-8',
        preview: value.slice(0, PREVIEW_CHARS),
        size_bytes: Buffer.byteLength(value),
        truncated: true,
        full: value,
      };
      item.content[member] = value.slice(0, PREVIEW_CHARS);
    }
  }

  /**
   * Items an earlier attempt left in progress (its worker died) are closed as failed under this
   * attempt's stream, so readers and subscribers see them end; the new attempt streams anew.
   */
  adoptStale(
    rows: {
      id: string;
      ordinal: number;
      kind: string;
      content: unknown;
      contentRefs: unknown;
      firstStreamId: string | null;
      startedAt: Date;
    }[],
  ) {
    for (const row of rows) {
      const item: RunItemState = {
        id: row.id,
        runId: this.run.id,
        ordinal: row.ordinal,
        kind: row.kind,
        state: 'in_progress',
        content: { ...storedItemContent(row.content) },
        contentRefs: storedItemRefs(row.contentRefs),
        firstStreamId: row.firstStreamId ?? '',
        lastStreamId: '',
        startedAt: row.startedAt,
        endedAt: null,
      };
      this.items.set(item.ordinal, item);
      // Its text may be partly in stored appends (read into `content` above): the row replaces them.
      this.appendsStored.add(item.ordinal);
      this.complete(item, { interrupted: true }, 'failed');
    }
  }

  openItems(): RunItemState[] {
    return [...this.items.values()].filter((item) => item.state === 'in_progress');
  }

  /** The attempt's items are committed (or it is over): late subscribers read the database alone. */
  close(committed = true) {
    // Nothing is pending once the seal took the last changes (drain publishes them); this keeps
    // the stream's order should a caller close without a seal.
    this.publishDeltas();
    // An attempt whose last changes were not stored (its seal failed: the database went away) keeps
    // its tail: the run's next attempt reads there what subscribers were told (adoptStale's rows).
    if (committed) runTail(this.deps.events).forget(this.run.id);
  }

  /** Writes every change so far (with every other run's, by the item writer); resolves when stored. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  /**
   * Waits for earlier writes, then hands over the changes not yet written as one write (or null)
   * for the caller to run — the seal runs it inside its own statement, so items and the status
   * that follows them commit together.
   */
  async drain(): Promise<ItemsWrite | null> {
    await this.writer.settled(this);
    const changes = this.takeChanges();
    return changes && itemsWrite([changes]);
  }

  takeChanges(): ItemChanges | null {
    this.publishDeltas(); // what is written is a state subscribers were told of
    if (this.dirty.size === 0 && this.appends.size === 0) return null;
    const rows = [...this.dirty].map((ordinal) => this.items.get(ordinal)!);
    const appends = [...this.appends.values()].flat();
    const rewritten = rows
      .filter((item) => this.appendsStored.has(item.ordinal))
      .map((item) => ({ runId: item.runId, ordinal: item.ordinal }));
    this.dirty.clear();
    this.appends.clear();
    for (const item of rows) this.appendsStored.delete(item.ordinal);
    for (const append of appends) this.appendsStored.add(append.ordinal);
    // Committed items never change again: forget them.
    for (const item of rows) if (item.state !== 'in_progress') this.items.delete(item.ordinal);
    return { workspaceId: this.run.workspaceId, runId: this.run.id, attempt: this.attempt, rows, appends, rewritten };
  }
}
