// Resuming a waiting run: the complete answer batch (every pending approval and call answered
// exactly once) creates a successor run that continues from the answers. Idempotent by key.
import { Prisma, type Run } from '../../generated/prisma/client.js';
import { runOptionsSchema } from '../agents/documents/config-schema.js';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { storedLabels } from '../../lib/labels.js';
import { returningColumns } from '../../storage/columns.js';
import type { CallContext } from '../../services/call-context.js';
import { validateIdempotencyKey, withIdempotency } from '../../services/idempotency.js';
import { assertWithinBudgets } from '../budgets/budget-counters.js';
import { requirePermission } from '../access/permissions.js';
import { getRun } from './runs.js';
import { validateMessage } from './run-input.js';
import { attachAssets } from '../assets/assets.js';
import { storedPending, writeNewRun, type PendingEntry } from './run-lifecycle.js';
import { planNewRun } from './run-plan.js';
import { announceThreadChanged } from '../../services/event-topics.js';
import { readDocument } from '../../lib/json-documents.js';

/** How a resume answers a pending approval. */
export const APPROVAL_ACTIONS = ['approve', 'deny'] as const;
/** How a resume answers a pending call: the client's tool returned a value, or failed with one. */
export const CALL_STATUSES = ['returned', 'error'] as const;

export interface ResumeBody {
  approvals?: unknown;
  calls?: unknown;
  input?: unknown;
}

function answerMap(value: unknown, field: string): Record<string, Record<string, unknown>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${field} must map tool_call_id to an answer`, field);
  for (const [id, answer] of Object.entries(value)) {
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
      throw invalidArgument(`${field}.${id} must be an object`, `${field}.${id}`);
  }
  return value as Record<string, Record<string, unknown>>;
}

/** Every pending id answered exactly once, nothing else: names what is missing, extra or malformed. */
export function checkAnswers(pending: { approvals: PendingEntry[]; calls: PendingEntry[] }, body: ResumeBody) {
  const approvals = answerMap(body.approvals, 'approvals');
  const calls = answerMap(body.calls, 'calls');
  const problems: string[] = [];
  const compare = (kind: 'approvals' | 'calls', expected: PendingEntry[], given: Record<string, unknown>) => {
    const ids = new Set(expected.map((entry) => entry.tool_call_id));
    const missing = [...ids].filter((id) => !(id in given));
    const unknown = Object.keys(given).filter((id) => !ids.has(id));
    if (missing.length) problems.push(`${kind} missing for ${missing.join(', ')}`);
    if (unknown.length) problems.push(`${kind} for unknown or not pending tool calls ${unknown.join(', ')}`);
    return { missing, unknown };
  };
  const a = compare('approvals', pending.approvals, approvals);
  const c = compare('calls', pending.calls, calls);
  if (problems.length) {
    throw invalidArgument(
      `the resume batch must answer every pending approval and call exactly once: ${problems.join('; ')}`,
      a.missing.length || a.unknown.length ? 'approvals' : 'calls',
      {
        missing: [...a.missing, ...c.missing],
        unknown: [...a.unknown, ...c.unknown],
      },
    );
  }
  for (const [id, answer] of Object.entries(approvals)) {
    if (!(APPROVAL_ACTIONS as readonly unknown[]).includes(answer.action))
      throw invalidArgument(`approvals.${id}.action must be approve or deny`, `approvals.${id}.action`);
  }
  for (const [id, answer] of Object.entries(calls)) {
    if (!(CALL_STATUSES as readonly unknown[]).includes(answer.status))
      throw invalidArgument(`calls.${id}.status must be returned or error`, `calls.${id}.status`);
    if (!('value' in answer)) throw invalidArgument(`calls.${id}.value is required`, `calls.${id}.value`);
  }
  return { approvals, calls };
}

export async function resumeRun(
  call: CallContext,
  runId: string,
  idempotencyKey: string | null | undefined,
  body: ResumeBody,
): Promise<Run> {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const key = validateIdempotencyKey(idempotencyKey, true)!;
  const parent = await getRun(call, runId); // 404 before anything else
  const input = await attachAssets(call, validateMessage(body.input, 'input', false), 'input');
  let created: Run | null = null;
  const { value } = await withIdempotency<{ run_id: string }>(call, {
    scope: `runs.resume:${runId}`,
    key,
    request: { approvals: body.approvals ?? {}, calls: body.calls ?? {}, input: body.input ?? null },
    effect: async (bound, recordResult) => {
      const { run, thread } = await lockWaitingRun(bound, runId);
      if (run.status !== 'waiting' || run.resumedById) {
        throw new AppError(
          'conflict',
          run.resumedById
            ? `the run was already resumed by ${run.resumedById}`
            : `only a waiting run can be resumed; this one is ${run.status}`,
        );
      }
      const answers = checkAnswers(storedPending(run.pending) ?? { approvals: [], calls: [] }, body);
      await assertWithinBudgets(bound, run.agentId);
      // The successor, its inbox entry and audit rows, the parent marked resumed and the idempotency
      // record's result: one statement.
      const plan = planNewRun(bound, {
        agentId: run.agentId,
        revisionId: run.agentRevisionId,
        pinned: true,
        input: input ?? { content: [] },
        // The options column holds only what normalizeRunOptions returned when the run was created.
        options: readDocument(runOptionsSchema, run.options, 'runs.options'),
        labels: storedLabels(run.labels, 'runs.labels'),
        trigger: 'resume',
        lineage: 'resume',
        parentRunId: run.id,
        resume: { approvals: answers.approvals, calls: answers.calls, input: input ?? null },
        thread: { existing: thread },
        entry: { new: { delivery: 'queue' } },
      });
      created = await writeNewRun(bound, plan, recordResult({ run_id: plan.run.id }));
      return { run_id: created.id };
    },
  });
  // The successor is the thread's current run: followers of the thread (a waiting run's page) see it.
  announceThreadChanged(deps.events, parent.threadId);
  // A replay answers with the successor as it is now.
  return created ?? call.db.run.findUniqueOrThrow({ where: { id: value.run_id } });
}

const RUN_AS_R = returningColumns(Prisma.RunScalarFieldEnum, 'r');

/**
 * The run, locked (resumes of one run are serialised by its row lock), with what its successor's
 * plan needs of its thread — one statement. Another workspace's run is not found.
 */
async function lockWaitingRun(call: CallContext, runId: string) {
  const rows = await call.db.$queryRaw<(Run & { threadSessionId: string; threadLastInboxPosition: number })[]>`
    SELECT ${RUN_AS_R}, t.session_id AS "threadSessionId", t.last_inbox_position AS "threadLastInboxPosition"
    FROM runs r JOIN threads t ON t.id = r.thread_id
    WHERE r.id = ${runId} AND r.workspace_id = ${call.actor.workspaceId}
    FOR UPDATE OF r`;
  if (rows.length === 0) throw notFound('run', runId);
  const { threadSessionId, threadLastInboxPosition, ...run } = rows[0]!;
  return { run: run as Run, thread: { id: run.threadId, sessionId: threadSessionId, lastInboxPosition: threadLastInboxPosition } };
}
