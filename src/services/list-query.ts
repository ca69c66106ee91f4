// The query every workspace list shares, built from a declarative description of the list: which
// workspace it reads, its `label` selectors, its `q` search, its `archived` switch, its keyset cursor,
// its page sizes and its `{items, nextCursor}` page. A list adds only its own filters.
import { decodeCursor, pageSize, toPage, type Page, type PageSizeRange } from '../lib/cursor.js';
import { labelsWhere, parseLabelSelectors } from '../lib/labels.js';
import { idBoundAt, type IdKind } from '../lib/ids.js';
import type { CallContext } from './call-context.js';

/** The arguments the shared pieces read; a list's own filters travel beside them. */
export interface ListArgs {
  label?: readonly string[] | null;
  q?: string | null;
  archived?: boolean | null;
  limit?: number | null;
  cursor?: string | null;
}

/** How a list reads its rows: every part but `list` and `sort` is optional. */
export interface ListShape<K extends string> {
  /** The list's name, carried in its cursors (so another list's cursor is refused). */
  list: string;
  /** The one column the keyset orders by, unique within the list; its value is the cursor's position. */
  sort: { field: K; direction: 'asc' | 'desc'; numeric?: boolean };
  /** Columns `q` matches, case-insensitive substring of any; absent: the list takes no `q`. */
  search?: readonly string[];
  /**
   * The timestamp column `archived` reads. `open`: without `archived: true` the list shows only open
   * rows (heads, assets); `any`: without `archived` it shows both (threads).
   */
  archived?: { field: string; unset: 'open' | 'any' };
  /** Default 50, 1 to 100. */
  sizes?: PageSizeRange;
  /**
   * Rows are scoped to the caller's workspace by `workspaceId` unless a list scopes them itself
   * (e.g. by a parent already checked to be in the workspace).
   */
  workspaceScoped?: boolean;
}

/** `q` as most lists read it. */
export const NAME_AND_DESCRIPTION = ['name', 'description'] as const;

/** The usual list: newest first, by id (ids begin with their creation time). */
export function newestFirst(list: string, more: Omit<ListShape<'id'>, 'list' | 'sort'> = {}): ListShape<'id'> {
  return { list, sort: { field: 'id', direction: 'desc' }, ...more };
}

const DEFAULT_SIZES: PageSizeRange = { default: 50, max: 100 };

type Row<K extends string> = Record<K, string | number>;

/** A list's query, once its page size and cursor have been checked (in that order, before anything else). */
export interface ListQuery<K extends string> {
  size: number;
  orderBy: { [P in K]: 'asc' | 'desc' };
  take: number;
  /**
   * The list's own filters with the shared ones: workspace, `archived`, `q`, label selectors (checked
   * here, after the list's own arguments) and the keyset position. The list's filters must not use
   * `OR`, `AND` or the sort column, which the shared parts own.
   */
  where<W extends object>(filters?: W): W;
  /** What a list's `findMany` takes for the page: `where(filters)`, the sort and the `size + 1` rows. */
  findArgs<W extends object>(filters?: W): { where: W; orderBy: { [P in K]: 'asc' | 'desc' }; take: number };
  /** The page of `size + 1` rows fetched with this query. */
  page<R extends Row<K>>(rows: R[]): Page<R>;
}

/**
 * Starts a list's query: checks `limit` and `cursor` now, so their problems come first as they always
 * have, and leaves the list to check its own arguments before it calls `where`.
 */
export function listQuery<K extends string>(shape: ListShape<K>, call: CallContext, args: ListArgs): ListQuery<K> {
  const size = pageSize(args.limit, shape.sizes ?? DEFAULT_SIZES);
  const { field, direction, numeric = false } = shape.sort;
  const after = decodeCursor(shape.list, args.cursor, numeric);
  const orderBy = { [field]: direction } as { [P in K]: 'asc' | 'desc' };
  return {
    size,
    orderBy,
    take: size + 1,
    where<W extends object>(filters?: W): W {
      const q = shape.search ? args.q?.trim() : undefined;
      // The list's filters are type-checked by the caller's Prisma delegate; the shared parts are built
      // from column names, which only this module writes.
      return {
        ...(shape.workspaceScoped === false ? {} : { workspaceId: call.actor.workspaceId }),
        ...(shape.archived ? archivedWhere(shape.archived, args.archived) : {}),
        ...filters,
        ...(q ? searchWhere(shape.search!, q) : {}),
        ...andOf(filters, labelsWhere(parseLabelSelectors(args.label))),
        ...(after ? { [field]: keysetBound(direction, numeric ? Number(after[0]) : String(after[0])) } : {}),
      } as W;
    },
    findArgs(filters) {
      return { where: this.where(filters), orderBy, take: size + 1 };
    },
    page: (rows) => toPage(rows, size, shape.list, (row) => [row[field]]),
  };
}

/** The conditions of the filters' and the label selectors' `AND` lists together (neither replaces the other). */
function andOf(filters: object | undefined, labels: { AND?: object[] }): { AND?: object[] } {
  const and = [...((filters as { AND?: object[] } | undefined)?.AND ?? []), ...(labels.AND ?? [])];
  return and.length > 0 ? { AND: and } : {};
}

/** The `archived` switch over a timestamp column (see `ListShape.archived`). */
export function archivedWhere(column: { field: string; unset: 'open' | 'any' }, archived: boolean | null | undefined) {
  if (archived === true) return { [column.field]: { not: null } };
  if (archived === false || column.unset === 'open') return { [column.field]: null };
  return {};
}

/**
 * How far apart a row's id time (the clock of the process that generated the id) and its `created_at`
 * (PostgreSQL's clock at its transaction's start) may be: clock skew between the service and the
 * database plus the time between generating the id and the transaction's start. docs/operations.md
 * asks for clocks within this of each other.
 */
export const ID_CLOCK_SLACK_MS = 15 * 60_000;

/**
 * `created_after` / `created_before`: rows created strictly between them (either bound may be absent).
 * With `idKind`, for lists in id order: the same window as an id range widened by ID_CLOCK_SLACK_MS,
 * besides the exact `created_at` bounds. Ids are time-sortable, so the list's walk down its
 * (workspace_id, …, id) index starts and ends near the window instead of at the newest row (a window
 * a month back read every newer row first: the whole table at a million runs).
 */
export function createdWhere(after: Date | null | undefined, before: Date | null | undefined, idKind?: IdKind) {
  if (!after && !before) return {};
  const created = { createdAt: { ...(after ? { gt: after } : {}), ...(before ? { lt: before } : {}) } };
  if (!idKind) return created;
  const id = {
    ...(after ? { gt: idBoundAt(idKind, after.getTime() - ID_CLOCK_SLACK_MS, 'floor') } : {}),
    ...(before ? { lt: idBoundAt(idKind, before.getTime() + ID_CLOCK_SLACK_MS, 'ceiling') } : {}),
  };
  // Inside AND: the list's own keyset bound (a cursor) is a condition on `id` too, and both hold.
  return { ...created, AND: [{ id }] };
}

/** `q`: a case-insensitive substring of any of the columns. */
export function searchWhere(fields: readonly string[], q: string) {
  return { OR: fields.map((name) => ({ [name]: { contains: q, mode: 'insensitive' as const } })) };
}

/** Rows after the keyset position, in the list's direction. */
export function keysetBound(direction: 'asc' | 'desc', position: string | number) {
  return direction === 'desc' ? { lt: position } : { gt: position };
}
