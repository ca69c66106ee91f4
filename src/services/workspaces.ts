// The caller's workspace: the first versioned resource, exercising every convention
// (ETag/If-Match, no-op detection, version bump + audit in one transaction).
import type { Prisma } from '../db.js';
import { checkIfMatch } from '../lib/etag.js';
import { AppError, invalidArgument, notFound } from '../lib/errors.js';
import { validateLabels } from '../lib/labels.js';
import { diffFields, recordAudit } from './audit.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';

export async function getWorkspace(deps: Deps, actor: Actor) {
  requirePermission(actor, 'read');
  const row = await deps.db.workspace.findUnique({ where: { id: actor.workspaceId } });
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
    if (patch.name === null || patch.name.trim() === '' || patch.name.length > 200) throw invalidArgument('name must be 1 to 200 characters', 'name');
    out.name = patch.name;
  }
  if (patch.description !== undefined) {
    if (patch.description === null || patch.description.length > 4000) throw invalidArgument('description must be a string of at most 4000 characters', 'description');
    out.description = patch.description;
  }
  if (patch.labels !== undefined) out.labels = validateLabels(patch.labels);
  return out;
}

/** Changing the workspace itself is an administrative act: it needs `admin`. */
export async function updateWorkspace(deps: Deps, actor: Actor, ifMatch: string | null | undefined, patch: WorkspacePatch, requestId?: string) {
  requirePermission(actor, 'admin');
  const data = validatePatch(patch);
  return deps.db.$transaction(async (tx) => {
    const row = await tx.workspace.findUnique({ where: { id: actor.workspaceId } });
    if (!row) throw notFound('workspace', actor.workspaceId);
    checkIfMatch(ifMatch, row.id, row.version);
    const changes = diffFields(row as unknown as Record<string, unknown>, data);
    if (!changes) return row;
    const updated = await tx.workspace
      .update({
        // The version in the filter makes this a compare-and-set: of two writers holding the same
        // ETag, the second finds no row once the first commits.
        where: { id: row.id, version: row.version },
        data: { ...(data as Prisma.WorkspaceUpdateInput), version: row.version + 1, updatedById: actor.principalId, updatedAt: new Date() },
      })
      .catch((error: { code?: string }) => {
        if (error.code === 'P2025') throw new AppError('precondition_failed', 'the workspace was changed concurrently; read it again');
        throw error;
      });
    await recordAudit(tx, {
      workspaceId: row.id, principalId: actor.principalId, action: 'update', resourceKind: 'workspace',
      resourceId: row.id, version: updated.version, changes, requestId,
    });
    return updated;
  });
}
