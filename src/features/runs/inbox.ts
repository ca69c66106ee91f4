// A thread's inbox: entries (messages) delivered to runs. With no active run an entry starts a run
// at once. With one active: `queue` waits for it to end, `interrupt` cancels it and goes next,
// `steer` joins it at its next model request (or goes next if it ends first). Fork also lands
// here: it opens a new thread of the same session from a run's committed history.
import { canonicallyEqual } from '../../lib/canonical-json.js';
import { Prisma as PrismaSql, type InboxEntry, type Run, type Thread } from '../../generated/prisma/client.js';
import { prefixedColumns, returningColumns, takePrefixed } from '../../storage/columns.js';
import type { Prisma } from '../../db.js';
import { normalizeRunOptions } from '../agents/documents/config-schema.js';
import { digestOf } from '../../lib/canonical-json.js';
import { checkIfMatch, formatEtag } from '../../lib/etag.js';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { storedLabels } from '../../lib/labels.js';
import { RUN_STEER_CHANNEL, SEALED, writeNewDelivery, type RunStatus, type WrittenDelivery } from './run-lifecycle.js';
import { DELIVERIES, planNewRun, type Delivery } from './run-plan.js';
import { assertAgentTakesRuns } from '../agents/agents.js';
import { newRunFacts } from './new-run-facts.js';
import { recordAudit } from '../audit/audit.js';
import type { Actor } from '../../services/deps.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { validateIdempotencyKey, withIdempotency } from '../../services/idempotency.js';
import { assertWithinBudgets } from '../budgets/budget-counters.js';
import { requirePermission } from '../access/permissions.js';
import { cancelRun, getRun } from './runs.js';
import { storedMessage, validateMessage, type MessageContent } from './run-input.js';
import { attachAssets } from '../assets/assets.js';
import { getThread, lockThread } from '../threads/threads.js';
import { activeRun } from './inbox-promotion.js';
import { announceThreadChanged } from '../../services/event-topics.js';
import { listQuery } from '../../services/list-query.js';
import { storedMessageHistory } from '../threads/thread-documents.js';
import type { NodeRowsLoader } from '../../services/nodes.js';

export const ENTRY_STATUSES = ['pending', 'assigned', 'incorporated', 'completed', 'failed', 'cancelled'] as const;

/**
 * An entry as the services return it. Entries carry no version of their own: an edit names the
 * thread's ETag in If-Match (it moves the thread's version), so every entry read carries that ETag.
 */
export type InboxEntryView = InboxEntry & { threadEtag: string };

function withThreadEtag(entry: InboxEntry, thread: Pick<Thread, 'id' | 'version'>): InboxEntryView {
  return { ...entry, threadEtag: formatEtag(thread.id, thread.version) };
}

export interface DeliveryResult {
  entry: InboxEntryView;
  run: Run | null;
  thread: Thread;
}

function validateDelivery(value: unknown): Delivery {
  if (value === undefined || value === null) return 'queue';
  if (!(DELIVERIES as readonly unknown[]).includes(value))
    throw invalidArgument(`delivery must be one of ${DELIVERIES.join(', ')}`, 'delivery');
  return value as Delivery;
}

/**
 * The agent an entry runs — the one it names, else the thread's last run's — and the revision it
 * pins, from the facts a new run reads (remembered until the configuration changes, as a run started
 * on a new thread reads them): no statement when they are warm.
 */
async function agentFor(call: CallContext, thread: Thread, agentId: string | null | undefined, revisionId: string | null | undefined) {
  let id = agentId;
  if (!id && thread.lastRunId) id = (await call.db.run.findUnique({ where: { id: thread.lastRunId }, select: { agentId: true } }))?.agentId;
  if (!id) throw invalidArgument('agent_id is required: the thread has no earlier run to take the agent from', 'agent_id');
  const facts = await newRunFacts(call, id, revisionId ?? null, null);
  if (!facts.agentId) throw notFound('agent', id);
  assertAgentTakesRuns({ archived: facts.agentArchived });
  if (!facts.revisionId) throw notFound('agent revision', revisionId ?? undefined);
  return { agentId: facts.agentId, revisionId: facts.revisionId, pinned: Boolean(revisionId) };
}

export interface DeliverInput {
  kind?: unknown;
  delivery?: unknown;
  payload?: unknown;
  agentId?: string | null;
  agentRevisionId?: string | null;
  options?: unknown;
}

export async function deliverToInbox(
  call: CallContext,
  threadId: string,
  input: DeliverInput,
  idempotencyKey?: string | null,
): Promise<DeliveryResult> {
  requirePermission(call.actor, 'write');
  if (input.kind !== undefined && input.kind !== null && input.kind !== 'message') throw invalidArgument('kind must be message', 'kind');
  const delivery = validateDelivery(input.delivery);
  const payload = await attachAssets(call, validateMessage(input.payload, 'payload')!, 'payload');
  const options = normalizeRunOptions(input.options);
  const key = validateIdempotencyKey(idempotencyKey, false);
  await getThread(call, threadId);
  // What the delivery did, as stored for an idempotent repeat (a JSON document).
  type Delivered = { entry_id: string; run_id: string; interrupt?: string };
  // The answer is the delivery as it commits, read in its transaction: the same whatever a worker
  // (woken by the commit) does meanwhile; a wait then replaces only the run. An interrupt is
  // answered after the cancel it causes.
  let committed: DeliveryResult | null = null;
  const effect = async (call: CallContext, recordResult?: (value: Delivered) => PrismaSql.Sql): Promise<Delivered> => {
    const thread = await lockThread(call, threadId);
    if (thread.archivedAt) throw new AppError('failed_precondition', 'the thread is archived; it takes no new entries');
    const { agentId, revisionId, pinned } = await agentFor(call, thread, input.agentId, input.agentRevisionId);
    await assertWithinBudgets(call, agentId);
    const active = await activeRun(call.db, thread.id);
    if (!active) {
      const plan = planNewRun(call, {
        agentId,
        revisionId,
        pinned,
        input: payload,
        options,
        labels: options.labels ?? {},
        trigger: 'input',
        lineage: 'root',
        thread: { existing: thread },
        entry: { new: { delivery } },
      });
      // The run, its entry, the idempotency record's result and the answer: one statement.
      const delivered = { entry_id: plan.run.sourceEntryId as string, run_id: plan.run.id };
      committed = deliveryResult(await writeNewDelivery(call, plan, recordResult?.(delivered)));
      return delivered;
    }
    const position = thread.lastInboxPosition + 1;
    const entry = await call.db.inboxEntry.create({
      data: {
        id: newId('inboxEntry'),
        workspaceId: call.actor.workspaceId,
        threadId: thread.id,
        kind: 'message',
        delivery,
        status: 'pending',
        position,
        payload: payload,
        options: options as Prisma.InputJsonValue,
        agentId,
        agentRevisionId: pinned ? revisionId : null,
        principalId: call.actor.principalId,
        originRunId: active.id,
        requestDigest: digestOf({ delivery, payload, options, agent_id: agentId }),
        requestId: call.requestId,
      },
    });
    await call.db.thread.update({ where: { id: thread.id }, data: { lastInboxPosition: position } });
    if (delivery === 'steer') await hintSteer(call, thread.id);
    await recordAudit(call, {
      action: 'create',
      resourceKind: 'inbox_entry',
      resourceId: entry.id,
      changes: { delivery: { from: null, to: delivery } },
    });
    return { entry_id: entry.id, run_id: active.id, interrupt: delivery === 'interrupt' ? active.id : undefined };
  };
  const effectAndAnswer = async (bound: CallContext, recordResult?: (value: Delivered) => PrismaSql.Sql) => {
    committed = null;
    const delivered = await effect(bound, recordResult);
    if (!delivered.interrupt && !committed) committed = await loadResult(bound, delivered.entry_id);
    return delivered;
  };
  const result = key
    ? (await withIdempotency(call, { scope: `threads.inbox:${threadId}`, key, request: { input, delivery }, effect: effectAndAnswer }))
        .value
    : await inTransaction(call, (bound) => effectAndAnswer(bound));
  if (result.interrupt) await cancelRun(call, result.interrupt).catch(() => undefined); // it may have ended meanwhile
  const answer = committed ?? (await loadResult(call, result.entry_id)); // a replay: as it is now
  announceThreadChanged(call.events, threadId);
  return answer;
}

const RESULT_COLUMNS = PrismaSql.sql`${prefixedColumns(PrismaSql.InboxEntryScalarFieldEnum, 'e', 'entry')}, ${prefixedColumns(
  PrismaSql.ThreadScalarFieldEnum,
  't',
  'thread',
)}, ${prefixedColumns(PrismaSql.RunScalarFieldEnum, 'r', 'run')}`;

/** A delivery's answer from what its statement wrote (writeNewDelivery): the entry, its thread and the run it started. */
function deliveryResult({ run, entry, thread }: WrittenDelivery): DeliveryResult {
  return { entry: withThreadEtag(entry, thread), run, thread };
}

/** The entry, its thread and its run (the one it started or joined), as one snapshot in one statement. */
async function loadResult(call: CallContext, entryId: string): Promise<DeliveryResult> {
  const rows = await call.db.$queryRaw<Record<string, unknown>[]>`
    SELECT ${RESULT_COLUMNS} FROM inbox_entries e JOIN threads t ON t.id = e.thread_id
      LEFT JOIN runs r ON r.id = coalesce(e.assigned_run_id, e.origin_run_id)
    WHERE e.id = ${entryId}`;
  const row = rows[0]!;
  const entry = takePrefixed<InboxEntry>(row, 'entry');
  const thread = takePrefixed<Thread>(row, 'thread');
  return { entry: withThreadEtag(entry, thread), run: row['run.id'] === null ? null : takePrefixed<Run>(row, 'run'), thread };
}

export async function listInbox(
  call: CallContext,
  threadId: string,
  args: { status?: readonly string[] | null; limit?: number | null; cursor?: string | null },
) {
  const thread = await getThread(call, threadId);
  // The thread's queue in order: scoped by the thread (found in the caller's workspace above).
  const query = listQuery(
    { list: `inbox:${threadId}`, sort: { field: 'position', direction: 'asc', numeric: true }, workspaceScoped: false },
    call,
    { limit: args.limit, cursor: args.cursor },
  );
  for (const status of args.status ?? [])
    if (!(ENTRY_STATUSES as readonly string[]).includes(status))
      throw invalidArgument(`status must be one of ${ENTRY_STATUSES.join(', ')}`, 'status');
  const rows = await call.db.inboxEntry.findMany({
    where: query.where({ threadId, ...(args.status?.length ? { status: { in: [...args.status] } } : {}) }),
    orderBy: query.orderBy,
    take: query.take,
  });
  const page = query.page(rows);
  return { ...page, items: page.items.map((entry) => withThreadEtag(entry, thread)) };
}

/** The entry with its thread's ETag (read first, so a thread change in between makes it stale, never too new). */
export async function getInboxEntry(call: CallContext, threadId: string, entryId: string): Promise<InboxEntryView> {
  const thread = await getThread(call, threadId);
  const entry = await call.db.inboxEntry.findUnique({ where: { id: entryId } });
  if (!entry || entry.threadId !== threadId) throw notFound('inbox entry', entryId);
  return withThreadEtag(entry, thread);
}

/** Edits a pending entry; If-Match names the thread's ETag, and the thread's version moves. */
export async function updateInboxEntry(
  call: CallContext,
  threadId: string,
  entryId: string,
  ifMatch: string | null | undefined,
  patch: { payload?: unknown; options?: unknown; delivery?: unknown },
): Promise<DeliveryResult> {
  requirePermission(call.actor, 'write');
  const data: Record<string, unknown> = {};
  if (patch.payload !== undefined) data.payload = await attachAssets(call, validateMessage(patch.payload, 'payload'), 'payload');
  if (patch.options !== undefined) data.options = normalizeRunOptions(patch.options) as Prisma.InputJsonValue;
  if (patch.delivery !== undefined) data.delivery = validateDelivery(patch.delivery);
  const edited = await inTransaction(call, async (call) => {
    const thread = await lockThread(call, threadId);
    checkIfMatch(ifMatch, thread.id, thread.version);
    const entry = await call.db.inboxEntry.findUnique({ where: { id: entryId } });
    if (!entry || entry.threadId !== threadId) throw notFound('inbox entry', entryId);
    if (entry.status !== 'pending') throw new AppError('conflict', `only pending entries can be edited; this one is ${entry.status}`);
    // An edit that changes nothing keeps the thread's version and records nothing (the no-op rule).
    const changed = Object.keys(data).filter((key) => !canonicallyEqual(data[key], (entry as Record<string, unknown>)[key]));
    if (changed.length === 0) return false;
    await call.db.inboxEntry.update({
      where: { id: entry.id },
      data: { ...Object.fromEntries(changed.map((key) => [key, data[key]])), updatedAt: new Date() },
    });
    await call.db.thread.update({
      where: { id: thread.id },
      data: { version: thread.version + 1, updatedAt: new Date(), updatedById: call.actor.principalId },
    });
    if (changed.includes('delivery') && data.delivery === 'steer') await hintSteer(call, thread.id);
    await recordAudit(call, {
      action: 'update',
      resourceKind: 'inbox_entry',
      resourceId: entry.id,
      changes: Object.fromEntries(changed.map((k) => [k, { from: null, to: '[changed]' }])),
    });
    return true;
  });
  if (edited && !call.inTransaction) announceThreadChanged(call.events, threadId);
  return loadResult(call, entryId);
}

/**
 * Tells the workers, at the commit, that the thread has a pending steer entry: its running attempt
 * reads its steer entries at its next model request (it reads them only when told, or when claimed
 * with one pending).
 */
async function hintSteer(call: CallContext, threadId: string): Promise<void> {
  await call.db.$executeRaw`SELECT pg_notify(${RUN_STEER_CHANNEL}, ${threadId})`;
}

/** Pending steer entries join a running run at its next model request; returns their messages. */
export async function takeSteerEntries(
  call: CallContext<Actor | null>,
  run: { id: string; threadId: string },
  checkpoint: number,
): Promise<MessageContent[]> {
  const pendingSteers = { threadId: run.threadId, status: 'pending', delivery: 'steer' };
  // A worker asks only when hinted (engine/steer-hints.ts), and even then usually finds none: one
  // read, instead of a transaction that held a pool connection over three round trips (BEGIN, the
  // read, COMMIT). An entry arriving just after the read joins at the next model request, as one
  // arriving a moment later always did.
  if (!(await call.db.inboxEntry.findFirst({ where: pendingSteers, select: { id: true } }))) return [];
  const taken = await inTransaction(call, async (call) => {
    const entries = await call.db.inboxEntry.findMany({ where: pendingSteers, orderBy: { position: 'asc' } });
    if (!entries.length) return [];
    await call.db.inboxEntry.updateMany({
      where: { id: { in: entries.map((e) => e.id) }, status: 'pending' },
      data: { status: 'incorporated', assignedRunId: run.id, incorporatedCheckpointSeq: checkpoint },
    });
    return entries.map((entry) => storedMessage(entry.payload));
  });
  // The entries are the run's now (incorporated): followers of the thread see their inbox change.
  if (taken.length && !call.inTransaction) announceThreadChanged(call.events, run.threadId);
  return taken;
}

/** Fork: a new thread of the run's session continuing from the run's committed history. */
export async function forkRun(
  call: CallContext,
  runId: string,
  idempotencyKey: string | null | undefined,
  input: { agentId?: string | null; payload?: unknown; options?: unknown },
): Promise<DeliveryResult> {
  requirePermission(call.actor, 'write');
  const key = validateIdempotencyKey(idempotencyKey, true)!;
  // An unknown run answers 404 before the payload's checks and the key's replay or conflict; the effect
  // reads the run and its thread again inside the key's transaction.
  await getRun(call, runId);
  const payload = await attachAssets(call, validateMessage(input.payload, 'payload')!, 'payload');
  const options = normalizeRunOptions(input.options);
  let committed: DeliveryResult | null = null;
  const { value } = await withIdempotency<{ entry_id: string; run_id: string }>(call, {
    scope: `runs.fork:${runId}`,
    key,
    request: { agent_id: input.agentId ?? null, payload: input.payload, options: input.options ?? null },
    effect: async (call, recordResult) => {
      const { run, sourceThread } = await forkSource(call, runId);
      if (!SEALED.has(run.status as RunStatus) && run.status !== 'waiting')
        throw new AppError('conflict', `only a sealed or waiting run has committed history to fork; this one is ${run.status}`);
      const history = storedMessageHistory(sourceThread.messageHistory).slice(0, run.checkpointSeq);
      const { agentId, revisionId, pinned } = await agentFor(
        call,
        { ...sourceThread, lastRunId: run.id },
        input.agentId ?? run.agentId,
        input.agentId ? null : run.agentRevisionId,
      );
      await assertWithinBudgets(call, agentId);
      const plan = planNewRun(call, {
        agentId,
        revisionId,
        pinned: pinned || !input.agentId,
        input: payload,
        options,
        labels: options.labels ?? {},
        trigger: 'fork',
        lineage: 'fork',
        parentRunId: run.id,
        thread: {
          new: {
            sessionId: run.sessionId,
            labels: storedLabels(sourceThread.labels, 'threads.labels'),
            origin: { runId: run.id, threadId: run.threadId },
            messageHistory: history,
          },
        },
        entry: { new: { delivery: 'queue' } },
      });
      // The new thread, entry and run, the idempotency record's result and the answer as it commits
      // (see deliverToInbox): one statement.
      const forked = { entry_id: plan.run.sourceEntryId as string, run_id: plan.run.id };
      committed = deliveryResult(await writeNewDelivery(call, plan, recordResult(forked)));
      return forked;
    },
  });
  const answer = committed ?? (await loadResult(call, value.entry_id)); // a replay: as it is now
  announceThreadChanged(call.events, answer.thread.id);
  return answer;
}

const FORK_SOURCE_COLUMNS = PrismaSql.sql`${returningColumns(PrismaSql.RunScalarFieldEnum, 'r')}, ${prefixedColumns(
  PrismaSql.ThreadScalarFieldEnum,
  't',
  'thread',
)}, s.id AS "sessionFound"`;

/** The run a fork continues, its thread and whether its session is there, in one statement. */
async function forkSource(call: CallContext, runId: string): Promise<{ run: Run; sourceThread: Thread }> {
  requirePermission(call.actor, 'read');
  const rows = await call.db.$queryRaw<Record<string, unknown>[]>`
    SELECT ${FORK_SOURCE_COLUMNS} FROM runs r JOIN threads t ON t.id = r.thread_id
      LEFT JOIN sessions s ON s.id = r.session_id AND s.workspace_id = r.workspace_id
    WHERE r.id = ${runId} AND r.workspace_id = ${call.actor.workspaceId}`;
  if (rows.length === 0) throw notFound('run', runId);
  const row = rows[0]!;
  const run = Object.fromEntries(Object.entries(row).filter(([key]) => !key.includes('.') && key !== 'sessionFound')) as unknown as Run;
  if (row.sessionFound === null) throw notFound('session', run.sessionId);
  return { run, sourceThread: takePrefixed<Thread>(row, 'thread') };
}

const ENTRY_NODE_COLUMNS = returningColumns(PrismaSql.InboxEntryScalarFieldEnum, 'e');

/** Inbox entries by id for `node(id)` (src/services/nodes.ts), with their thread's ETag (what an edit names in ifMatch), in one statement. */
export const loadInboxEntries: NodeRowsLoader<InboxEntryView> = async (call, ids) => {
  const rows = await call.db.$queryRaw<(InboxEntry & { threadVersion: number })[]>`
    SELECT ${ENTRY_NODE_COLUMNS}, t.version AS "threadVersion"
    FROM inbox_entries e JOIN threads t ON t.id = e.thread_id
    WHERE e.id IN (${PrismaSql.join([...ids])}) AND e.workspace_id = ${call.actor.workspaceId}`;
  return rows.map(({ threadVersion, ...entry }) => ({ ...entry, threadEtag: formatEtag(entry.threadId, threadVersion) }));
};
