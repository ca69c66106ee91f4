// The pure parts of the list-query helper: the `where`, order and page it builds from a list's shape.
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../src/lib/cursor.js';
import { isAppError } from '../../src/lib/errors.js';
import { encodeTime } from 'ulid';
import { idBoundAt, newId } from '../../src/lib/ids.js';
import {
  archivedWhere,
  createdWhere,
  ID_CLOCK_SLACK_MS,
  keysetBound,
  listQuery,
  NAME_AND_DESCRIPTION,
  newestFirst,
  searchWhere,
} from '../../src/services/list-query.js';
import type { CallContext } from '../../src/services/call-context.js';

const call = { actor: { workspaceId: 'ws_1' } } as unknown as CallContext;

function problemOf(thunk: () => unknown) {
  try {
    thunk();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message, field: error.details?.field };
    throw error;
  }
  throw new Error('no problem');
}

describe('listQuery', () => {
  it('scopes to the workspace, newest first, one row more than the page', () => {
    const query = listQuery(newestFirst('things'), call, {});
    expect(query.where()).toEqual({ workspaceId: 'ws_1' });
    expect(query.orderBy).toEqual({ id: 'desc' });
    expect([query.size, query.take]).toEqual([50, 51]);
  });

  it('composes the list filters with q, labels, archived and the keyset position', () => {
    const cursor = encodeCursor('things', ['th_5']);
    const shape = newestFirst('things', { search: NAME_AND_DESCRIPTION, archived: { field: 'archivedAt', unset: 'open' } });
    const query = listQuery(shape, call, { q: '  Foo ', label: ['team:a', 'env:prod'], limit: 10, cursor });
    expect(query.where({ enabled: true })).toEqual({
      workspaceId: 'ws_1',
      archivedAt: null,
      enabled: true,
      OR: [{ name: { contains: 'Foo', mode: 'insensitive' } }, { description: { contains: 'Foo', mode: 'insensitive' } }],
      AND: [{ labels: { path: ['team'], equals: 'a' } }, { labels: { path: ['env'], equals: 'prod' } }],
      id: { lt: 'th_5' },
    });
    expect(query.take).toBe(11);
  });

  it('ignores q on a list without search, and a blank q everywhere', () => {
    expect(listQuery(newestFirst('things'), call, { q: 'x' }).where()).toEqual({ workspaceId: 'ws_1' });
    expect(listQuery(newestFirst('things', { search: ['name'] }), call, { q: '  ' }).where()).toEqual({ workspaceId: 'ws_1' });
  });

  it('reads ascending and numeric keysets, and can leave scoping to the list', () => {
    const cursor = encodeCursor('positions', [7]);
    const query = listQuery(
      { list: 'positions', sort: { field: 'position', direction: 'asc', numeric: true }, workspaceScoped: false },
      call,
      { cursor },
    );
    expect(query.where({ threadId: 't' })).toEqual({ threadId: 't', position: { gt: 7 } });
    expect(query.orderBy).toEqual({ position: 'asc' });
  });

  it('pages rows by the sort column and issues cursors of its own list', () => {
    const query = listQuery(newestFirst('things'), call, { limit: 2 });
    const page = query.page([{ id: 'c' }, { id: 'b' }, { id: 'a' }]);
    expect(page.items).toEqual([{ id: 'c' }, { id: 'b' }]);
    expect(decodeCursor('things', page.nextCursor)).toEqual(['b']);
    expect(query.page([{ id: 'c' }]).nextCursor).toBeNull();
  });

  it('checks limit, then cursor, then (when the list asks for its where) labels', () => {
    const foreign = encodeCursor('other', ['x']);
    expect(problemOf(() => listQuery(newestFirst('things'), call, { limit: 0, cursor: foreign }))).toEqual({
      code: 'invalid_argument',
      message: 'limit must be an integer from 1 to 100',
      field: 'limit',
    });
    expect(problemOf(() => listQuery(newestFirst('things'), call, { cursor: foreign, label: ['bad'] })).field).toBe('cursor');
    const query = listQuery(newestFirst('things'), call, { label: ['bad'] });
    expect(problemOf(() => query.where()).field).toBe('label');
  });

  it('takes its page sizes from the shape', () => {
    expect(listQuery(newestFirst('things', { sizes: { default: 20, max: 100 } }), call, {}).size).toBe(20);
  });
});

describe('the shared where parts', () => {
  it('archived: open by default, or either', () => {
    const open = { field: 'archivedAt', unset: 'open' } as const;
    const any = { field: 'archivedAt', unset: 'any' } as const;
    expect(archivedWhere(open, undefined)).toEqual({ archivedAt: null });
    expect(archivedWhere(open, false)).toEqual({ archivedAt: null });
    expect(archivedWhere(open, true)).toEqual({ archivedAt: { not: null } });
    expect(archivedWhere(any, null)).toEqual({});
    expect(archivedWhere(any, false)).toEqual({ archivedAt: null });
    expect(archivedWhere(any, true)).toEqual({ archivedAt: { not: null } });
  });

  it('search and keyset bounds', () => {
    expect(searchWhere(['url'], 'x')).toEqual({ OR: [{ url: { contains: 'x', mode: 'insensitive' } }] });
    expect(keysetBound('desc', 'b')).toEqual({ lt: 'b' });
    expect(keysetBound('asc', 3)).toEqual({ gt: 3 });
  });
});

describe('createdWhere with an id kind', () => {
  it('bounds the id keyset by the window widened by the clock slack, beside the exact created_at bounds', () => {
    const after = new Date('2026-11-01T00:00:00.000Z');
    const before = new Date('2026-11-02T00:00:00.000Z');
    const where = createdWhere(after, before, 'run') as { createdAt: unknown; AND: { id: { gt: string; lt: string } }[] };
    expect(where.createdAt).toEqual({ gt: after, lt: before });
    const { gt, lt } = where.AND[0]!.id;
    expect(gt).toBe(idBoundAt('run', after.getTime() - ID_CLOCK_SLACK_MS, 'floor'));
    expect(lt).toBe(idBoundAt('run', before.getTime() + ID_CLOCK_SLACK_MS, 'ceiling'));
    // Every id made inside the window (whatever its random part) lies inside the bounds.
    expect(newId('run') > lt).toBe(true); // made now, weeks after the window
    expect(`run_${encodeTime(after.getTime() + 1, 10)}${'0'.repeat(16)}` > gt).toBe(true);
    expect(`run_${encodeTime(before.getTime() - 1, 10)}${'Z'.repeat(16)}` < lt).toBe(true);
  });

  it('keeps the id bounds beside the cursor and the label selectors (all in force together)', () => {
    const cursor = encodeCursor('runs', ['run_01M8EX0PGEBJE4VDZ14MYGV2MF']);
    const query = listQuery(newestFirst('runs'), call, { cursor, label: ['team:a'] });
    const where = query.where(createdWhere(new Date('2026-11-01T00:00:00Z'), null, 'run')) as { id: unknown; AND: unknown[] };
    expect(where.id).toEqual({ lt: 'run_01M8EX0PGEBJE4VDZ14MYGV2MF' });
    expect(where.AND).toHaveLength(2);
    expect(where.AND[0]).toEqual({ id: { gt: idBoundAt('run', Date.parse('2026-11-01T00:00:00Z') - ID_CLOCK_SLACK_MS, 'floor') } });
    expect(where.AND[1]).toEqual({ labels: { path: ['team'], equals: 'a' } });
  });

  it('without an id kind, or without bounds, is what it was', () => {
    expect(createdWhere(null, null, 'run')).toEqual({});
    expect(createdWhere(new Date(0), null)).toEqual({ createdAt: { gt: new Date(0) } });
  });
});
