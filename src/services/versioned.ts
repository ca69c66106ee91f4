// The one implementation of "change a versioned row": If-Match check, no-op detection (canonical
// comparison), compare-and-set version bump, one audit row — all inside the caller's transaction.
import { checkIfMatch } from '../lib/etag.js';
import { AppError } from '../lib/errors.js';
import { diffFields, recordAudit } from '../features/audit/audit.js';
import { requirePermission } from '../features/access/permissions.js';
import { inTransaction, type CallContext } from './call-context.js';
import type { Permission } from './deps.js';

interface VersionedRow {
  id: string;
  version: number;
}

interface VersionedDelegate<R> {
  update(args: { where: { id: string; version: number }; data: Record<string, unknown> }): Promise<R>;
}

export interface VersionedChange<R extends VersionedRow> {
  /** The caller, bound to the transaction the change runs in. */
  call: CallContext;
  delegate: VersionedDelegate<R>;
  row: R;
  ifMatch: string | null | undefined;
  ifMatchRequired?: boolean;
  resourceKind: string;
  action: string;
  data: Record<string, unknown>;
  /** Fields whose values the audit row must not show (recorded as "[redacted]"). */
  secretFields?: string[];
  /** Rows without an `updated_by_id` column (runs: their principal is fixed) set this to false. */
  recordsUpdater?: boolean;
  /** The audit row's workspace (defaults to the caller's). */
  workspaceId?: string;
  /** Facts the audit row records beside the changed fields (only when something changed). */
  auditNotes?: Record<string, unknown>;
}

export async function changeVersioned<R extends VersionedRow>(change: VersionedChange<R>): Promise<R> {
  const { row, call } = change;
  const { actor } = call;
  checkIfMatch(change.ifMatch, row.id, row.version, change.ifMatchRequired ?? true);
  const changes = diffFields(row, change.data, change.secretFields);
  if (!changes) return row;
  const updated = await change.delegate
    .update({
      // The version in the filter makes this a compare-and-set: of two writers holding the same
      // ETag, the second finds no row once the first commits.
      where: { id: row.id, version: row.version },
      data: {
        ...change.data,
        version: row.version + 1,
        ...(change.recordsUpdater === false ? {} : { updatedById: actor.principalId }),
        updatedAt: new Date(),
      },
    })
    .catch((error: { code?: string }) => {
      if (error.code === 'P2025') throw new AppError('precondition_failed', 'the resource was changed concurrently; read it again');
      throw error;
    });
  await recordAudit(call, {
    workspaceId: change.workspaceId,
    action: change.action,
    resourceKind: change.resourceKind,
    resourceId: row.id,
    version: updated.version,
    changes: { ...changes, ...change.auditNotes },
  });
  return updated;
}

/** A PATCH as the update mutations call it: the caller, the row's id, its If-Match and the patch. */
export type VersionedPatch<P, R> = (call: CallContext, id: string, ifMatch: string | null | undefined, patch: P) => Promise<R>;

/** A versioned table as a PATCH reads and changes it, described once by its feature. */
export interface VersionedTable<R extends VersionedRow> {
  resourceKind: string;
  /** Reads a row by id inside the transaction (another workspace's row is not found). */
  read(bound: CallContext, id: string): Promise<R>;
  delegate(bound: CallContext): VersionedDelegate<R>;
  /** As in VersionedChange. */
  secretFields?: string[];
}

/**
 * The PATCH most versioned resources share: permission first, then one transaction that reads the
 * row, builds the change from it (`data`, which checks the patch against the row as it stands) and
 * applies it, so a check made against the row still holds at the compare-and-set. `changed` runs in
 * the same transaction after the row changed (not when the patch changed nothing).
 */
export async function updateVersioned<R extends VersionedRow>(
  call: CallContext,
  table: VersionedTable<R>,
  at: { permission: Permission; id: string; ifMatch: string | null | undefined },
  data: (bound: CallContext, row: R) => Record<string, unknown> | Promise<Record<string, unknown>>,
  changed?: (bound: CallContext, after: R) => Promise<void>,
): Promise<R> {
  requirePermission(call.actor, at.permission);
  return inTransaction(call, async (bound) => {
    const row = await table.read(bound, at.id);
    const after = await changeVersioned({
      call: bound,
      delegate: table.delegate(bound),
      row,
      ifMatch: at.ifMatch,
      resourceKind: table.resourceKind,
      action: 'update',
      data: await data(bound, row),
      secretFields: table.secretFields,
    });
    if (changed && after.version !== row.version) await changed(bound, after);
    return after;
  });
}
