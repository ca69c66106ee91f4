// The audit trail: one row per effective change, written in the change's own transaction.
import { Prisma } from '../../generated/prisma/client.js';
import type { Page } from '../../lib/cursor.js';
import { canonicallyEqual } from '../../lib/canonical-json.js';
import { invalidArgument } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { announceIfConfiguration, isConfigurationKind } from '../../services/config-cache.js';
import { SYSTEM_PRINCIPAL, type Actor, type Deps } from '../../services/deps.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { auditWebhookEvent, enqueueWebhookEvent } from '../webhooks/webhook-events.js';
import { createdWhere, listQuery, newestFirst } from '../../services/list-query.js';

type Tx = Prisma.TransactionClient;

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

export const REDACTED = '[redacted]';

/**
 * Compares a patch with the current row and returns the fields that would change
 * (canonical JSON equality, so key order in objects never counts as a change), or null.
 */
export function diffFields<T extends object>(
  current: T,
  patch: { readonly [K in keyof T]?: unknown } | Record<string, unknown>,
  secretFields: string[] = [],
): FieldChanges | null {
  const changes: FieldChanges = {};
  for (const [field, next] of Object.entries(patch)) {
    if (next === undefined) continue;
    const before: unknown = Reflect.get(current, field);
    const same = before instanceof Date && next instanceof Date ? before.getTime() === next.getTime() : canonicallyEqual(before, next);
    if (!same) {
      changes[field] = secretFields.includes(field) ? { from: REDACTED, to: REDACTED } : { from: before ?? null, to: next };
    }
  }
  return Object.keys(changes).length ? changes : null;
}

export interface AuditInput {
  /** Defaults to the caller's workspace. */
  workspaceId?: string;
  /** Defaults to the caller. */
  principalId?: string;
  action: string;
  resourceKind: string;
  resourceId: string;
  version?: number | null;
  changes?: FieldChanges | Record<string, unknown>;
}

/** A complete audit row for statements that build it themselves (auditValues). */
export interface AuditRow extends AuditInput {
  workspaceId: string;
  principalId: string;
  requestId: string | null;
}

/**
 * Writes the audit row of a change in the call's transaction. Who and in which request come from
 * the call, so no change can forget the request id.
 */
export async function recordAudit(call: Pick<CallContext<Actor | null>, 'db' | 'actor' | 'requestId'>, input: AuditInput): Promise<void> {
  const workspaceId = input.workspaceId ?? call.actor?.workspaceId;
  const principalId = input.principalId ?? call.actor?.principalId;
  if (!workspaceId || !principalId) throw new Error(`audit row of ${input.resourceKind} without a workspace or principal`);
  await announceIfConfiguration(call.db as Tx, input.resourceKind);
  await call.db.auditEvent.create({
    data: {
      id: newId('auditEvent'),
      workspaceId,
      principalId,
      action: input.action,
      resourceKind: input.resourceKind,
      resourceId: input.resourceId,
      version: input.version ?? null,
      changes: (input.changes ?? {}) as Prisma.InputJsonValue,
      requestId: call.requestId,
    },
  });
  // The change's webhook event, derived from its audit row and written in the same transaction.
  const event = auditWebhookEvent({ ...input, principalId, requestId: call.requestId });
  if (event) await enqueueWebhookEvent(call.db, workspaceId, event.kind, event.data);
}

/** An audit row of a change the service made itself (no caller, no request): by the system principal. */
export function recordServiceAudit(tx: Tx, input: Omit<AuditInput, 'principalId'> & { workspaceId: string }): Promise<void> {
  return recordAudit({ db: tx, actor: null, requestId: null }, { ...input, principalId: SYSTEM_PRINCIPAL });
}

/** The audit row of a resource just created: action `create`, version 1, the fields it was made with. */
export function recordCreation(
  call: Pick<CallContext<Actor | null>, 'db' | 'actor' | 'requestId'>,
  resourceKind: string,
  resourceId: string,
  changes: AuditInput['changes'],
): Promise<void> {
  return recordAudit(call, { action: 'create', resourceKind, resourceId, version: 1, changes });
}

/**
 * The row recordAudit writes, as a VALUES tuple for statements that create several resources at
 * once (the run hot path). Configuration kinds must go through recordAudit, which also announces
 * the change to the caches.
 */
export function auditValues(input: AuditRow): Prisma.Sql {
  if (isConfigurationKind(input.resourceKind)) throw new Error(`audit rows of ${input.resourceKind} go through recordAudit`);
  return Prisma.sql`(${newId('auditEvent')}, ${input.workspaceId}, ${input.principalId}, ${input.action}, ${input.resourceKind}, ${input.resourceId}, ${input.version ?? null}::int,
    ${JSON.stringify(input.changes ?? {})}::jsonb, ${input.requestId ?? null}, now())`;
}

/** The columns of auditValues, in order. */
export const AUDIT_COLUMNS = Prisma.raw(
  '(id, workspace_id, principal_id, action, resource_kind, resource_id, version, changes, request_id, created_at)',
);

export interface AuditListArgs {
  resourceId?: string | null;
  resourceKind?: string | null;
  principalId?: string | null;
  action?: string | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  limit?: number | null;
  cursor?: string | null;
}

const AUDIT_LIST = 'audit-events';

/** Newest first. Reading the audit trail needs `admin`. */
export async function listAuditEvents(
  call: CallContext,
  args: AuditListArgs,
): Promise<Page<Awaited<ReturnType<Deps['db']['auditEvent']['findFirstOrThrow']>>>> {
  requirePermission(call.actor, 'admin');
  // Audit events carry no labels: only the page arguments go to the shared parts.
  const query = listQuery(newestFirst(AUDIT_LIST), call, { limit: args.limit, cursor: args.cursor });
  if (args.createdAfter && args.createdBefore && args.createdAfter >= args.createdBefore) {
    throw invalidArgument('created_after must be earlier than created_before', 'created_after');
  }
  const rows = await call.db.auditEvent.findMany(
    query.findArgs({
      ...(args.resourceId ? { resourceId: args.resourceId } : {}),
      ...(args.resourceKind ? { resourceKind: args.resourceKind } : {}),
      ...(args.principalId ? { principalId: args.principalId } : {}),
      ...(args.action ? { action: args.action } : {}),
      ...createdWhere(args.createdAfter, args.createdBefore, 'auditEvent'),
    }),
  );
  return query.page(rows);
}
