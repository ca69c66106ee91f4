// Sessions and threads: a session groups threads; a thread holds the conversation (message
// history) that its runs continue, and an inbox of entries delivered to runs.
import type { Prisma } from '../db.js';
import { invalidArgument, notFound } from '../lib/errors.js';
import { validateTitle } from '../lib/text-fields.js';
import { newId } from '../lib/ids.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../lib/labels.js';
import { decodeCursor, pageSize, toPage } from '../lib/cursor.js';
import { recordAudit } from './audit.js';
import { changeVersioned } from './versioned.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';

type Tx = Prisma.TransactionClient;

function validateMcpHeaders(value: unknown): Record<string, Record<string, string>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidArgument('mcp_headers must map connection ids to header maps', 'mcp_headers');
  for (const [connection, headers] of Object.entries(value)) {
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
      throw invalidArgument(`mcp_headers.${connection} must be a map of header names to values`, `mcp_headers.${connection}`);
    for (const [name, header] of Object.entries(headers as Record<string, unknown>)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof header !== 'string')
        throw invalidArgument(`mcp_headers.${connection}.${name} must be a valid header`, `mcp_headers.${connection}.${name}`);
    }
  }
  return value as Record<string, Record<string, string>>;
}

// ── sessions ──

export async function createSessionRow(tx: Tx, actor: Actor, input: { title?: unknown; labels?: unknown }) {
  const session = await tx.session.create({
    data: {
      id: newId('session'),
      workspaceId: actor.workspaceId,
      title: validateTitle(input.title),
      labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
      createdById: actor.principalId,
      updatedById: actor.principalId,
    },
  });
  await recordAudit(tx, {
    workspaceId: actor.workspaceId,
    principalId: actor.principalId,
    action: 'create',
    resourceKind: 'session',
    resourceId: session.id,
    version: 1,
  });
  return session;
}

export async function createSession(deps: Deps, actor: Actor, input: { title?: unknown; labels?: unknown }) {
  requirePermission(actor, 'write');
  return deps.db.$transaction((tx) => createSessionRow(tx, actor, input));
}

export async function getSession(deps: Deps | { db: Tx }, actor: Actor, id: string) {
  requirePermission(actor, 'read');
  const row = await deps.db.session.findUnique({ where: { id } });
  if (!row || row.workspaceId !== actor.workspaceId) throw notFound('session', id);
  return row;
}

export async function listSessions(
  deps: Deps,
  actor: Actor,
  args: { label?: readonly string[] | null; limit?: number | null; cursor?: string | null },
) {
  requirePermission(actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor('sessions', args.cursor);
  const rows = await deps.db.session.findMany({
    where: {
      workspaceId: actor.workspaceId,
      ...labelsWhere(parseLabelSelectors(args.label)),
      ...(after ? { id: { lt: String(after[0]) } } : {}),
    },
    orderBy: { id: 'desc' },
    take: size + 1,
  });
  return toPage(rows, size, 'sessions', (row) => [row.id]);
}

export async function updateSession(
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
  patch: { title?: unknown; labels?: unknown },
) {
  requirePermission(actor, 'write');
  const data: Record<string, unknown> = {};
  if (patch.title !== undefined) data.title = validateTitle(patch.title);
  if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
  return deps.db.$transaction(async (tx) => {
    const row = await getSession({ db: tx }, actor, id);
    return changeVersioned({ tx, actor, delegate: tx.session, row, ifMatch, resourceKind: 'session', action: 'update', data });
  });
}

// ── threads ──

export async function createThreadRow(
  tx: Tx,
  actor: Actor,
  input: { sessionId?: string | null; labels?: unknown; mcpHeaders?: unknown; origin?: { kind: 'fork'; runId: string; threadId: string } },
) {
  const session = input.sessionId ? await getSession({ db: tx }, actor, input.sessionId) : await createSessionRow(tx, actor, {});
  const thread = await tx.thread.create({
    data: {
      id: newId('thread'),
      workspaceId: actor.workspaceId,
      sessionId: session.id,
      labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
      mcpHeaders: input.mcpHeaders === undefined || input.mcpHeaders === null ? {} : validateMcpHeaders(input.mcpHeaders),
      origin: input.origin?.kind ?? 'new',
      originRunId: input.origin?.runId ?? null,
      originThreadId: input.origin?.threadId ?? null,
      createdById: actor.principalId,
      updatedById: actor.principalId,
    },
  });
  await recordAudit(tx, {
    workspaceId: actor.workspaceId,
    principalId: actor.principalId,
    action: 'create',
    resourceKind: 'thread',
    resourceId: thread.id,
    version: 1,
    changes: { session_id: { from: null, to: session.id } },
  });
  return thread;
}

export async function createThread(deps: Deps, actor: Actor, input: { sessionId?: string | null; labels?: unknown; mcpHeaders?: unknown }) {
  requirePermission(actor, 'write');
  return deps.db.$transaction((tx) => createThreadRow(tx, actor, input));
}

export async function getThread(deps: Deps | { db: Tx }, actor: Actor, id: string) {
  requirePermission(actor, 'read');
  const row = await deps.db.thread.findUnique({ where: { id } });
  if (!row || row.workspaceId !== actor.workspaceId) throw notFound('thread', id);
  return row;
}

export async function listThreads(
  deps: Deps,
  actor: Actor,
  args: {
    sessionId?: string | null;
    label?: readonly string[] | null;
    archived?: boolean | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  requirePermission(actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor('threads', args.cursor);
  const rows = await deps.db.thread.findMany({
    where: {
      workspaceId: actor.workspaceId,
      ...(args.sessionId ? { sessionId: args.sessionId } : {}),
      ...(args.archived === true ? { archivedAt: { not: null } } : args.archived === false ? { archivedAt: null } : {}),
      ...labelsWhere(parseLabelSelectors(args.label)),
      ...(after ? { id: { lt: String(after[0]) } } : {}),
    },
    orderBy: { id: 'desc' },
    take: size + 1,
  });
  return toPage(rows, size, 'threads', (row) => [row.id]);
}

async function changeThread(
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
  action: string,
  compute: (row: Awaited<ReturnType<typeof getThread>>) => Record<string, unknown>,
) {
  requirePermission(actor, 'write');
  return deps.db.$transaction(async (tx) => {
    const row = await getThread({ db: tx }, actor, id);
    return changeVersioned({ tx, actor, delegate: tx.thread, row, ifMatch, resourceKind: 'thread', action, data: compute(row) });
  });
}

export const updateThread = (
  deps: Deps,
  actor: Actor,
  id: string,
  ifMatch: string | null | undefined,
  patch: { labels?: unknown; mcpHeaders?: unknown },
) =>
  changeThread(deps, actor, id, ifMatch, 'update', () => ({
    ...(patch.labels !== undefined ? { labels: validateLabels(patch.labels ?? {}) } : {}),
    ...(patch.mcpHeaders !== undefined ? { mcpHeaders: validateMcpHeaders(patch.mcpHeaders ?? {}) } : {}),
  }));

export const archiveThread = (deps: Deps, actor: Actor, id: string, ifMatch: string | null | undefined) =>
  changeThread(deps, actor, id, ifMatch, 'archive', (row) => (row.archivedAt ? {} : { archivedAt: new Date() }));
