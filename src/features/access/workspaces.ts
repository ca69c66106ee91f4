// The caller's workspace: the first versioned resource, exercising every convention
// (ETag/If-Match, no-op detection, version bump + audit in one transaction).
import { invalidArgument, notFound } from '../../lib/errors.js';
import { validateDescription, validateName } from '../../lib/text-fields.js';
import { validateLabels } from '../../lib/labels.js';
import { changeVersioned } from '../../services/versioned.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from './permissions.js';
import { announceQueuedRuns } from '../runs/run-lifecycle.js';

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
  maxConcurrentRuns?: number | null;
}

/** `max_concurrent_runs`: a whole number of runs; null (the default) is no limit. */
export const MAX_CONCURRENT_RUNS_BOUNDS = { min: 1, max: 10_000 } as const;

type ValidPatch = {
  name?: string;
  description?: string;
  labels?: Record<string, string>;
  maxConcurrentRuns?: number | null;
};

function validatePatch(patch: WorkspacePatch): ValidPatch {
  const out: ValidPatch = {};
  if (patch.name !== undefined) {
    out.name = validateName(patch.name);
  }
  if (patch.description !== undefined) {
    if (patch.description === null) throw invalidArgument('description must be a string (empty to clear it)', 'description');
    out.description = validateDescription(patch.description);
  }
  if (patch.labels !== undefined) out.labels = validateLabels(patch.labels);
  if (patch.maxConcurrentRuns !== undefined) {
    const limit = patch.maxConcurrentRuns;
    const { min, max } = MAX_CONCURRENT_RUNS_BOUNDS;
    if (limit !== null && (!Number.isInteger(limit) || limit < min || limit > max))
      throw invalidArgument(
        `max_concurrent_runs must be a whole number from ${min} to ${max}, or null for no limit`,
        'max_concurrent_runs',
      );
    out.maxConcurrentRuns = limit;
  }
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
    const changed = await changeVersioned({
      call: bound,
      delegate: tx.workspace,
      row,
      ifMatch,
      resourceKind: 'workspace',
      action: 'update',
      data,
    });
    // Runs waiting for a slot may start under the new limit: the workers hear of them at the commit.
    if (data.maxConcurrentRuns !== undefined && data.maxConcurrentRuns !== row.maxConcurrentRuns)
      await announceQueuedRuns(tx, actor.workspaceId, data.maxConcurrentRuns);
    return changed;
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
