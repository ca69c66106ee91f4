// The members of the items response's `continuation` that describe the page itself, from its items:
// what is still streaming (`fragments.pending`, `observer.state.parts`), whether earlier items were
// left out (`fragments.gap`) and whether every item carries its whole content (`full_content`).
// Pure: listRunItems reads the rows, these read the rows it read.

/** At most this many in-progress items are listed in `fragments.pending` (the oldest first). */
export const MAX_PENDING = 8;
/** The contract's `fragments.max_bytes`: the most bytes `pending` reports for one item. */
export const MAX_PENDING_BYTES = 67_108_864;

/** The parts of an item the page reads (a run item row, or its view). */
export interface PageItem {
  id: string;
  ordinal: number;
  state: string;
  content: unknown;
  contentRefs: unknown;
}

/** One in-progress item's streamed text so far: how many text members, which, and their bytes. */
export interface PendingFragments {
  count: number;
  parts: string[];
  size: number;
}

/** The text members of an item's content, by name (what streams: `text`, `output`, …). */
function textMembers(content: unknown): [string, string][] {
  if (!content || typeof content !== 'object' || Array.isArray(content)) return [];
  return Object.entries(content as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
}

/** The page's in-progress items (at most MAX_PENDING, oldest first), by item id. */
export function pendingFragments(items: readonly PageItem[]): Record<string, PendingFragments> {
  const pending: Record<string, PendingFragments> = {};
  for (const item of items.filter((candidate) => candidate.state === 'in_progress').slice(0, MAX_PENDING)) {
    const members = textMembers(item.content);
    const size = members.reduce((sum, [, text]) => sum + Buffer.byteLength(text), 0);
    pending[item.id] = { count: members.length, parts: members.map(([name]) => name), size: Math.min(size, MAX_PENDING_BYTES) };
  }
  return pending;
}

/** The ids of the page's items still in progress, in ordinal order (`observer.state.parts`). */
export function openParts(items: readonly PageItem[]): string[] {
  return items.filter((item) => item.state === 'in_progress').map((item) => item.id);
}

/** Whether the run has items before the page's first one that the page left out (read them with `before`). */
export function leavesOutEarlier(items: readonly PageItem[], firstOrdinal: number | null): boolean {
  return items.length > 0 && firstOrdinal !== null && items[0]!.ordinal > firstOrdinal;
}

/** Whether every item of the page carries its whole content (none moved large values to `content_refs`). */
export function carriesFullContent(items: readonly PageItem[]): boolean {
  return items.every((item) => !item.contentRefs || Object.keys(item.contentRefs as object).length === 0);
}
