// The revisioned lifecycle shared by agents and skills (spec: Lifecycles, "Revisioned"): a head
// plus immutable numbered revisions. Head fields change in place (version + audit); a content
// change publishes a revision; publishing content identical to the default revision's returns that
// revision and leaves the head alone; numbers are gapless because publishers serialise on the
// head's row lock.
import type { Prisma } from '../db.js';
import { digestOf } from '../lib/canonical-json.js';
import { decodeCursor, pageSize, toPage, type Page } from '../lib/cursor.js';
import { checkIfMatch } from '../lib/etag.js';
import { AppError, invalidArgument, notFound } from '../lib/errors.js';
import { newId, type IdKind } from '../lib/ids.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../lib/labels.js';
import { recordAudit } from './audit.js';
import { changeVersioned } from './versioned.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';

type Tx = Prisma.TransactionClient;

export interface HeadRow {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  labels: unknown;
  defaultRevisionId: string | null;
  lastRevisionNumber: number;
  archivedAt: Date | null;
  version: number;
  createdById: string;
  updatedById: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface RevisionRow {
  id: string;
  workspaceId: string;
  number: number;
  digest: string;
  note: string;
  createdById: string;
  createdAt: Date;
}

/** What differs between agents and skills. */
export interface RevisionedKind<H extends HeadRow, R extends RevisionRow> {
  kind: 'agent' | 'skill';
  table: 'agents' | 'skills';
  revisionIdKind: IdKind;
  headDelegate(tx: Tx | Deps['db']): any;
  revisionDelegate(tx: Tx | Deps['db']): any;
  /** The revision's foreign key to its head, e.g. `agentId`. */
  headKey: 'agentId' | 'skillId';
  /** The revision's document field, e.g. `config`. */
  contentField: 'config' | 'content';
  /** Extra writes after a revision row is inserted (e.g. skill pins of an agent revision). */
  afterInsert?(tx: Tx, revision: R, content: Record<string, unknown>): Promise<void>;
  _types?: [H, R];
}

// Name, description and note limits are the shared ones (src/lib/text-fields.ts).
export { validateDescription, validateName, validateNote } from '../lib/text-fields.js';
import { validateDescription, validateName, validateNote } from '../lib/text-fields.js';

export async function getHead<H extends HeadRow>(spec: RevisionedKind<H, any>, db: Tx | Deps['db'], actor: Actor, id: string): Promise<H> {
  const row = (await spec.headDelegate(db).findUnique({ where: { id } })) as H | null;
  if (!row || row.workspaceId !== actor.workspaceId) throw notFound(spec.kind, id);
  return row;
}

/** Locks the head row for the rest of the transaction (publishers and default switches serialise here). */
async function lockHead<H extends HeadRow>(spec: RevisionedKind<H, any>, tx: Tx, actor: Actor, id: string): Promise<H> {
  await tx.$queryRawUnsafe(`SELECT id FROM ${spec.table} WHERE id = $1 AND workspace_id = $2 FOR UPDATE`, id, actor.workspaceId);
  return getHead(spec, tx, actor, id);
}

export async function getRevision<R extends RevisionRow>(
  spec: RevisionedKind<any, R>,
  deps: Deps,
  actor: Actor,
  headId: string,
  revisionId: string,
): Promise<R> {
  requirePermission(actor, 'read');
  await getHead(spec, deps.db, actor, headId);
  const revision = (await spec.revisionDelegate(deps.db).findUnique({ where: { id: revisionId } })) as (R & Record<string, unknown>) | null;
  if (!revision || revision.workspaceId !== actor.workspaceId || revision[spec.headKey] !== headId)
    throw notFound(`${spec.kind} revision`, revisionId);
  return revision;
}

export async function listRevisions<R extends RevisionRow>(
  spec: RevisionedKind<any, R>,
  deps: Deps,
  actor: Actor,
  headId: string,
  args: { limit?: number | null; cursor?: string | null },
): Promise<Page<R>> {
  requirePermission(actor, 'read');
  await getHead(spec, deps.db, actor, headId);
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor(`${spec.kind}-revisions:${headId}`, args.cursor, true);
  const rows = (await spec.revisionDelegate(deps.db).findMany({
    where: { [spec.headKey]: headId, ...(after ? { number: { lt: Number(after[0]) } } : {}) },
    orderBy: { number: 'desc' },
    take: size + 1,
  })) as R[];
  return toPage(rows, size, `${spec.kind}-revisions:${headId}`, (row) => [row.number]);
}

export interface HeadListArgs {
  label?: readonly string[] | null;
  q?: string | null;
  archived?: boolean | null;
  limit?: number | null;
  cursor?: string | null;
}

/** The `where` and keyset parts every head list shares; newest first. */
export function headListQuery(list: string, actor: Actor, args: HeadListArgs) {
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor(list, args.cursor);
  const selectors = parseLabelSelectors(args.label);
  const q = args.q?.trim();
  const where = {
    workspaceId: actor.workspaceId,
    // Without `archived`, lists show open heads: archived ones are out of use but stay readable.
    archivedAt: args.archived === true ? { not: null } : null,
    ...(q
      ? { OR: [{ name: { contains: q, mode: 'insensitive' as const } }, { description: { contains: q, mode: 'insensitive' as const } }] }
      : {}),
    ...labelsWhere(selectors),
    ...(after ? { id: { lt: String(after[0]) } } : {}),
  };
  return { where, size, orderBy: { id: 'desc' as const }, take: size + 1 };
}

export interface HeadPatch {
  name?: unknown;
  description?: unknown;
  labels?: unknown;
  [extra: string]: unknown;
}

/** Validates the patchable head fields every revisioned kind shares. */
export function validateHeadPatch(patch: HeadPatch): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  if (patch.name !== undefined && patch.name !== null) data.name = validateName(patch.name);
  if (patch.name === null) throw invalidArgument('name cannot be null', 'name');
  if (patch.description !== undefined) data.description = patch.description === null ? '' : validateDescription(patch.description);
  if (patch.labels !== undefined) data.labels = patch.labels === null ? {} : validateLabels(patch.labels);
  return data;
}

/**
 * Applies `data` to the head in a transaction: If-Match (required unless stated), no-op detection,
 * compare-and-set version bump, one audit row.
 */
export async function changeHead<H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
  action: string,
  compute: (head: H, tx: Tx) => Promise<Record<string, unknown>> | Record<string, unknown>,
  options: { ifMatchRequired?: boolean; requestId?: string } = {},
): Promise<H> {
  requirePermission(actor, 'write');
  return deps.db.$transaction(async (tx) => {
    const head = await lockHead(spec, tx, actor, id);
    checkIfMatch(ifMatch, head.id, head.version, options.ifMatchRequired ?? true);
    const data = await compute(head, tx);
    return changeVersioned({
      tx,
      actor,
      delegate: spec.headDelegate(tx),
      row: head,
      ifMatch,
      ifMatchRequired: false,
      resourceKind: spec.kind,
      action,
      data,
      requestId: options.requestId,
    });
  });
}

export const archiveHead = <H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
) =>
  // Archiving an archived head changes nothing: same version, no audit row.
  changeHead(spec, deps, actor, id, ifMatch, 'archive', (head) => (head.archivedAt ? {} : { archivedAt: new Date() }));

export const unarchiveHead = <H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
) => changeHead(spec, deps, actor, id, ifMatch, 'unarchive', (head) => (head.archivedAt ? { archivedAt: null } : {}));

export async function setDefaultRevision<H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  deps: Deps,
  actor: Actor,
  id: string,
  revisionId: string,
  ifMatch: string | null | undefined,
): Promise<H> {
  return changeHead(spec, deps, actor, id, ifMatch, 'set_default', async (head, tx) => {
    const revision = (await spec.revisionDelegate(tx).findUnique({ where: { id: revisionId } })) as Record<string, unknown> | null;
    if (!revision || revision[spec.headKey] !== head.id) throw notFound(`${spec.kind} revision`, revisionId);
    return { defaultRevisionId: revisionId };
  });
}

export interface PublishResult<H, R> {
  head: H;
  revision: R;
  created: boolean;
}

/**
 * Publishes `content` (already validated and canonical) as the head's next revision.
 * Identical to the default revision → that revision, head untouched (whatever `makeDefault` says).
 * Identical to an older revision → that revision (no duplicate), made default when asked.
 */
export async function publishRevision<H extends HeadRow, R extends RevisionRow>(
  spec: RevisionedKind<H, R>,
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
  input: { content: Record<string, unknown>; note?: unknown; makeDefault?: boolean | null },
  requestId?: string,
): Promise<PublishResult<H, R>> {
  requirePermission(actor, 'write');
  const note = validateNote(input.note);
  const digest = digestOf(input.content);
  const makeDefault = input.makeDefault ?? true;
  return deps.db.$transaction(async (tx) => {
    const head = await lockHead(spec, tx, actor, id);
    checkIfMatch(ifMatch, head.id, head.version);
    if (head.archivedAt) throw new AppError('failed_precondition', `the ${spec.kind} is archived; unarchive it before publishing`);
    const revisions = spec.revisionDelegate(tx);
    const existing = (await revisions.findFirst({ where: { [spec.headKey]: head.id, digest }, orderBy: { number: 'desc' } })) as R | null;
    if (existing && existing.id === head.defaultRevisionId) return { head, revision: existing, created: false };
    let revision = existing;
    if (!revision) {
      const number = head.lastRevisionNumber + 1;
      revision = (await revisions.create({
        data: {
          id: newId(spec.revisionIdKind),
          [spec.headKey]: head.id,
          workspaceId: actor.workspaceId,
          number,
          digest,
          note,
          [spec.contentField]: input.content as Prisma.InputJsonValue,
          createdById: actor.principalId,
        },
      })) as R;
      await spec.afterInsert?.(tx, revision, input.content);
      await spec.headDelegate(tx).update({ where: { id: head.id }, data: { lastRevisionNumber: number } });
      await recordAudit(tx, {
        workspaceId: actor.workspaceId,
        principalId: actor.principalId,
        action: 'create',
        resourceKind: `${spec.kind}_revision`,
        resourceId: revision.id,
        changes: {
          [spec.headKey === 'agentId' ? 'agent_id' : 'skill_id']: { from: null, to: head.id },
          number: { from: null, to: number },
          digest: { from: null, to: digest },
        },
        requestId,
      });
    }
    if (!makeDefault) return { head: await getHead(spec, tx, actor, head.id), revision, created: !existing };
    const updated = (await spec.headDelegate(tx).update({
      where: { id: head.id },
      data: { defaultRevisionId: revision.id, version: head.version + 1, updatedById: actor.principalId, updatedAt: new Date() },
    })) as H;
    await recordAudit(tx, {
      workspaceId: actor.workspaceId,
      principalId: actor.principalId,
      action: 'set_default',
      resourceKind: spec.kind,
      resourceId: head.id,
      version: updated.version,
      changes: { default_revision_id: { from: head.defaultRevisionId, to: revision.id } },
      requestId,
    });
    return { head: updated, revision, created: !existing };
  });
}

/** Creates a head with revision 1 as its default, in the caller's transaction. */
export async function insertHeadWithFirstRevision<H extends HeadRow, R extends RevisionRow>(
  spec: RevisionedKind<H, R>,
  tx: Tx,
  actor: Actor,
  headData: Record<string, unknown>,
  content: Record<string, unknown>,
  note: string,
  requestId?: string,
): Promise<{ head: H; revision: R }> {
  const headId = headData.id as string;
  const revisionId = newId(spec.revisionIdKind);
  const now = new Date();
  await spec.headDelegate(tx).create({
    data: {
      ...headData,
      workspaceId: actor.workspaceId,
      lastRevisionNumber: 1,
      defaultRevisionId: revisionId,
      createdById: actor.principalId,
      updatedById: actor.principalId,
      createdAt: now,
      updatedAt: now,
    },
  });
  const revision = (await spec.revisionDelegate(tx).create({
    data: {
      id: revisionId,
      [spec.headKey]: headId,
      workspaceId: actor.workspaceId,
      number: 1,
      digest: digestOf(content),
      note,
      [spec.contentField]: content as Prisma.InputJsonValue,
      createdById: actor.principalId,
      createdAt: now,
    },
  })) as R;
  await spec.afterInsert?.(tx, revision, content);
  const head = (await spec.headDelegate(tx).findUniqueOrThrow({ where: { id: headId } })) as H;
  await recordAudit(tx, {
    workspaceId: actor.workspaceId,
    principalId: actor.principalId,
    action: 'create',
    resourceKind: spec.kind,
    resourceId: headId,
    version: 1,
    changes: { name: { from: null, to: head.name }, default_revision_id: { from: null, to: revisionId } },
    requestId,
  });
  return { head, revision };
}
