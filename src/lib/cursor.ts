// Opaque keyset cursors: base64url of a small JSON document naming the list it belongs to and the
// last position returned. Never an offset, so pages stay stable while rows are added.
import { AppError, invalidArgument, isAppError } from './errors.js';
import { textProblem } from './input-rules.js';

/** Longest text in a position (ids are ≤ 256; an external store's page token may be longer). */
const MAX_CURSOR_TEXT = 2048;

interface CursorBody {
  l: string; // which list (so a cursor of one list is refused by another)
  k: (string | number | null)[]; // keyset position
}

export function encodeCursor(list: string, key: (string | number | null)[]): string {
  return Buffer.from(JSON.stringify({ l: list, k: key } satisfies CursorBody)).toString('base64url');
}

/**
 * The keyset position a cursor of `list` carries. Anything else — garbage, another list's cursor, a
 * position that could not have come from us (wrong types, NUL, huge numbers) — is invalid_argument,
 * because the position reaches PostgreSQL. `numeric`: the list's position is an integer (e.g. a
 * revision number).
 */
export function decodeCursor(list: string, cursor: string | null | undefined, numeric = false): (string | number | null)[] | null {
  if (cursor === undefined || cursor === null || cursor === '') return null;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('alphabet');
    const body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
    if (!body || body.l !== list || !Array.isArray(body.k)) throw new Error('list');
    // The position reaches PostgreSQL: only short, valid text, finite numbers and nulls (the input rules).
    if (body.k.length === 0 || body.k.length > 8) throw new Error('shape');
    if (numeric && !(typeof body.k[0] === 'number' && Number.isSafeInteger(body.k[0]) && Math.abs(body.k[0]) <= 2 ** 31 - 1))
      throw new Error('position');
    for (const part of body.k) {
      if (part === null || (typeof part === 'number' && Number.isSafeInteger(part))) continue;
      if (typeof part !== 'string' || part.length > MAX_CURSOR_TEXT || textProblem(part)) throw new Error('position');
    }
    return body.k;
  } catch {
    throw invalidArgument('cursor is not a cursor returned by this list', 'cursor');
  }
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /**
   * The cursor of the item at `index`: the page asked for after it starts with the item that follows
   * it (Relay's edge cursor). The last item's cursor is `nextCursor` when there is a next page.
   */
  cursorAt(index: number): string;
}

/** A list's page sizes: the default and the largest (and smallest) a caller may ask for. */
export interface PageSizeRange {
  default: number;
  max: number;
  min?: number;
}

/**
 * Checks a page size against a list's documented range.
 * `limit` outside [min, max] is refused rather than clamped, so clients learn the contract.
 */
export function pageSize(limit: number | null | undefined, defaults: PageSizeRange): number {
  if (limit === undefined || limit === null) return defaults.default;
  const min = defaults.min ?? 1;
  if (!Number.isInteger(limit) || limit < min || limit > defaults.max) {
    throw invalidArgument(`limit must be an integer from ${min} to ${defaults.max}`, 'limit');
  }
  return limit;
}

/** Given `size + 1` rows fetched in keyset order, returns the page and the next cursor. */
export function toPage<T>(rows: T[], size: number, list: string, keyOf: (row: T) => (string | number | null)[]): Page<T> {
  const items = rows.slice(0, size);
  const cursorAt = (index: number) => encodeCursor(list, keyOf(items[index]!));
  return { items, nextCursor: rows.length > size && items.length > 0 ? cursorAt(items.length - 1) : null, cursorAt };
}

/** A page of items already in another page's order (e.g. mapped to views), with that page's cursors. */
export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { items: page.items.map(map), nextCursor: page.nextCursor, cursorAt: page.cursorAt };
}

/**
 * The page-size and cursor problems above name the arguments `limit` and `cursor`, as REST calls
 * them; GraphQL connections call them `first` and `after`. `renamePageProblem` renames the argument
 * a problem names (`names`: from → to) in `details.field` and at the start of the message, keeping
 * the code; any other problem is returned as it is. (Both ways: the GraphQL surface renames
 * `limit` → `first`, the REST shim `first` → `limit` for the documents it runs.)
 */
export function renamePageProblem<P extends { code: string; message: string; details?: Record<string, unknown> }>(
  problem: P,
  names: Readonly<Record<string, string>>,
): P {
  const field = problem.details?.field;
  if (problem.code !== 'invalid_argument' || typeof field !== 'string' || !Object.hasOwn(names, field)) return problem;
  if (!problem.message.startsWith(`${field} `)) return problem;
  const name = names[field]!;
  return { ...problem, message: name + problem.message.slice(field.length), details: { ...problem.details, field: name } };
}

/** `renamePageProblem` for a thrown error: an AppError it renames is thrown anew, anything else as it was. */
export function renamePageError(error: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!isAppError(error)) return error;
  const renamed = renamePageProblem({ code: error.code, message: error.message, details: error.details }, names);
  return renamed.details === error.details ? error : new AppError(error.code, renamed.message, renamed.details);
}

/** How GraphQL connections name the page arguments REST calls `limit` and `cursor`. */
export const CONNECTION_ARGUMENTS = { limit: 'first', cursor: 'after' } as const;
/** And back, for the REST shim. */
export const REST_PAGE_ARGUMENTS = { first: 'limit', after: 'cursor' } as const;
