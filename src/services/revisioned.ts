// The revisioned lifecycle shared by agents and skills (spec: Lifecycles, "Revisioned"): a head
// plus immutable numbered revisions. Head fields change in place (version + audit); a content
// change publishes a revision; publishing content identical to the default revision's returns that
// revision and leaves the head alone; numbers are gapless because publishers serialise on the
// head's row lock.
import type { Prisma } from '../db.js';
import { digestOf } from '../lib/canonical-json.js';
import type { Page } from '../lib/cursor.js';
import { checkIfMatch } from '../lib/etag.js';
import { AppError, invalidArgument, notFound } from '../lib/errors.js';
import { newId, type IdKind } from '../lib/ids.js';
import { validateLabels } from '../lib/labels.js';
import { recordAudit, recordCreation } from '../features/audit/audit.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst, type ListShape } from './list-query.js';
import { changeVersioned } from './versioned.js';
import type { Deps } from './deps.js';
import { inTransaction, type CallContext } from './call-context.js';
import { requirePermission } from '../features/access/permissions.js';
import { inCallersWorkspace } from './workspace-rows.js';

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

export async function getHead<H extends HeadRow>(spec: RevisionedKind<H, any>, call: CallContext, id: string): Promise<H> {
  return inCallersWorkspace(call, spec.kind, id, (await spec.headDelegate(call.db).findUnique({ where: { id } })) as H | null);
}

/** Locks the head row for the rest of the transaction (publishers and default switches serialise here). */
async function lockHead<H extends HeadRow>(spec: RevisionedKind<H, any>, call: CallContext, id: string): Promise<H> {
  await call.db.$queryRawUnsafe(`SELECT id FROM ${spec.table} WHERE id = $1 AND workspace_id = $2 FOR UPDATE`, id, call.actor.workspaceId);
  return getHead(spec, call, id);
}

export async function getRevision<R extends RevisionRow>(
  spec: RevisionedKind<any, R>,
  call: CallContext,
  headId: string,
  revisionId: string,
): Promise<R> {
  requirePermission(call.actor, 'read');
  await getHead(spec, call, headId);
  const revision = (await spec.revisionDelegate(call.db).findUnique({ where: { id: revisionId } })) as (R & Record<string, unknown>) | null;
  if (!revision || revision.workspaceId !== call.actor.workspaceId || revision[spec.headKey] !== headId)
    throw notFound(`${spec.kind} revision`, revisionId);
  return revision;
}

export async function listRevisions<R extends RevisionRow>(
  spec: RevisionedKind<any, R>,
  call: CallContext,
  headId: string,
  args: { limit?: number | null; cursor?: string | null },
): Promise<Page<R>> {
  requirePermission(call.actor, 'read');
  await getHead(spec, call, headId);
  // Scoped by the head, which `getHead` found in the caller's workspace.
  const query = listQuery(
    { list: `${spec.kind}-revisions:${headId}`, sort: { field: 'number', direction: 'desc', numeric: true }, workspaceScoped: false },
    call,
    args,
  );
  const rows = (await spec.revisionDelegate(call.db).findMany(query.findArgs({ [spec.headKey]: headId }))) as R[];
  return query.page(rows);
}

export interface HeadListArgs {
  label?: readonly string[] | null;
  q?: string | null;
  archived?: boolean | null;
  limit?: number | null;
  cursor?: string | null;
}

/** The list every revisioned kind's heads share: newest first, `q` on name and description, open by default. */
export function headList(list: string): ListShape<'id'> {
  return newestFirst(list, {
    search: NAME_AND_DESCRIPTION,
    // Without `archived`, lists show open heads: archived ones are out of use but stay readable.
    archived: { field: 'archivedAt', unset: 'open' },
  });
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
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  action: string,
  compute: (head: H, call: CallContext) => Promise<Record<string, unknown>> | Record<string, unknown>,
  options: { ifMatchRequired?: boolean } = {},
): Promise<H> {
  requirePermission(call.actor, 'write');
  return inTransaction(call, async (call) => {
    const head = await lockHead(spec, call, id);
    checkIfMatch(ifMatch, head.id, head.version, options.ifMatchRequired ?? true);
    const data = await compute(head, call);
    return changeVersioned({
      call,
      delegate: spec.headDelegate(call.db),
      row: head,
      ifMatch,
      ifMatchRequired: false,
      resourceKind: spec.kind,
      action,
      data,
    });
  });
}

export const archiveHead = <H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
) =>
  // Archiving an archived head changes nothing: same version, no audit row.
  changeHead(spec, call, id, ifMatch, 'archive', (head) => (head.archivedAt ? {} : { archivedAt: new Date() }));

export const unarchiveHead = <H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
) =>
  // Unarchiving needs only `write`: it takes back an archive and loses nothing, so a missing If-Match
  // is no refusal (a given one is still checked: a stale one → 412).
  changeHead(spec, call, id, ifMatch, 'unarchive', (head) => (head.archivedAt ? { archivedAt: null } : {}), { ifMatchRequired: false });

export async function setDefaultRevision<H extends HeadRow>(
  spec: RevisionedKind<H, any>,
  call: CallContext,
  id: string,
  revisionId: string,
  ifMatch: string | null | undefined,
): Promise<H> {
  return changeHead(spec, call, id, ifMatch, 'set_default', async (head, call) => {
    const revision = (await spec.revisionDelegate(call.db).findUnique({ where: { id: revisionId } })) as Record<string, unknown> | null;
    if (!revision || revision[spec.headKey] !== head.id) throw notFound(`${spec.kind} revision`, revisionId);
    return { defaultRevisionId: revisionId };
  });
}

type IfMatch = string | null | undefined;

/**
 * The operations of a revisioned kind that every kind offers as they are, bound to the kind: its
 * module exports them under its own names (`getAgent`, `archiveSkill`, …) without a wrapper each.
 */
export function headOperations<H extends HeadRow, R extends RevisionRow>(spec: RevisionedKind<H, R>) {
  return {
    get: async (call: CallContext, id: string): Promise<H> => {
      requirePermission(call.actor, 'read');
      return getHead(spec, call, id);
    },
    archive: (call: CallContext, id: string, ifMatch: IfMatch) => archiveHead(spec, call, id, ifMatch),
    unarchive: (call: CallContext, id: string, ifMatch: IfMatch) => unarchiveHead(spec, call, id, ifMatch),
    setDefault: (call: CallContext, id: string, revisionId: string, ifMatch: IfMatch) =>
      setDefaultRevision(spec, call, id, revisionId, ifMatch),
    getRevision: (call: CallContext, headId: string, revisionId: string) => getRevision(spec, call, headId, revisionId),
    listRevisions: (call: CallContext, headId: string, args: { limit?: number | null; cursor?: string | null }) =>
      listRevisions(spec, call, headId, args),
  };
}

/** A new head's name, description (default empty) and labels (default none), checked in that order. */
export function validateNewHead(input: { name: unknown; description?: unknown; labels?: unknown }) {
  return {
    name: validateName(input.name),
    description: input.description === undefined || input.description === null ? '' : validateDescription(input.description),
    labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
  };
}

/** What a kind's create adds to the fields every head has. */
export interface NewHeadParts<C extends Record<string, unknown>> {
  /** The kind's own head columns, checked after the shared fields. */
  columns?: () => Record<string, unknown>;
  /** The first revision's content, checked after the kind's columns and before the note. */
  content: () => C;
  /** Checks what the content refers to, inside the transaction that inserts it. */
  check?: (call: CallContext, content: C) => Promise<void>;
}

/**
 * Creates a custom head with its first revision: `write`, then every argument checked before the
 * transaction (so a bad one never takes a connection), then the kind's reference checks and the insert.
 */
export async function createHead<H extends HeadRow, R extends RevisionRow, C extends Record<string, unknown>>(
  spec: RevisionedKind<H, R>,
  call: CallContext,
  input: { name: unknown; description?: unknown; labels?: unknown; note?: unknown },
  parts: NewHeadParts<C>,
): Promise<H> {
  requirePermission(call.actor, 'write');
  const { name, description, labels } = validateNewHead(input);
  const columns = parts.columns?.() ?? {};
  const content = parts.content();
  const note = validateNote(input.note);
  return inTransaction(call, async (call) => {
    await parts.check?.(call, content);
    const headData = { id: newId(spec.kind), ...columns, name, description, labels, source: 'custom' };
    return (await insertHeadWithFirstRevision(spec, call, headData, content, note)).head;
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
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  input: { content: Record<string, unknown>; note?: unknown; makeDefault?: boolean | null },
): Promise<PublishResult<H, R>> {
  requirePermission(call.actor, 'write');
  const note = validateNote(input.note);
  const digest = digestOf(input.content);
  const makeDefault = input.makeDefault ?? true;
  return inTransaction(call, async (call) => {
    const head = await lockHead(spec, call, id);
    checkIfMatch(ifMatch, head.id, head.version);
    if (head.archivedAt) throw new AppError('failed_precondition', `the ${spec.kind} is archived; unarchive it before publishing`);
    const revisions = spec.revisionDelegate(call.db);
    const existing = (await revisions.findFirst({ where: { [spec.headKey]: head.id, digest }, orderBy: { number: 'desc' } })) as R | null;
    if (existing && existing.id === head.defaultRevisionId) return { head, revision: existing, created: false };
    let revision = existing;
    if (!revision) {
      const number = head.lastRevisionNumber + 1;
      revision = (await revisions.create({
        data: {
          id: newId(spec.revisionIdKind),
          [spec.headKey]: head.id,
          workspaceId: call.actor.workspaceId,
          number,
          digest,
          note,
          [spec.contentField]: input.content as Prisma.InputJsonValue,
          createdById: call.actor.principalId,
        },
      })) as R;
      await spec.afterInsert?.(call.db, revision, input.content);
      await spec.headDelegate(call.db).update({ where: { id: head.id }, data: { lastRevisionNumber: number } });
      await recordAudit(call, {
        action: 'create',
        resourceKind: `${spec.kind}_revision`,
        resourceId: revision.id,
        changes: {
          [spec.headKey === 'agentId' ? 'agent_id' : 'skill_id']: { from: null, to: head.id },
          number: { from: null, to: number },
          digest: { from: null, to: digest },
        },
      });
    }
    if (!makeDefault) return { head: await getHead(spec, call, head.id), revision, created: !existing };
    const updated = (await spec.headDelegate(call.db).update({
      where: { id: head.id },
      data: { defaultRevisionId: revision.id, version: head.version + 1, updatedById: call.actor.principalId, updatedAt: new Date() },
    })) as H;
    await recordAudit(call, {
      action: 'set_default',
      resourceKind: spec.kind,
      resourceId: head.id,
      version: updated.version,
      changes: { default_revision_id: { from: head.defaultRevisionId, to: revision.id } },
    });
    return { head: updated, revision, created: !existing };
  });
}

/** Creates a head with revision 1 as its default, in the caller's transaction. */
export async function insertHeadWithFirstRevision<H extends HeadRow, R extends RevisionRow>(
  spec: RevisionedKind<H, R>,
  call: CallContext,
  headData: Record<string, unknown>,
  content: Record<string, unknown>,
  note: string,
): Promise<{ head: H; revision: R }> {
  const headId = headData.id as string;
  const revisionId = newId(spec.revisionIdKind);
  const now = new Date();
  await spec.headDelegate(call.db).create({
    data: {
      ...headData,
      workspaceId: call.actor.workspaceId,
      lastRevisionNumber: 1,
      defaultRevisionId: revisionId,
      createdById: call.actor.principalId,
      updatedById: call.actor.principalId,
      createdAt: now,
      updatedAt: now,
    },
  });
  const revision = (await spec.revisionDelegate(call.db).create({
    data: {
      id: revisionId,
      [spec.headKey]: headId,
      workspaceId: call.actor.workspaceId,
      number: 1,
      digest: digestOf(content),
      note,
      [spec.contentField]: content as Prisma.InputJsonValue,
      createdById: call.actor.principalId,
      createdAt: now,
    },
  })) as R;
  await spec.afterInsert?.(call.db, revision, content);
  const head = (await spec.headDelegate(call.db).findUniqueOrThrow({ where: { id: headId } })) as H;
  await recordCreation(call, spec.kind, headId, {
    name: { from: null, to: head.name },
    default_revision_id: { from: null, to: revisionId },
  });
  return { head, revision };
}
