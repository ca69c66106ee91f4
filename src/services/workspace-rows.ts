// One rule for reading a resource by its id: a row of another workspace is not found, exactly as a
// missing one, so an id never tells a caller that something exists in a workspace it cannot see.
import { notFound } from '../lib/errors.js';
import type { CallContext } from './call-context.js';

/** The row if it belongs to the caller's workspace; else `not_found` for the kind and id asked for. */
export function inCallersWorkspace<R extends { workspaceId: string }>(call: CallContext, kind: string, id: string, row: R | null): R {
  if (!row || row.workspaceId !== call.actor.workspaceId) throw notFound(kind, id);
  return row;
}
