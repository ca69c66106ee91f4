// One plan for every new run. Whatever starts a run — a new thread on the hot path, input to an
// existing thread, a queued inbox entry's turn, a resume batch, a fork — describes it here, and
// `planNewRun` decides its rows: the session and thread when they are new (or the thread's
// pointers when it exists), the inbox entry that carries its input (new, or the pending one it
// takes), the run, and the audit rows, all with the caller's request id. `writeNewRun` in
// run-lifecycle.ts writes a plan in one statement, so every path creates the same rows.
import type { Prisma } from '../../db.js';
import type { RunOptions } from '../agents/documents/config-schema.js';
import { digestOf } from '../../lib/canonical-json.js';
import { newId } from '../../lib/ids.js';
import type { AuditRow } from '../audit/audit.js';
import type { CallContext } from '../../services/call-context.js';
import type { MessageContent } from './run-input.js';

/** What started a run: input to a thread, a resume batch, a fork, or a queued inbox entry's turn. */
export const TRIGGERS = ['input', 'resume', 'fork', 'queue', 'subagent'] as const;
export type RunTrigger = (typeof TRIGGERS)[number];
/**
 * Where a run's history comes from: its thread (root), the waiting run it answers, the run it forks,
 * or (subagent) the run whose tool call delegated to it — a child thread of its own.
 */
export const LINEAGES = ['root', 'resume', 'fork', 'subagent'] as const;
export type RunLineage = (typeof LINEAGES)[number];

/** A row to insert, by Prisma field name (created_at and updated_at are the statement's time). */
export type PlannedRow = Record<string, string | number | boolean | null | Prisma.InputJsonValue | undefined>;

/** How an inbox entry joins its thread: `steer` an active run, `queue` behind it, or `interrupt` it. */
export const DELIVERIES = ['steer', 'queue', 'interrupt'] as const;
export type Delivery = (typeof DELIVERIES)[number];

export interface NewRunRequest {
  agentId: string;
  revisionId: string;
  /** Whether the revision was named (pinned) or is the agent's default. */
  pinned: boolean;
  input: MessageContent;
  options: RunOptions;
  labels: Record<string, string>;
  trigger: RunTrigger;
  lineage: RunLineage;
  parentRunId?: string | null;
  /** A subagent's child run continues its delegating call's trace, beneath the call's span. */
  trace?: { traceId: string; spanId: string };
  resume?: Record<string, unknown> | null;
  /** Environments the caller mounted at the start (`environment_mounts`), already checked. */
  environmentMounts?: unknown[];
  /** Where it runs: a new thread (in a new session unless one is named) or an existing thread. */
  thread:
    | {
        new: {
          sessionId: string | null;
          labels?: Record<string, string>;
          /** A fork's source, or (with `subagent`) the run and tool call that delegated to a subagent. */
          origin?: { runId: string; threadId: string; subagent?: { name: string; toolCallId: string } };
          messageHistory?: unknown[];
        };
      }
    | { existing: { id: string; sessionId: string; lastInboxPosition: number } };
  /** The inbox entry that carries its input: a new one, or a pending entry whose turn it is. */
  entry: { new: { delivery: Delivery } } | { pending: { id: string } };
}

export interface NewRunPlan {
  session: PlannedRow | null;
  thread: { insert: PlannedRow } | { update: { id: string; lastInboxPosition?: number } };
  entry: { insert: PlannedRow } | { assign: { id: string } };
  run: PlannedRow & { id: string };
  audits: AuditRow[];
  /** The waiting run a resume answers: marked resumed by this run in the same statement. */
  resumes: string | null;
}

export const MAX_ATTEMPTS = 3;

/**
 * Who starts the run and which request asked for it come from the call: the caller, or (a queued
 * entry's turn) whoever delivered the entry, in the request that delivered it. The request id goes
 * on every audit row (null only when there was none).
 */
export function planNewRun(call: Pick<CallContext, 'actor' | 'requestId'>, request: NewRunRequest): NewRunPlan {
  const { workspaceId, principalId } = call.actor;
  const { requestId } = call;
  const runId = newId('run');
  const audit = (resourceKind: string, resourceId: string, changes: Record<string, unknown>): AuditRow => ({
    workspaceId,
    principalId,
    action: 'create',
    resourceKind,
    resourceId,
    version: 1,
    changes,
    requestId,
  });
  const audits: AuditRow[] = [];

  let session: PlannedRow | null = null;
  let thread: NewRunPlan['thread'];
  let threadId: string;
  let sessionId: string;
  let position: number | null = null;
  const entryIsNew = 'new' in request.entry;
  if ('new' in request.thread) {
    const wanted = request.thread.new;
    sessionId = wanted.sessionId ?? newId('session');
    if (wanted.sessionId === null) {
      session = { id: sessionId, workspaceId, title: '', labels: {}, version: 1, createdById: principalId, updatedById: principalId };
      audits.push(audit('session', sessionId, {}));
    }
    threadId = newId('thread');
    position = entryIsNew ? 1 : null;
    thread = {
      insert: {
        id: threadId,
        workspaceId,
        sessionId,
        currentRunId: runId,
        lastRunId: runId,
        origin: wanted.origin ? (wanted.origin.subagent ? 'subagent' : 'fork') : 'new',
        originRunId: wanted.origin?.runId ?? null,
        originThreadId: wanted.origin?.threadId ?? null,
        originToolCallId: wanted.origin?.subagent?.toolCallId ?? null,
        subagent: wanted.origin?.subagent?.name ?? null,
        labels: wanted.labels ?? {},
        mcpHeaders: {},
        messageHistory: (wanted.messageHistory ?? []) as Prisma.InputJsonValue,
        lastInboxPosition: position ?? 0,
        version: 1,
        createdById: principalId,
        updatedById: principalId,
      },
    };
    audits.push(audit('thread', threadId, { session_id: { from: null, to: sessionId } }));
  } else {
    const existing = request.thread.existing;
    threadId = existing.id;
    sessionId = existing.sessionId;
    if (entryIsNew) position = existing.lastInboxPosition + 1;
    thread = { update: { id: threadId, ...(position === null ? {} : { lastInboxPosition: position }) } };
  }

  let entry: NewRunPlan['entry'];
  let entryId: string;
  if ('new' in request.entry) {
    entryId = newId('inboxEntry');
    entry = {
      insert: {
        id: entryId,
        workspaceId,
        threadId,
        kind: 'message',
        delivery: request.entry.new.delivery,
        status: 'assigned',
        position,
        payload: request.input,
        options: request.options as Prisma.InputJsonValue,
        agentId: request.agentId,
        agentRevisionId: request.revisionId,
        assignedRunId: runId,
        // A subagent's entry names the run that delegated to it.
        originRunId: request.lineage === 'subagent' ? (request.parentRunId ?? null) : null,
        principalId,
        requestDigest: digestOf({ payload: request.input, options: request.options, agent_id: request.agentId }),
        requestId,
      },
    };
  } else {
    entryId = request.entry.pending.id;
    entry = { assign: { id: entryId } };
  }

  const run = {
    id: runId,
    workspaceId,
    sessionId,
    threadId,
    agentId: request.agentId,
    agentRevisionId: request.revisionId,
    revisionSelection: request.pinned ? 'pinned' : 'default',
    status: 'accepted',
    trigger: request.trigger,
    lineage: request.lineage,
    parentRunId: request.parentRunId ?? null,
    traceId: request.trace?.traceId,
    traceParentSpanId: request.trace?.spanId,
    sourceEntryId: entryId,
    principalId,
    attempts: 0,
    maxAttempts: MAX_ATTEMPTS,
    input: request.input,
    options: request.options as Prisma.InputJsonValue,
    labels: request.labels,
    resume: (request.resume ?? null) as Prisma.InputJsonValue | null,
    memoryMounts: [],
    environmentMounts: (request.environmentMounts ?? []) as Prisma.InputJsonValue,
    version: 1,
  };
  audits.push(
    audit('run', runId, {
      agent_id: { from: null, to: request.agentId },
      agent_revision_id: { from: null, to: request.revisionId },
      thread_id: { from: null, to: threadId },
    }),
  );
  const resumes = request.lineage === 'resume' ? (request.parentRunId ?? null) : null;
  return { session, thread, entry, run, audits, resumes };
}
