// Reading the whole text behind a content ref (`content_refs.<member>` of a run item: a large tool
// result, a long answer), one page at a time. Clients read it through GraphQL (`runItemContent`);
// a run's model reads the refs of its own thread through the `read_tool_output` tool.
import Type from 'typebox';
import { invalidArgument, notFound } from '../../lib/errors.js';
import { readDocument } from '../../lib/json-documents.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { readAssetForRun } from '../assets/assets.js';

/** The largest page: 256 KiB of characters. */
export const MAX_CONTENT_PAGE = 262_144;

export interface ContentPage {
  refId: string;
  itemId: string;
  member: string;
  mediaType: string;
  sizeBytes: number;
  /** Characters (UTF-16 code units) of the whole stored text. */
  totalChars: number;
  offset: number;
  text: string;
  /** Where the next page starts; null at the end. */
  nextOffset: number | null;
}

/**
 * A stored content ref, as far as this reader needs it: its media type and size, and the whole text
 * kept in the row (`full`) or the asset whose content is the whole text (`asset_id`, large tool
 * results). The item writer (src/engine/items.ts) writes more members (id, preview), not read here.
 */
const StoredRef = Type.Object({
  media_type: Type.Optional(Type.String()),
  size_bytes: Type.Optional(Type.Number()),
  full: Type.Optional(Type.String()),
  asset_id: Type.Optional(Type.String()),
});
const StoredRefs = Type.Record(Type.String(), StoredRef);
// Not on a hot path: one item per page read (the run-items feed shows only the public refs).
const storedRefs = (item: { contentRefs: unknown }) => readDocument(StoredRefs, item.contentRefs, 'run_items.content_refs');

/** `itm_…:member` → its parts (null when it is not a ref id). */
export function parseContentRefId(refId: string): { itemId: string; member: string } | null {
  const match = /^(itm_[0-9A-Za-z]{1,64}):([a-z_]{1,64})$/.exec(refId);
  return match ? { itemId: match[1]!, member: match[2]! } : null;
}

/** One page of a stored text. */
export function pageOf(text: string, offset: number, limit: number): { text: string; nextOffset: number | null } {
  const end = Math.min(text.length, offset + limit);
  return { text: text.slice(offset, end), nextOffset: end < text.length ? end : null };
}

function checkRange(offset: number, limit: number) {
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('offset must be a non-negative integer', 'offset');
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONTENT_PAGE)
    throw invalidArgument(`limit must be an integer from 1 to ${MAX_CONTENT_PAGE}`, 'limit');
}

/**
 * A page of the text behind a content ref of an item in the caller's workspace (another workspace's
 * item is not found). `threadId` narrows it to the items of one thread's runs (what a run may read).
 */
export async function readItemContent(
  call: CallContext,
  refId: string,
  range: { offset?: number | null; limit?: number | null },
  threadId?: string,
): Promise<ContentPage> {
  requirePermission(call.actor, 'read');
  const offset = range.offset ?? 0;
  const limit = range.limit ?? 65_536;
  checkRange(offset, limit);
  const parsed = parseContentRefId(refId);
  if (!parsed) throw invalidArgument('ref must be a content ref id (`<item id>:<member>`)', 'ref');
  const item = await call.db.runItem.findFirst({
    where: { id: parsed.itemId, workspaceId: call.actor.workspaceId },
    select: { runId: true, contentRefs: true },
  });
  const ref = item ? storedRefs(item)[parsed.member] : undefined;
  if (!item || !ref || (ref.full === undefined && ref.asset_id === undefined)) throw notFound('content', refId);
  if (threadId && !(await call.db.run.findFirst({ where: { id: item.runId, threadId }, select: { id: true } })))
    throw notFound('content', refId);
  const full = ref.full ?? (await readAssetForRun(call, ref.asset_id!)).toString('utf8');
  const page = pageOf(full, offset, limit);
  return {
    refId,
    itemId: parsed.itemId,
    member: parsed.member,
    mediaType: ref.media_type ?? 'text/plain; charset=utf-8',
    sizeBytes: ref.size_bytes ?? Buffer.byteLength(full),
    totalChars: full.length,
    offset,
    ...page,
  };
}
