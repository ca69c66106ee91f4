// Appends of run items still in progress (table run_item_appends): the item writer stores the text
// a stream appends to an open item as rows of its own instead of rewriting the item's whole content
// at every flush, so an answer of n tokens writes O(n) bytes rather than O(n²). The item's row keeps
// its content as of its last write (`last_stream_id`); its appends newer than that, in stream order,
// complete it. Every reader of stored items that can meet an in-progress item reads it through here.
import type { Db, Prisma as DbPrisma } from '../../db.js';
import { Prisma } from '../../generated/prisma/client.js';
import { storedItemContent } from './run-item-documents.js';

/** Text appended to one string member of an open item, as one change (or several, run together) of its stream. */
export interface ItemAppend {
  runId: string;
  workspaceId: string;
  ordinal: number;
  /** The stream sequence of the (last) change it holds. */
  sequence: number;
  member: string;
  text: string;
}

/**
 * One statement inserting appends (arrays, so its size in parameters does not grow with the batch),
 * of the runs in `held` only (the runs whose writing attempt still holds them, a CTE of the same statement).
 */
export function insertAppends(appends: ItemAppend[], held: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`INSERT INTO run_item_appends (run_id, ordinal, sequence, member, text, workspace_id)
    SELECT * FROM unnest(${appends.map((a) => a.runId)}::text[], ${appends.map((a) => a.ordinal)}::int[],
      ${appends.map((a) => String(a.sequence))}::bigint[], ${appends.map((a) => a.member)}::text[],
      ${appends.map((a) => a.text)}::text[], ${appends.map((a) => a.workspaceId)}::text[]) AS n(run_id, ordinal, sequence, member, text, workspace_id)
    WHERE n.run_id IN (SELECT id FROM ${held})`;
}

/**
 * One statement deleting every stored append of the given items (their rows are being written
 * whole); `held` names the runs whose writing attempt still holds them (a CTE of the same statement).
 */
export function deleteAppends(items: { runId: string; ordinal: number }[], held: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`DELETE FROM run_item_appends a
    USING unnest(${items.map((i) => i.runId)}::text[], ${items.map((i) => i.ordinal)}::int[]) AS o(run_id, ordinal)
    WHERE a.run_id = o.run_id AND a.ordinal = o.ordinal AND o.run_id IN (SELECT id FROM ${held})`;
}

/** The stream sequence of a stored `last_stream_id` ('s' and a number; 0 for none), in SQL. */
const sequenceOf = (column: Prisma.Sql) => Prisma.sql`coalesce(nullif(substr(${column}, 2), '')::bigint, 0)`;

/**
 * A lateral subquery (alias `ap`) over an item `i` (run_id, ordinal, last_stream_id) for which
 * `open` holds: `ap.appended`, the text appended to each member since the row was written (an
 * object), and `ap.last_sequence`, the newest append's sequence (null: nothing appended).
 */
export function appendedLateral(open: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`LEFT JOIN LATERAL (
    SELECT jsonb_object_agg(m.member, m.text) AS appended, max(m.last_sequence) AS last_sequence
    FROM (SELECT a.member, string_agg(a.text, '' ORDER BY a.sequence) AS text, max(a.sequence) AS last_sequence
      FROM run_item_appends a
      WHERE ${open} AND a.run_id = i.run_id AND a.ordinal = i.ordinal AND a.sequence > ${sequenceOf(Prisma.sql`i.last_stream_id`)}
      GROUP BY a.member) m
  ) ap ON true`;
}

interface StoredItem {
  runId: string;
  ordinal: number;
  state: string;
  content: unknown;
  lastStreamId: string | null;
}

/** An item row with what `appendedLateral` found for it added to its members and position. */
export function withAppended<T extends StoredItem>(item: T, appended: unknown, lastSequence: bigint | number | null): T {
  if (lastSequence == null || !appended) return item;
  const content = { ...storedItemContent(item.content) };
  for (const [member, text] of Object.entries(appended as Record<string, string>))
    content[member] = `${(content[member] as string | undefined) ?? ''}${text}`;
  return { ...item, content, lastStreamId: `s${lastSequence}` };
}

/**
 * Stored items as their streams left them: each in-progress row with its newer appends (one query,
 * only when some row is in progress). Read after the rows, so an item may come out newer than its
 * row — never with a gap: appends are applied from the row's own position on.
 */
export async function withStoredAppends<T extends StoredItem>(db: Db | DbPrisma.TransactionClient, rows: T[]): Promise<T[]> {
  const open = rows.filter((row) => row.state === 'in_progress');
  if (!open.length) return rows;
  const found = await db.$queryRaw<{ runId: string; ordinal: number; appended: unknown; lastSequence: bigint | null }[]>`
    SELECT i.run_id AS "runId", i.ordinal, ap.appended, ap.last_sequence AS "lastSequence"
    FROM unnest(${open.map((r) => r.runId)}::text[], ${open.map((r) => r.ordinal)}::int[], ${open.map((r) => r.lastStreamId ?? '')}::text[])
      AS i(run_id, ordinal, last_stream_id)
    ${appendedLateral(Prisma.sql`true`)}`;
  const byItem = new Map(found.map((f) => [`${f.runId}:${f.ordinal}`, f]));
  return rows.map((row) => {
    const hit = row.state === 'in_progress' ? byItem.get(`${row.runId}:${row.ordinal}`) : undefined;
    return hit ? withAppended(row, hit.appended, hit.lastSequence) : row;
  });
}
