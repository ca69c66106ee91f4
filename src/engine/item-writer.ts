// The process's one writer of run items: every run streaming in this process hands it its changes,
// and each tick it writes what all of them changed since the last in ONE statement. A run at 50
// tokens/s changes its open item every 20 ms; with a flush per run, 1,000 live runs were 50,000
// statements/s, far beyond what PostgreSQL on a small node commits. Written per tick instead, the
// statements per second do not grow with live runs (only the rows in each statement do).
//
// These writes commit without waiting for the WAL flush (`synchronous_commit` off for their own
// transaction only, see writeItems): a crash may lose the last of them, which costs nothing —
// subscribers already had the changes live, a run's next attempt starts after what is stored with
// higher stream positions (its claim committed durably), and each run's seal, which writes its
// remaining items with the outcome, commits durably and so makes every earlier write durable too
// (the WAL is flushed in order).
import type { Deps } from '../services/deps.js';
import { itemsWrite, writeItems, type ItemChanges } from '../features/runs/attempt-items.js';

/** How long changes wait to be written: the first change after a write starts the next tick. */
export const ITEM_WRITE_TICK_MS = 20;

/** Rows (items and appends) one statement writes at most; the rest wait for the next tick. */
const MAX_ROWS_PER_WRITE = 4_000;

/** A stream of one attempt's items, as the writer sees it. */
export interface ItemChangeSource {
  readonly runId: string;
  /** What changed since the last call (null: nothing); the source forgets it. */
  takeChanges(): ItemChanges | null;
}

export class ItemWriter {
  private readonly waiting = new Set<ItemChangeSource>();
  private timer: NodeJS.Timeout | null = null;
  /** The last write started: writes run one after another, so a run's changes are stored in order. */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: Pick<Deps, 'db' | 'logger'>) {}

  /** The source has changes: they are written within a tick. */
  schedule(source: ItemChangeSource) {
    this.waiting.add(source);
    this.timer ??= setTimeout(() => void this.flush(), ITEM_WRITE_TICK_MS);
  }

  /** Writes what every waiting source has now; resolves when it is stored (a failure is logged). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeWaiting());
    return this.writing;
  }

  /** Resolves when every write started so far has ended: a source's taken changes are stored. */
  settled(source: ItemChangeSource): Promise<void> {
    // Its changes not taken yet are the caller's now (the seal writes them with the outcome).
    this.waiting.delete(source);
    return this.writing;
  }

  private async writeWaiting() {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const taken: { source: ItemChangeSource; changes: ItemChanges }[] = [];
    const runs = new Set<string>();
    let rows = 0;
    for (const source of this.waiting) {
      // One attempt per run per statement (an item's row may be written once per statement), and
      // a bounded statement: the others wait for the next tick.
      if (runs.has(source.runId) || rows >= MAX_ROWS_PER_WRITE) continue;
      this.waiting.delete(source);
      const changes = source.takeChanges();
      if (!changes) continue;
      runs.add(source.runId);
      rows += changes.rows.length + changes.appends.length;
      taken.push({ source, changes });
    }
    if (this.waiting.size) this.timer ??= setTimeout(() => void this.flush(), ITEM_WRITE_TICK_MS);
    if (!taken.length) return;
    try {
      await writeItems(this.deps.db, itemsWrite(taken.map((t) => t.changes))!);
    } catch (error) {
      if (taken.length === 1) return this.failed(error, taken[0]!.source);
      // One run's changes failed them all: each is written alone, so only the faulty one is lost.
      for (const { source, changes } of taken) {
        await writeItems(this.deps.db, itemsWrite([changes])!).catch((alone) => this.failed(alone, source));
      }
    }
  }

  private failed(error: unknown, source: ItemChangeSource) {
    this.deps.logger.error({ err: error, runId: source.runId }, 'run item flush failed');
  }
}

const writers = new WeakMap<Deps['db'], ItemWriter>();

/** The item writer of the process's database client. */
export function itemWriter(deps: Pick<Deps, 'db' | 'logger'>): ItemWriter {
  let writer = writers.get(deps.db);
  if (!writer) writers.set(deps.db, (writer = new ItemWriter(deps)));
  return writer;
}
