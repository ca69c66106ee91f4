// The one place findings are announced after they change: an analysis that created or updated
// findings, and a reviewer's PATCH, call `findingsChanged` once their transaction has committed.
// Webhook subscriptions deliver finding events from here (`finding.created`, `finding.updated`):
// wire the delivery into this function; nothing else needs to know about it.
import type { Finding } from '../generated/prisma/client.js';
import type { CallContext } from './call-context.js';

export interface FindingChanges {
  created: Finding[];
  updated: Finding[];
}

/** Called after commit with what changed; must not throw (the change itself has succeeded). */
export function findingsChanged(call: CallContext, changes: FindingChanges): void {
  if (!changes.created.length && !changes.updated.length) return;
  call.logger.debug({ created: changes.created.map((f) => f.id), updated: changes.updated.map((f) => f.id) }, 'findings changed');
}
