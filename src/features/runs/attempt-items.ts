// The statements of an attempt's run items, for the engine's item writer (src/engine/items.ts): the
// one upsert that writes a batch of items (run by the writer's flushes, or handed to the seal and the
// hand-back to run inside their own statement), and the two reads a later attempt starts from — the
// last ordinal written and the items an earlier attempt left in progress.
import type { Db } from '../../db.js';
import { Prisma } from '../../generated/prisma/client.js';

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

/** A statement writing a batch of items: run by `writeItems`, or inside the seal's or hand-back's statement. */
export type ItemsWrite = Prisma.Sql;

/** Content refs as the row keeps them: a ref whose text is an asset's content does not repeat it. */
function storedRefs(refs: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [member, ref] of Object.entries(refs)) {
    const { full, ...rest } = ref as Record<string, unknown>;
    out[member] = rest.asset_id ? rest : { ...rest, full };
  }
  return out;
}

/** One statement writing new items and updating known ones (ordinals are unique per run). */
export function upsertItems(workspaceId: string, batch: RunItemState[]): ItemsWrite {
  const values = batch.map(
    (
      item,
    ) => Prisma.sql`(${item.id}, ${item.runId}, ${workspaceId}, ${item.ordinal}, ${item.kind}, ${item.state}, ${JSON.stringify(item.content)}::jsonb,
    ${JSON.stringify(storedRefs(item.contentRefs))}::jsonb, ${item.firstStreamId}, ${item.lastStreamId}, ${item.startedAt}, ${item.endedAt})`,
  );
  return Prisma.sql`INSERT INTO run_items (id, run_id, workspace_id, ordinal, kind, state, content, content_refs, first_stream_id, last_stream_id, started_at, ended_at)
    VALUES ${Prisma.join(values)}
    ON CONFLICT (run_id, ordinal) DO UPDATE SET kind = EXCLUDED.kind, state = EXCLUDED.state, content = EXCLUDED.content, content_refs = EXCLUDED.content_refs,
      last_stream_id = EXCLUDED.last_stream_id, ended_at = EXCLUDED.ended_at`;
}

/**
 * Runs an item write of a flush, committed without waiting for the WAL flush (`synchronous_commit`
 * off for its own transaction only): the seal commits durably and makes it durable with it.
 */
export async function writeItems(db: Db, write: ItemsWrite): Promise<void> {
  await db.$executeRaw`${write} RETURNING set_config('synchronous_commit', 'off', true)`;
}

/** The highest ordinal of the run's items (0: none): a later attempt numbers its items after it. */
export async function lastItemOrdinal(db: Db, runId: string): Promise<number> {
  return (await db.runItem.aggregate({ where: { runId }, _max: { ordinal: true } }))._max.ordinal ?? 0;
}

/** The items an earlier attempt left in progress (its worker died), oldest first: the next attempt closes them. */
export function itemsLeftInProgress(db: Db, runId: string) {
  return db.runItem.findMany({ where: { runId, state: 'in_progress' }, orderBy: { ordinal: 'asc' } });
}
