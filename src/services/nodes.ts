// Loading nodes by global id (GraphQL `node` and `nodes`, and the relations between objects): one
// statement per node type for any number of ids, each row in the caller's workspace or nothing — an
// id of another workspace loads exactly as an id that does not exist, so the answer never tells the
// two apart. Rows come back as the services return them elsewhere (run items with their public
// content refs, inbox entries with their thread's ETag), in the order of the ids asked, null where
// there is none.
//
// This module is the mechanism only: each domain's service defines its own loader (`loadRuns` in
// runs.ts, …), and its GraphQL module hands it to `asNode` beside the type.
import type { CallContext } from './call-context.js';
import { requirePermission } from '../features/access/permissions.js';
import type { HeadRow, RevisionedKind, RevisionRow } from './revisioned.js';

/** Reading nodes needs `read`, like every other read; checked before any id is looked at. */
export function requireNodeReader(call: CallContext): void {
  requirePermission(call.actor, 'read');
}

/** `rows` in the order of `ids` (ids may repeat), null where no row has the id. */
export function inIdOrder<T>(ids: readonly string[], rows: readonly T[], idOf: (row: T) => string): (T | null)[] {
  const byId = new Map(rows.map((row) => [idOf(row), row]));
  return ids.map((id) => byId.get(id) ?? null);
}

/** The loader of one node type: the rows of `ids` in the caller's workspace, in any order. */
export type NodeRowsLoader<T> = (call: CallContext, ids: readonly string[]) => Promise<T[]>;

/** The Prisma condition of a loader: these ids, in the caller's workspace only. */
export const idsInWorkspace = (call: CallContext, ids: readonly string[]) => ({
  id: { in: [...ids] },
  workspaceId: call.actor.workspaceId,
});

const revisionedLoadersByKind = new WeakMap<object, { heads: NodeRowsLoader<HeadRow>; revisions: NodeRowsLoader<RevisionRow> }>();

/**
 * The heads and the revisions of a revisioned kind (agents, skills). The same functions for the same
 * kind every time: relations batch by loader, so a second pair would cost a second statement.
 */
export function revisionedLoaders<H extends HeadRow, R extends RevisionRow>(
  kind: RevisionedKind<H, R>,
): { heads: NodeRowsLoader<H>; revisions: NodeRowsLoader<R> } {
  let loaders = revisionedLoadersByKind.get(kind);
  if (!loaders) {
    loaders = {
      heads: (call, ids) => kind.headDelegate(call.db).findMany({ where: idsInWorkspace(call, ids) }) as Promise<H[]>,
      revisions: (call, ids) => kind.revisionDelegate(call.db).findMany({ where: idsInWorkspace(call, ids) }) as Promise<R[]>,
    };
    revisionedLoadersByKind.set(kind, loaders);
  }
  return loaders as unknown as { heads: NodeRowsLoader<H>; revisions: NodeRowsLoader<R> };
}
