// Runs: creation (which opens what is missing: session, thread, inbox entry), reads, the list with
// every filter, label changes, cancellation, lineage and the run's agent view. Execution lives in
// src/engine; this module only records what callers ask for and what they may see.
import { resolveRunMounts } from '../environments/environments.js';
import { Prisma, type Run } from '../../generated/prisma/client.js';
import { queryDirect } from '../../db.js';
import { applyOverrides, normalizeRunOptions, runOptionsSchema, agentConfigSchema } from '../agents/documents/config-schema.js';
import { decodeCursor, encodeCursor, pageSize, type Page } from '../../lib/cursor.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { validateLabels } from '../../lib/labels.js';
import { ACTIVE, cancelOrRequest, changeRunLabels, RUN_STATUSES, SEALED, writeNewRun, type RunStatus } from './run-lifecycle.js';
import { planNewRun, type NewRunRequest } from './run-plan.js';
import { agentForNewRun, assertAgentTakesRuns, checkConfigReferences, revisionForNewRun } from '../agents/agents.js';
import { storedResolvedSkills } from './run-skills.js';
import { configuredSkills } from '../agents/skill-references.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { recordAudit } from '../audit/audit.js';
import { assertWithinBudgets } from '../budgets/budget-counters.js';
import { requirePermission } from '../access/permissions.js';
import { getSession, lockThread } from '../threads/threads.js';
import { promoteNextEntry } from './inbox-promotion.js';
import { newRunFacts } from './new-run-facts.js';
import { validateMessage } from './run-input.js';
import { attachAssets } from '../assets/assets.js';
import { RUN_COLUMNS } from '../../storage/columns.js';
import { announceRunChanged, announceThreadChanged } from '../../services/event-topics.js';
import { createdWhere, listQuery, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { readDocument } from '../../lib/json-documents.js';

/** New use of a disabled model or provider (in the caller's workspace) is refused at once with `disabled`. */
export async function assertModelUsable(call: CallContext, key: string) {
  const { db } = call;
  const model = await db.model.findUnique({
    where: { workspaceId_key: { workspaceId: call.actor.workspaceId, key } },
    select: { enabled: true, providerId: true },
  });
  const provider = model ? await db.provider.findUnique({ where: { id: model.providerId }, select: { enabled: true } }) : null;
  checkModelUsable(key, { found: Boolean(model), enabled: Boolean(model?.enabled), providerEnabled: Boolean(provider?.enabled) });
}

export function checkModelUsable(key: string, state: { found: boolean; enabled: boolean; providerEnabled: boolean }) {
  if (!state.found) throw new AppError('not_found', `model ${quoteInput(key)} not found`);
  if (!state.enabled) throw new AppError('disabled', `model ${quoteInput(key)} is disabled`);
  if (!state.providerEnabled) throw new AppError('disabled', `the provider of model ${quoteInput(key)} is disabled`);
}

/** One run of the caller's workspace (raw: on every wait, watch and run query; see src/storage/columns.ts). */
export async function getRun(call: CallContext, id: string): Promise<Run> {
  requirePermission(call.actor, 'read');
  const [run] = await queryDirect<Run>(call.db, Prisma.sql`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ${id}`);
  if (!run || run.workspaceId !== call.actor.workspaceId) throw notFound('run', id);
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
  /** `[{environment_id, name?, working_directory?}]`: ready environments the run works in. */
  environmentMounts?: unknown;
}

export interface StartRunHooks {
  /** Called with the new run's id before its row is written (a wait listens there: waitAfterListening). */
  beforeWrite?: (runId: string) => Promise<void>;
}

/**
 * The new run is its thread's current run now: the thread's followers hear it. (Workers heard of the
 * run from `writeNewRun`.) Inside a caller's transaction the run is not visible yet: the caller
 * announces what it changed after its commit.
 */
function announceCurrentRun(call: CallContext, run: { threadId: string }) {
  if (call.inTransaction) return;
  announceThreadChanged(call.events, run.threadId);
}

/**
 * Creates an accepted run of the agent (its default revision unless one is named), in the given
 * thread or a new one (in the given session or a new one), with the inbox entry that carries its
 * input. Workers pick it up from there.
 */
export async function startRun(call: CallContext, input: StartRunInput, hooks: StartRunHooks = {}) {
  requirePermission(call.actor, 'write');
  const message = await attachAssets(call, validateMessage(input.input, 'input')!, 'input');
  const options = normalizeRunOptions(input.options);
  const labels = input.labels === undefined || input.labels === null ? (options.labels ?? {}) : validateLabels(input.labels);
  if (input.sessionId && input.threadId) throw invalidArgument('name a thread or a session, not both', 'thread_id');
  const request = {
    input: message,
    options,
    labels,
    trigger: 'input',
    lineage: 'root',
    entry: { new: { delivery: 'queue' } },
  } as const;
  const mountsAsked = input.environmentMounts !== undefined && input.environmentMounts !== null;
  if (!input.threadId && !options.overrides && !mountsAsked) {
    // The common case — a new thread, the revision's own configuration — in two round trips.
    const run = await startRunOnNewThread(call, input, request, hooks);
    announceCurrentRun(call, run);
    return { run };
  }
  const created = await inTransaction(call, async (call) => {
    const agent = await agentForNewRun(call, input.agentId);
    const { revision, effective } = await revisionForNewRun(call, agent, input.agentRevisionId, options.overrides);
    if (options.overrides) await checkConfigReferences(call, effective, 'options.overrides');
    await assertModelUsable(call, effective.model);
    await assertWithinBudgets(call, agent.id);
    const environmentMounts = mountsAsked ? await resolveRunMounts(call, input.environmentMounts) : undefined;
    const planned = { ...request, agentId: agent.id, revisionId: revision.id, pinned: Boolean(input.agentRevisionId), environmentMounts };
    if (!input.threadId) {
      // A thread made here has no runs and nobody else knows it yet: nothing to lock or check.
      if (input.sessionId) await getSession(call, input.sessionId);
      return writePlanned(call, planNewRun(call, { ...planned, thread: { new: { sessionId: input.sessionId ?? null } } }), hooks);
    }
    // Serialise starts on one thread: its row lock orders them, so "is a run active?" (read after the
    // lock, in a statement of its own: one with a snapshot from before the lock could miss a start) is exact.
    const thread = await lockThread(call, input.threadId);
    if (thread.archivedAt) throw new AppError('failed_precondition', 'the thread is archived; new runs are refused');
    const active = await call.db.run.findFirst({ where: { threadId: thread.id, status: { in: [...ACTIVE] } }, select: { id: true } });
    if (active)
      throw new AppError(
        'conflict',
        `run ${active.id} is active on this thread; deliver through the thread's inbox (steer, queue or interrupt)`,
        { active_run_id: active.id },
      );
    return writePlanned(call, planNewRun(call, { ...planned, thread: { existing: thread } }), hooks);
  });
  announceCurrentRun(call, created);
  return { run: created };
}

async function startRunOnNewThread(
  call: CallContext,
  input: StartRunInput,
  request: Omit<NewRunRequest, 'agentId' | 'revisionId' | 'pinned' | 'thread'>,
  hooks: StartRunHooks,
) {
  const facts = await newRunFacts(call, input.agentId, input.agentRevisionId ?? null, input.sessionId ?? null);
  if (!facts.agentId) throw notFound('agent', input.agentId);
  assertAgentTakesRuns({ archived: facts.agentArchived });
  if (!facts.revisionId) throw notFound('agent revision', input.agentRevisionId ?? undefined);
  checkModelUsable(String(facts.revisionConfig?.model ?? ''), {
    found: facts.modelFound,
    enabled: facts.modelEnabled,
    providerEnabled: facts.providerEnabled,
  });
  if (!facts.sessionFound) throw notFound('session', input.sessionId!);
  await assertWithinBudgets(call, facts.agentId);
  return writePlanned(
    call,
    planNewRun(call, {
      ...request,
      agentId: facts.agentId,
      revisionId: facts.revisionId,
      pinned: Boolean(input.agentRevisionId),
      thread: { new: { sessionId: input.sessionId ?? null } },
    }),
    hooks,
  );
}

async function writePlanned(call: CallContext, plan: ReturnType<typeof planNewRun>, hooks: StartRunHooks) {
  await hooks.beforeWrite?.(plan.run.id);
  return writeNewRun(call, plan);
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
export async function listRuns(call: CallContext, args: RunListArgs) {
  requirePermission(call.actor, 'read');
  const query = listQuery(newestFirst('runs'), call, args);
  for (const status of args.status ?? []) {
    if (!(RUN_STATUSES as readonly string[]).includes(status))
      throw invalidArgument(`status must be one of ${RUN_STATUSES.join(', ')}`, 'status');
  }
  const rows = await call.db.run.findMany({
    where: query.where({
      ...(args.agentId ? { agentId: args.agentId } : {}),
      ...(args.sessionId ? { sessionId: args.sessionId } : {}),
      ...(args.threadId ? { threadId: args.threadId } : {}),
      ...(args.principalId ? { principalId: args.principalId } : {}),
      ...(args.status?.length ? { status: { in: [...args.status] } } : {}),
      ...createdWhere(args.createdAfter, args.createdBefore, 'run'),
    }),
    orderBy: query.orderBy,
    take: query.take,
  });
  return query.page(rows);
}

/** PATCH a run: labels only, If-Match required. */
export async function updateRunLabels(call: CallContext, id: string, ifMatch: string | null | undefined, labels: unknown) {
  requirePermission(call.actor, 'write');
  const valid = validateLabels(labels);
  return inTransaction(call, async (call) => changeRunLabels(call, await getRun(call, id), ifMatch, valid));
}

/**
 * Cancels a run: an accepted or waiting run is cancelled at once; a running one is marked
 * (cancel_requested_at) and its worker aborts the model call and seals it. Sealed runs → 409.
 */
export async function cancelRun(call: CallContext, id: string) {
  requirePermission(call.actor, 'write');
  const run = await inTransaction(call, async (call) => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await getRun(call, id);
      if (SEALED.has(current.status as RunStatus)) throw new AppError('conflict', `the run is already ${current.status}`);
      const changed = await cancelOrRequest(call.db, current);
      if (!changed) continue;
      // Cancelled at once, or asked of the worker running it: either way the caller's request is audited.
      await recordAudit(call, {
        action: 'cancel',
        resourceKind: 'run',
        resourceId: changed.id,
        version: changed.version,
        changes:
          changed.status === 'cancelled'
            ? { status: { from: current.status, to: 'cancelled' } }
            : { cancelRequestedAt: { from: current.cancelRequestedAt, to: changed.cancelRequestedAt } },
      });
      return changed;
    }
    throw new AppError('conflict', 'the run changed while it was being cancelled; try again');
  });
  call.events.publish('runCancelRequested', { runId: run.id });
  announceRunChanged(call.events, run);
  // Cancelled at once, it is no longer its thread's current run.
  if (run.status === 'cancelled' && !call.inTransaction) announceThreadChanged(call.events, run.threadId);
  // A run cancelled before a worker took it frees its thread now: the next inbox entry goes.
  if (run.status === 'cancelled') await promoteNextEntry(call, run.threadId);
  return run;
}

/**
 * The run and its ancestors, nearest first: resume parents, then the run a forked thread came from.
 * A position names the run a page starts with (null: past the root, where nothing follows).
 */
export async function runLineage(
  call: CallContext,
  id: string,
  args: { limit?: number | null; cursor?: string | null },
): Promise<Page<Run>> {
  const size = pageSize(args.limit, { default: 50, max: 100 });
  const list = `lineage:${id}`;
  const start = decodeCursor(list, args.cursor);
  if (start && start[0] === null) return { items: [], nextCursor: null, cursorAt: () => encodeCursor(list, [null]) };
  const first = await getRun(call, start ? String(start[0]) : id);
  const items: Run[] = [];
  let next: Run | null = first;
  while (next && items.length < size + 1) {
    items.push(next);
    let parentId: string | null = next.parentRunId;
    if (!parentId) {
      const thread: { originRunId: string | null } | null = await call.db.thread.findUnique({
        where: { id: next.threadId },
        select: { originRunId: true },
      });
      parentId = thread?.originRunId ?? null;
    }
    next = parentId ? await call.db.run.findFirst({ where: { id: parentId, workspaceId: call.actor.workspaceId } }) : null;
  }
  const page = items.slice(0, size);
  const more = items[size];
  // After the item at `index` comes its ancestor: the next item, or for the page's last one `more`.
  const cursorAt = (index: number) => encodeCursor(list, [(index + 1 < page.length ? page[index + 1]! : more)?.id ?? null]);
  return { items: page, nextCursor: more ? cursorAt(page.length - 1) : null, cursorAt };
}

/**
 * `{config, revision, resolvedSkills}`: the pinned revision's configuration with the run's overrides
 * applied, and the skills the run resolved (null while a run with skills has not started).
 */
export async function runAgentView(call: CallContext, id: string) {
  const run = await getRun(call, id);
  const revision = await call.db.agentRevision.findUniqueOrThrow({ where: { id: run.agentRevisionId } });
  const { overrides } = readDocument(runOptionsSchema, run.options, 'runs.options');
  const config = applyOverrides(readDocument(agentConfigSchema, revision.config, 'agent_revisions.config'), overrides);
  const { pins, builtin } = configuredSkills(config);
  const resolvedSkills = storedResolvedSkills(run.resolvedSkills) ?? (pins.length || builtin.length ? null : []);
  return { config, revision, resolvedSkills };
}

/** Runs by id for `node(id)` and relations (src/services/nodes.ts). */
export const loadRuns: NodeRowsLoader<Run> = (call, ids) => call.db.run.findMany({ where: idsInWorkspace(call, ids) });
