// The caller's workspace: the first versioned resource, exercising every convention
// (ETag/If-Match, no-op detection, version bump + audit in one transaction).
import { invalidArgument, notFound } from '../../lib/errors.js';
import { validateDescription, validateName } from '../../lib/text-fields.js';
import { validateLabels } from '../../lib/labels.js';
import { changeVersioned } from '../../services/versioned.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from './permissions.js';

export async function getWorkspace(call: CallContext) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const row = await call.db.workspace.findUnique({ where: { id: actor.workspaceId } });
  if (!row) throw notFound('workspace', actor.workspaceId);
  return row;
}

export interface WorkspacePatch {
  name?: string | null;
  description?: string | null;
  labels?: unknown;
}

function validatePatch(patch: WorkspacePatch): { name?: string; description?: string; labels?: Record<string, string> } {
  const out: { name?: string; description?: string; labels?: Record<string, string> } = {};
  if (patch.name !== undefined) {
    out.name = validateName(patch.name);
  }
  if (patch.description !== undefined) {
    if (patch.description === null) throw invalidArgument('description must be a string (empty to clear it)', 'description');
    out.description = validateDescription(patch.description);
  }
  if (patch.labels !== undefined) out.labels = validateLabels(patch.labels);
  return out;
}

/** Changing the workspace itself is an administrative act: it needs `admin`. */
export async function updateWorkspace(call: CallContext, ifMatch: string | null | undefined, patch: WorkspacePatch) {
  const { actor } = call;
  requirePermission(actor, 'admin');
  const data = validatePatch(patch);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await tx.workspace.findUnique({ where: { id: actor.workspaceId } });
    if (!row) throw notFound('workspace', actor.workspaceId);
    return changeVersioned({
      call: bound,
      delegate: tx.workspace,
      row,
      ifMatch,
      resourceKind: 'workspace',
      action: 'update',
      data,
    });
  });
}

/**
 * The organization of the caller's workspace. A run's actor carries only its workspace; what a run's
 * tool creates (an agent) records the organization too.
 */
export async function workspaceOrganizationId(call: CallContext): Promise<string> {
  const row = await call.db.workspace.findUniqueOrThrow({ where: { id: call.actor.workspaceId }, select: { organizationId: true } });
  return row.organizationId;
}
