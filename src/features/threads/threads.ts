// Sessions and threads: a session groups threads; a thread holds the conversation (message
// history) that its runs continue, and an inbox of entries delivered to runs.
import { invalidArgument, notFound } from '../../lib/errors.js';
import { queryDirect, type Db } from '../../db.js';
import { returningColumns } from '../../storage/columns.js';
import { validateTitle } from '../../lib/text-fields.js';
import { newId } from '../../lib/ids.js';
import { validateLabels } from '../../lib/labels.js';
import { recordCreation } from '../audit/audit.js';
import { changeVersioned } from '../../services/versioned.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { announceThreadChanged } from '../../services/event-topics.js';
import { listQuery, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { Prisma, type Thread, type Session } from '../../generated/prisma/client.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

/** A thread's MCP headers: connection id → header name → value (also the `McpHeaders` scalar's check). */
export function validateMcpHeaders(value: unknown, field = 'mcp_headers'): Record<string, Record<string, string>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidArgument(`${field} must map connection ids to header maps`, field);
  // Collected as entries: Object.fromEntries defines each member (a key named `__proto__` too).
  const all: [string, Record<string, string>][] = [];
  for (const [connection, headers] of Object.entries(value)) {
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
      throw invalidArgument(`${field}.${connection} must be a map of header names to values`, `${field}.${connection}`);
    const checked: [string, string][] = [];
    for (const [name, header] of Object.entries(headers)) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof header !== 'string')
        throw invalidArgument(`${field}.${connection}.${name} must be a valid header`, `${field}.${connection}.${name}`);
      checked.push([name, header]);
    }
    all.push([connection, Object.fromEntries(checked)]);
  }
  return Object.fromEntries(all);
}

// ── sessions ──

export async function createSessionRow(call: CallContext, input: { title?: unknown; labels?: unknown }) {
  const session = await call.db.session.create({
    data: {
      id: newId('session'),
      workspaceId: call.actor.workspaceId,
      title: validateTitle(input.title),
      labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
      createdById: call.actor.principalId,
      updatedById: call.actor.principalId,
    },
  });
  await recordCreation(call, 'session', session.id, {});
  return session;
}

export async function createSession(call: CallContext, input: { title?: unknown; labels?: unknown }) {
  requirePermission(call.actor, 'write');
  return inTransaction(call, (call) => createSessionRow(call, input));
}

export async function getSession(call: CallContext, id: string) {
  requirePermission(call.actor, 'read');
  return inCallersWorkspace(call, 'session', id, await call.db.session.findUnique({ where: { id } }));
}

export async function listSessions(
  call: CallContext,
  args: { label?: readonly string[] | null; limit?: number | null; cursor?: string | null },
) {
  requirePermission(call.actor, 'read');
  const query = listQuery(newestFirst('sessions'), call, args);
  const rows = await call.db.session.findMany(query.findArgs());
  return query.page(rows);
}

export async function updateSession(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: { title?: unknown; labels?: unknown },
) {
  requirePermission(call.actor, 'write');
  const data: Record<string, unknown> = {};
  if (patch.title !== undefined) data.title = validateTitle(patch.title);
  if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
  return inTransaction(call, async (call) => {
    const row = await getSession(call, id);
    return changeVersioned({ call, delegate: call.db.session, row, ifMatch, resourceKind: 'session', action: 'update', data });
  });
}

// ── threads ──

export async function createThreadRow(
  call: CallContext,
  input: { sessionId?: string | null; labels?: unknown; mcpHeaders?: unknown; origin?: { kind: 'fork'; runId: string; threadId: string } },
) {
  const session = input.sessionId ? await getSession(call, input.sessionId) : await createSessionRow(call, {});
  const thread = await call.db.thread.create({
    data: {
      id: newId('thread'),
      workspaceId: call.actor.workspaceId,
      sessionId: session.id,
      labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
      mcpHeaders: input.mcpHeaders === undefined || input.mcpHeaders === null ? {} : validateMcpHeaders(input.mcpHeaders),
      origin: input.origin?.kind ?? 'new',
      originRunId: input.origin?.runId ?? null,
      originThreadId: input.origin?.threadId ?? null,
      createdById: call.actor.principalId,
      updatedById: call.actor.principalId,
    },
  });
  await recordCreation(call, 'thread', thread.id, { session_id: { from: null, to: session.id } });
  return thread;
}

export async function createThread(call: CallContext, input: { sessionId?: string | null; labels?: unknown; mcpHeaders?: unknown }) {
  requirePermission(call.actor, 'write');
  return inTransaction(call, (call) => createThreadRow(call, input));
}

export async function getThread(call: CallContext, id: string) {
  requirePermission(call.actor, 'read');
  return inCallersWorkspace(call, 'thread', id, await call.db.thread.findUnique({ where: { id } }));
}

const THREAD_COLUMNS = returningColumns(Prisma.ThreadScalarFieldEnum);

/**
 * A thread locked for the rest of the transaction and read as locked, in one statement (a row lock
 * returns the row's newest version, so what it reads is what the lock holds); null when there is none
 * (in `workspaceId`, when named: a thread of another workspace is then neither locked nor found).
 */
export async function lockThreadRow(db: Db | Prisma.TransactionClient, id: string, workspaceId?: string): Promise<Thread | null> {
  const inWorkspace = workspaceId === undefined ? Prisma.empty : Prisma.sql`AND workspace_id = ${workspaceId}`;
  const [thread] = await queryDirect<Thread>(
    db,
    Prisma.sql`SELECT ${THREAD_COLUMNS} FROM threads WHERE id = ${id} ${inWorkspace} FOR UPDATE`,
  );
  return thread ?? null;
}

/** The caller's thread, locked and read as `lockThreadRow` does (deliveries and starts on one thread are serialised here); 404 outside the workspace. */
export async function lockThread(call: CallContext, id: string): Promise<Thread> {
  requirePermission(call.actor, 'read');
  const thread = await lockThreadRow(call.db, id, call.actor.workspaceId);
  if (!thread) throw notFound('thread', id);
  return thread;
}

export async function listThreads(
  call: CallContext,
  args: {
    sessionId?: string | null;
    label?: readonly string[] | null;
    archived?: boolean | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  requirePermission(call.actor, 'read');
  // Without `archived`, a thread list shows open and archived threads alike.
  const query = listQuery(newestFirst('threads', { archived: { field: 'archivedAt', unset: 'any' } }), call, args);
  const rows = await call.db.thread.findMany(query.findArgs(args.sessionId ? { sessionId: args.sessionId } : {}));
  return query.page(rows);
}

async function changeThread(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  action: string,
  compute: (row: Awaited<ReturnType<typeof getThread>>) => Record<string, unknown>,
) {
  requirePermission(call.actor, 'write');
  const changed = await inTransaction(call, async (call) => {
    const row = await getThread(call, id);
    return changeVersioned({ call, delegate: call.db.thread, row, ifMatch, resourceKind: 'thread', action, data: compute(row) });
  });
  // Followers hear of it once it is committed (inside a caller's transaction, that caller announces).
  if (!call.inTransaction) announceThreadChanged(call.events, id);
  return changed;
}

export const updateThread = (
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: { labels?: unknown; mcpHeaders?: unknown },
) =>
  changeThread(call, id, ifMatch, 'update', () => ({
    ...(patch.labels !== undefined ? { labels: validateLabels(patch.labels ?? {}) } : {}),
    ...(patch.mcpHeaders !== undefined ? { mcpHeaders: validateMcpHeaders(patch.mcpHeaders ?? {}) } : {}),
  }));

export const archiveThread = (call: CallContext, id: string, ifMatch: string | null | undefined) =>
  changeThread(call, id, ifMatch, 'archive', (row) => (row.archivedAt ? {} : { archivedAt: new Date() }));

/** Threads by id for `node(id)` and relations (src/services/nodes.ts). */
export const loadThreads: NodeRowsLoader<Thread> = (call, ids) => call.db.thread.findMany({ where: idsInWorkspace(call, ids) });

/** Sessions by id for `node(id)` and relations (src/services/nodes.ts). */
export const loadSessions: NodeRowsLoader<Session> = (call, ids) => call.db.session.findMany({ where: idsInWorkspace(call, ids) });
