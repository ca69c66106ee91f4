// The statements of an attempt's run items, for the engine's item writer (src/engine/items.ts): the
// write of a batch of item changes — rows written whole, appends inserted, appends of rewritten rows
// deleted — run by the writer's flushes as one statement, or handed to the seal and the hand-back to
// run inside their own statement; and the two reads a later attempt starts from — the last ordinal
// written and the items an earlier attempt left in progress (with their appends).
import { queryDirect, type Db } from '../../db.js';
import { Prisma } from '../../generated/prisma/client.js';
import { deleteAppends, insertAppends, withStoredAppends, type ItemAppend } from './item-appends.js';

export type { ItemAppend };

/** A run item as an attempt holds it, from its opening to its last change (a run_items row's fields). */
export interface RunItemState {
  id: string;
  runId: string;
  ordinal: number;
  kind: string;
  state: 'in_progress' | 'completed' | 'failed';
  content: Record<string, unknown>;
  contentRefs: Record<string, unknown>;
  firstStreamId: string;
  lastStreamId: string;
  startedAt: Date;
  endedAt: Date | null;
}

/**
 * A write of item changes: data-modifying statements, each run as a CTE of one statement — by
 * `writeItems`, or inside the seal's or hand-back's statement (`itemsCtes`), so items and what
 * follows them commit together. (PostgreSQL allows data-modifying CTEs at the top level only.)
 */
export type ItemsWrite = Prisma.Sql[];

/** What one attempt changed since its last write. */
export interface ItemChanges {
  workspaceId: string;
  runId: string;
  /**
   * The attempt that made the changes (the run's `attempts` when it claimed the run). They are
   * written only while the run is running that attempt: an attempt whose worker lost the database
   * for longer than its lease, and whose run another worker took over meanwhile, must not change
   * the run's items when it comes back (its ordinals are the new attempt's too).
   */
  attempt: number;
  /** Items whose row is written whole (opened, changed otherwise than by appends, or ended). */
  rows: RunItemState[];
  /** Text appended to open items whose row is not in `rows`. */
  appends: ItemAppend[];
  /** Items of `rows` that may have stored appends: their row now holds that text, the appends go. */
  rewritten: { runId: string; ordinal: number }[];
}

/** The statements writing changes of one or more attempts (of distinct runs); null: nothing to write. */
export function itemsWrite(changes: ItemChanges[]): ItemsWrite | null {
  const rows = changes.flatMap((c) => c.rows.map((item) => ({ item, workspaceId: c.workspaceId })));
  const appends = changes.flatMap((c) => c.appends);
  const rewritten = changes.flatMap((c) => c.rewritten);
  if (!rows.length && !appends.length && !rewritten.length) return null;
  // The runs whose attempt is still the one that made the changes: every statement below writes
  // only theirs (a CTE of the same statement, so all of them see one answer).
  const write: ItemsWrite = [heldRuns(changes)];
  if (rows.length) write.push(upsertItems(rows));
  if (appends.length) write.push(insertAppends(appends, HELD));
  if (rewritten.length) write.push(deleteAppends(rewritten, HELD));
  return write;
}

/** The name of the first CTE of an items write: the runs still held by the writing attempts. */
const HELD = Prisma.raw('written_items_0');

function heldRuns(changes: ItemChanges[]): Prisma.Sql {
  return Prisma.sql`SELECT r.id FROM runs r
    JOIN unnest(${changes.map((c) => c.runId)}::text[], ${changes.map((c) => c.attempt)}::int[]) AS a(run_id, attempt)
      ON r.id = a.run_id AND r.attempts = a.attempt
    WHERE r.status = 'running'`;
}

/** The CTEs of an items write, each followed by a comma (empty for none), to open a WITH list. */
export function itemsCtes(write: ItemsWrite | null): Prisma.Sql {
  if (!write?.length) return Prisma.empty;
  return Prisma.sql`${Prisma.join(
    write.map((statement, index) => Prisma.sql`${Prisma.raw(`written_items_${index}`)} AS (${statement})`),
    ', ',
  )},`;
}

/** Content refs as the row keeps them: a ref whose text is an asset's content does not repeat it. */
function storedRefs(refs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, ref] of Object.entries(refs)) {
    const { full, ...rest } = ref as Record<string, unknown>;
    out[member] = rest.asset_id ? rest : { ...rest, full };
  }
  return out;
}

/**
 * One statement writing new items and updating known ones (ordinals are unique per run). Its values
 * come as one array per column, so its text is the same whatever the batch's size: PostgreSQL parses
 * and plans it once per connection (a prepared statement, see storage/prepared-statements.ts), where a
 * VALUES list made a new text, parsed and planned anew, for every number of rows.
 */
function upsertItems(batch: { item: RunItemState; workspaceId: string }[]): Prisma.Sql {
  const column = <T>(read: (row: { item: RunItemState; workspaceId: string }) => T) => batch.map(read);
  // Timestamps travel as ISO text ('' for none) and JSON as text: arrays of either map the same
  // through node-postgres and through Prisma's driver adapter (the seal runs this inside its own statement).
  return Prisma.sql`INSERT INTO run_items (id, run_id, workspace_id, ordinal, kind, state, content, content_refs, first_stream_id, last_stream_id, started_at, ended_at)
    SELECT v.id, v.run_id, v.workspace_id, v.ordinal, v.kind, v.state, v.content::jsonb, v.content_refs::jsonb, v.first_stream_id, v.last_stream_id,
      v.started_at::timestamptz, nullif(v.ended_at, '')::timestamptz
    FROM unnest(${column((r) => r.item.id)}::text[], ${column((r) => r.item.runId)}::text[], ${column((r) => r.workspaceId)}::text[],
      ${column((r) => r.item.ordinal)}::int[], ${column((r) => r.item.kind)}::text[], ${column((r) => r.item.state)}::text[],
      ${column((r) => JSON.stringify(r.item.content))}::text[], ${column((r) => JSON.stringify(storedRefs(r.item.contentRefs)))}::text[],
      ${column((r) => r.item.firstStreamId)}::text[], ${column((r) => r.item.lastStreamId)}::text[],
      ${column((r) => r.item.startedAt.toISOString())}::text[], ${column((r) => r.item.endedAt?.toISOString() ?? '')}::text[])
      AS v(id, run_id, workspace_id, ordinal, kind, state, content, content_refs, first_stream_id, last_stream_id, started_at, ended_at)
    WHERE v.run_id IN (SELECT id FROM ${HELD})
    ON CONFLICT (run_id, ordinal) DO UPDATE SET kind = EXCLUDED.kind, state = EXCLUDED.state, content = EXCLUDED.content, content_refs = EXCLUDED.content_refs,
      last_stream_id = EXCLUDED.last_stream_id, ended_at = EXCLUDED.ended_at`;
}

/**
 * Runs an item write of a flush, committed without waiting for the WAL flush (`synchronous_commit`
 * off for its own transaction only): the seal commits durably and makes it durable with it.
 */
export async function writeItems(db: Db, write: ItemsWrite): Promise<void> {
  // Straight to node-postgres (db.ts, queryDirect): at 50 writes a second Prisma's query layer around
  // this one statement was most of the writer's CPU.
  await queryDirect(
    db,
    Prisma.sql`WITH ${itemsCtes(write)} settings AS (SELECT set_config('synchronous_commit', 'off', true)) SELECT 1 FROM settings`,
  );
}

/** The highest ordinal of the run's items (0: none): a later attempt numbers its items after it. */
export async function lastItemOrdinal(db: Db, runId: string): Promise<number> {
  return (await db.runItem.aggregate({ where: { runId }, _max: { ordinal: true } }))._max.ordinal ?? 0;
}

/**
 * The items an earlier attempt left in progress (its worker died), oldest first, with the text it
 * stored as appends: the next attempt closes them.
 */
export async function itemsLeftInProgress(db: Db, runId: string) {
  return withStoredAppends(db, await db.runItem.findMany({ where: { runId, state: 'in_progress' }, orderBy: { ordinal: 'asc' } }));
}
