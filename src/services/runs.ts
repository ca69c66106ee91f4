// Runs: creation (which opens what is missing: session, thread, inbox entry), reads, the list with
// every filter, label changes, cancellation, lineage and the run's agent view. Execution lives in
// src/engine; this module only records what callers ask for and what they may see.
import type { Prisma } from '../db.js';
import type { Run } from '../generated/prisma/client.js';
import { applyOverrides, normalizeRunOptions, type RunOptions } from '../agents/config-schema.js';
import { canonicalize, digestOf } from '../lib/canonical-json.js';
import { decodeCursor, encodeCursor, pageSize, toPage } from '../lib/cursor.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { labelsWhere, parseLabelSelectors, validateLabels } from '../lib/labels.js';
import { RUN_STATUSES, SEALED, transition, type RunStatus } from '../engine/state-machine.js';
import { agentForNewRun, AGENTS, assertAgentTakesRuns, checkConfigReferences } from './agents.js';
import { getRevision } from './revisioned.js';
import { recordAudit } from './audit.js';
import type { Actor, Deps } from './deps.js';
import { requirePermission } from './permissions.js';
import { createThreadRow, getThread } from './threads.js';
import { changeVersioned } from './versioned.js';
import { promoteNextEntry } from './inbox.js';
import { insertRunOnNewThread, newRunFacts } from './run-statements.js';

type Tx = Prisma.TransactionClient;

export interface MessageContent {
  content: { type: 'text'; text: string }[];
}

/** `{content: [{type: "text", text}]}` — the input/payload shape of the spec. */
export function validateMessage(value: unknown, field: string, required = true): MessageContent | null {
  if (value === undefined || value === null) {
    if (required) throw invalidArgument(`${field} is required: {"content": [{"type": "text", "text": "…"}]}`, field);
    return null;
  }
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${field} must be an object with content`, field);
  const { content, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest)[0];
  if (extra) throw invalidArgument(`${field}.${extra} is not a known field`, `${field}.${extra}`);
  if (!Array.isArray(content) || content.length === 0 || content.length > 100) throw invalidArgument(`${field}.content must be a list of 1 to 100 parts`, `${field}.content`);
  content.forEach((part: unknown, index) => {
    const partField = `${field}.content[${index}]`;
    if (part === null || typeof part !== 'object' || (part as { type?: unknown }).type !== 'text' || typeof (part as { text?: unknown }).text !== 'string') {
      throw invalidArgument(`${partField} must be {"type": "text", "text": "…"}`, partField);
    }
    const keys = Object.keys(part as object).filter((key) => key !== 'type' && key !== 'text');
    if (keys.length) throw invalidArgument(`${partField}.${keys[0]} is not a known field`, `${partField}.${keys[0]}`);
  });
  if (Buffer.byteLength(canonicalize(content)) > 512 * 1024) throw invalidArgument(`${field} is larger than 512 KiB`, field);
  return { content: content as MessageContent['content'] };
}

/** New use of a disabled model or provider is refused at once with `disabled`. */
export async function assertModelUsable(db: Tx | Deps['db'], workspaceId: string, key: string) {
  const model = await db.model.findUnique({ where: { workspaceId_key: { workspaceId, key } }, select: { enabled: true, providerId: true } });
  const provider = model ? await db.provider.findUnique({ where: { id: model.providerId }, select: { enabled: true } }) : null;
  checkModelUsable(key, { found: Boolean(model), enabled: Boolean(model?.enabled), providerEnabled: Boolean(provider?.enabled) });
}

export function checkModelUsable(key: string, state: { found: boolean; enabled: boolean; providerEnabled: boolean }) {
  if (!state.found) throw new AppError('not_found', `model ${quoteInput(key)} not found`);
  if (!state.enabled) throw new AppError('disabled', `model ${quoteInput(key)} is disabled`);
  if (!state.providerEnabled) throw new AppError('disabled', `the provider of model ${quoteInput(key)} is disabled`);
}

export async function getRun(db: Tx | Deps['db'], actor: Actor, id: string): Promise<Run> {
  requirePermission(actor, 'read');
  const run = await db.run.findUnique({ where: { id } });
  if (!run || run.workspaceId !== actor.workspaceId) throw notFound('run', id);
  return run;
}

export interface StartRunInput {
  agentId: string;
  agentRevisionId?: string | null;
  input?: unknown;
  options?: unknown;
  sessionId?: string | null;
  threadId?: string | null;
  labels?: unknown;
}

const ACTIVE: RunStatus[] = ['accepted', 'running'];

/**
 * Creates an accepted run of the agent (its default revision unless one is named), in the given
 * thread or a new one (in the given session or a new one), with the inbox entry that carries its
 * input. Workers pick it up from there.
 */
export async function startRun(deps: Deps, actor: Actor, input: StartRunInput, requestId?: string) {
  requirePermission(actor, 'write');
  const message = validateMessage(input.input, 'input')!;
  const options = normalizeRunOptions(input.options);
  const labels = input.labels === undefined || input.labels === null ? (options.labels ?? {}) : validateLabels(input.labels);
  if (input.sessionId && input.threadId) throw invalidArgument('name a thread or a session, not both', 'thread_id');
  if (!input.threadId && !options.overrides) {
    // The common case — a new thread, the revision's own configuration — in two round trips.
    const run = await startRunOnNewThread(deps, actor, input, message, options, labels, requestId);
    deps.events.publish('runAccepted', { runId: run.id });
    return { run };
  }
  const created = await deps.db.$transaction(async (tx) => {
    const agent = await agentForNewRun(tx, actor, input.agentId);
    const revisionId = input.agentRevisionId ?? agent.defaultRevisionId!;
    const revision = await tx.agentRevision.findUnique({ where: { id: revisionId } });
    if (!revision || revision.agentId !== agent.id || revision.workspaceId !== actor.workspaceId) throw notFound('agent revision', revisionId);
    const effective = applyOverrides(revision.config as Record<string, unknown>, options.overrides) as { model: string };
    if (options.overrides) await checkConfigReferences(tx, actor, effective as never, 'options.overrides');
    await assertModelUsable(tx, actor.workspaceId, effective.model);
    let thread;
    if (input.threadId) {
      await getThread({ db: tx }, actor, input.threadId);
      // Serialise starts on one thread: its row lock orders them, so "is a run active?" is exact.
      await tx.$queryRaw`SELECT id FROM threads WHERE id = ${input.threadId} FOR UPDATE`;
      thread = await tx.thread.findUniqueOrThrow({ where: { id: input.threadId } });
      if (thread.archivedAt) throw new AppError('failed_precondition', 'the thread is archived; new runs are refused');
      const active = await tx.run.findFirst({ where: { threadId: thread.id, status: { in: ACTIVE } }, select: { id: true } });
      if (active) throw new AppError('conflict', `run ${active.id} is active on this thread; deliver through the thread's inbox (steer, queue or interrupt)`, { active_run_id: active.id });
    } else {
      // A thread made here has no runs and nobody else knows it yet: nothing to lock or check.
      thread = await createThreadRow(tx, actor, { sessionId: input.sessionId });
    }
    const run = await insertRun(tx, actor, { agentId: agent.id, revisionId: revision.id, pinned: Boolean(input.agentRevisionId), thread, input: message, options, labels, trigger: 'input', lineage: 'root' });
    return { run, thread: { ...thread, lastInboxPosition: thread.lastInboxPosition + 1, currentRunId: run.id, lastRunId: run.id } };
  });
  deps.events.publish('runAccepted', { runId: created.run.id });
  void requestId;
  return created;
}

async function startRunOnNewThread(deps: Deps, actor: Actor, input: StartRunInput, message: MessageContent, options: RunOptions, labels: Record<string, string>, requestId?: string) {
  const facts = await newRunFacts(deps.db, actor, input.agentId, input.agentRevisionId ?? null, input.sessionId ?? null);
  if (!facts.agentId) throw notFound('agent', input.agentId);
  assertAgentTakesRuns({ archived: facts.agentArchived });
  if (!facts.revisionId) throw notFound('agent revision', input.agentRevisionId ?? undefined);
  checkModelUsable(String(facts.revisionConfig?.model ?? ''), { found: facts.modelFound, enabled: facts.modelEnabled, providerEnabled: facts.providerEnabled });
  if (!facts.sessionFound) throw notFound('session', input.sessionId!);
  return insertRunOnNewThread(deps.db, actor, {
    agentId: facts.agentId, revisionId: facts.revisionId, pinned: Boolean(input.agentRevisionId), sessionId: input.sessionId ?? null, input: message, options, labels, requestId,
  });
}

export interface InsertRunInput {
  agentId: string;
  revisionId: string;
  pinned: boolean;
  thread: { id: string; sessionId: string; lastInboxPosition: number };
  input: MessageContent;
  options: RunOptions;
  labels: Record<string, string>;
  trigger: 'input' | 'resume' | 'fork' | 'queue';
  lineage: 'root' | 'resume' | 'fork';
  parentRunId?: string | null;
  resume?: Record<string, unknown> | null;
  entryDelivery?: 'steer' | 'queue' | 'interrupt';
}

/** Inserts the run, its (assigned) inbox entry and points the thread at it. */
export async function insertRun(tx: Tx, actor: Actor, input: InsertRunInput) {
  const runId = newId('run');
  const entryId = newId('inboxEntry');
  const position = input.thread.lastInboxPosition + 1;
  await tx.inboxEntry.create({
    data: {
      id: entryId, workspaceId: actor.workspaceId, threadId: input.thread.id, kind: 'message', delivery: input.entryDelivery ?? 'queue', status: 'assigned', position,
      payload: input.input as unknown as Prisma.InputJsonValue, options: input.options as Prisma.InputJsonValue, agentId: input.agentId, agentRevisionId: input.revisionId,
      assignedRunId: runId, principalId: actor.principalId, requestDigest: digestOf({ payload: input.input, options: input.options, agent_id: input.agentId }),
    },
  });
  const run = await tx.run.create({
    data: {
      id: runId, workspaceId: actor.workspaceId, sessionId: input.thread.sessionId, threadId: input.thread.id, agentId: input.agentId, agentRevisionId: input.revisionId,
      revisionSelection: input.pinned ? 'pinned' : 'default', status: 'accepted', trigger: input.trigger, lineage: input.lineage, parentRunId: input.parentRunId ?? null,
      sourceEntryId: entryId, principalId: actor.principalId, maxAttempts: 3, input: input.input as unknown as Prisma.InputJsonValue,
      options: input.options as Prisma.InputJsonValue, labels: input.labels, resume: (input.resume ?? undefined) as Prisma.InputJsonValue | undefined,
      memoryMounts: [], environmentMounts: [],
    },
  });
  await tx.thread.update({ where: { id: input.thread.id }, data: { lastInboxPosition: position, currentRunId: runId, lastRunId: runId } });
  // Delivered at commit to every worker process listening (in-process workers also get an event).
  await tx.$executeRaw`SELECT pg_notify('wsa_run_accepted', ${runId})`;
  await recordAudit(tx, {
    workspaceId: actor.workspaceId, principalId: actor.principalId, action: 'create', resourceKind: 'run', resourceId: runId, version: 1,
    changes: { agent_id: { from: null, to: input.agentId }, agent_revision_id: { from: null, to: input.revisionId }, thread_id: { from: null, to: input.thread.id } },
  });
  return run;
}

export interface RunListArgs {
  agentId?: string | null;
  sessionId?: string | null;
  threadId?: string | null;
  principalId?: string | null;
  status?: readonly string[] | null;
  createdAfter?: Date | null;
  createdBefore?: Date | null;
  label?: readonly string[] | null;
  limit?: number | null;
  cursor?: string | null;
}

/** Newest first. `status` may repeat (any of). */
export async function listRuns(deps: Deps, actor: Actor, args: RunListArgs) {
  requirePermission(actor, 'read');
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const after = decodeCursor('runs', args.cursor);
  for (const status of args.status ?? []) {
    if (!(RUN_STATUSES as readonly string[]).includes(status)) throw invalidArgument(`status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
  }
  const rows = await deps.db.run.findMany({
    where: {
      workspaceId: actor.workspaceId,
      ...(args.agentId ? { agentId: args.agentId } : {}), ...(args.sessionId ? { sessionId: args.sessionId } : {}),
      ...(args.threadId ? { threadId: args.threadId } : {}), ...(args.principalId ? { principalId: args.principalId } : {}),
      ...(args.status?.length ? { status: { in: [...args.status] } } : {}),
      ...(args.createdAfter || args.createdBefore ? { createdAt: { ...(args.createdAfter ? { gt: args.createdAfter } : {}), ...(args.createdBefore ? { lt: args.createdBefore } : {}) } } : {}),
      ...labelsWhere(parseLabelSelectors(args.label)),
      ...(after ? { id: { lt: String(after[0]) } } : {}),
    },
    orderBy: { id: 'desc' }, take: size + 1,
  });
  return toPage(rows, size, 'runs', (row) => [row.id]);
}

/** PATCH a run: labels only, If-Match required. */
export async function updateRunLabels(deps: Deps, actor: Actor, id: string, ifMatch: string | null | undefined, labels: unknown) {
  requirePermission(actor, 'write');
  const data = { labels: validateLabels(labels) };
  return deps.db.$transaction(async (tx) => {
    const run = await getRun(tx, actor, id);
    return changeVersioned({ tx, actor, delegate: tx.run as never, row: run, ifMatch, resourceKind: 'run', action: 'update', data, recordsUpdater: false }) as Promise<Run>;
  });
}

/**
 * Cancels a run: an accepted or waiting run is cancelled at once; a running one is marked
 * (cancel_requested_at) and its worker aborts the model call and seals it. Sealed runs → 409.
 */
export async function cancelRun(deps: Deps, actor: Actor, id: string) {
  requirePermission(actor, 'write');
  const run = await deps.db.$transaction(async (tx) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await getRun(tx, actor, id);
      if (SEALED.has(current.status as RunStatus)) throw new AppError('conflict', `the run is already ${current.status}`);
      const now = new Date();
      if (current.status === 'running') {
        const marked = await tx.run.updateMany({ where: { id, status: 'running', version: current.version }, data: { cancelRequestedAt: now, version: current.version + 1, updatedAt: now } });
        if (marked.count === 1) {
          await tx.$executeRaw`SELECT pg_notify('wsa_run_cancel', ${id})`;
          return tx.run.findUniqueOrThrow({ where: { id } });
        }
        continue;
      }
      const cancelled = await transition(tx, current, 'cancelled', { cancelRequestedAt: now, failure: { code: 'cancelled', message: 'the run was cancelled' } });
      if (cancelled) {
        await tx.thread.updateMany({ where: { id: cancelled.threadId, currentRunId: cancelled.id }, data: { currentRunId: null } });
        return cancelled;
      }
    }
    throw new AppError('conflict', 'the run changed while it was being cancelled; try again');
  });
  deps.events.publish('runCancelRequested', { runId: run.id });
  deps.events.publish('runChanged', run.id, run);
  // A run cancelled before a worker took it frees its thread now: the next inbox entry goes.
  if (run.status === 'cancelled') await promoteNextEntry(deps, run.threadId);
  return run;
}

/** The run and its ancestors, nearest first: resume parents, then the run a forked thread came from. */
export async function runLineage(deps: Deps, actor: Actor, id: string, args: { limit?: number | null; cursor?: string | null }) {
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const start = decodeCursor(`lineage:${id}`, args.cursor);
  const first = await getRun(deps.db, actor, start ? String(start[0]) : id);
  const items: Run[] = [];
  let next: Run | null = first;
  while (next && items.length < size + 1) {
    items.push(next);
    let parentId: string | null = next.parentRunId;
    if (!parentId) {
      const thread: { originRunId: string | null } | null = await deps.db.thread.findUnique({ where: { id: next.threadId }, select: { originRunId: true } });
      parentId = thread?.originRunId ?? null;
    }
    next = parentId ? await deps.db.run.findFirst({ where: { id: parentId, workspaceId: actor.workspaceId } }) : null;
  }
  const page = items.slice(0, size);
  const more = items[size];
  return { items: page, nextCursor: more ? encodeCursor(`lineage:${id}`, [more.id]) : null };
}

/** `{config, revision}`: the pinned revision's configuration with the run's overrides applied. */
export async function runAgentView(deps: Deps, actor: Actor, id: string) {
  const run = await getRun(deps.db, actor, id);
  const revision = await deps.db.agentRevision.findUniqueOrThrow({ where: { id: run.agentRevisionId } });
  const overrides = (run.options as RunOptions).overrides;
  return { config: applyOverrides(revision.config as Record<string, unknown>, overrides), revision };
}
