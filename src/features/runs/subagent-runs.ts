// Subagent runs: a run's delegate tool starts a child run of another agent in a child thread of the
// same session (thread origin `subagent`, the delegating run and tool call recorded on it), and the
// delegating run's inbox entry records the child (`child_run_id`). The child is an ordinary run —
// claimed by any worker, sealed, cancelled and listed like every other — created through the same
// plan (`planNewRun`) as every run. Waiting for it and turning its outcome into the tool's result is
// the engine's part (src/engine/tools/subagents.ts).
import type { Run } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { agentForNewRun, revisionForNewRun } from '../agents/agents.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { writeNewRun } from './run-lifecycle.js';
import { planNewRun } from './run-plan.js';
import { assertModelUsable } from './runs.js';
import { announceThreadChanged } from '../../services/event-topics.js';

/**
 * How deep subagents may nest: a child may delegate to its own subagents, down to this many levels
 * below the root run (an agent that names itself as its subagent stops here).
 */
export const MAX_SUBAGENT_DEPTH = 4;

export interface SubagentRunRequest {
  /** The delegating run (running: its attempt makes the call). */
  parent: Run;
  /** The subagent's name in the parent's configuration. */
  name: string;
  toolCallId: string;
  agentId: string;
  revisionId?: string;
  /** The subagent entry's `overrides`: the child run's overrides. */
  overrides?: Record<string, unknown>;
  /** What the parent's model asked the subagent to do: the child run's input. */
  task: string;
  /** The delegating call's trace span: the child's run spans descend from it. */
  span?: { traceId: string; spanId: string };
}

/** How many subagent links lie above `runId` (0 for a run no subagent call started). */
async function subagentDepth(call: CallContext, runId: string): Promise<number> {
  // Resumes and forks keep their parent link too: count only the links a delegation made.
  const [row] = await call.db.$queryRaw<{ depth: number }[]>`
    WITH RECURSIVE chain AS (
      SELECT id, parent_run_id, lineage, 1 AS hops FROM runs WHERE id = ${runId}
      UNION ALL
      SELECT r.id, r.parent_run_id, r.lineage, c.hops + 1 FROM runs r JOIN chain c ON r.id = c.parent_run_id WHERE c.hops < 200
    )
    SELECT count(*) FILTER (WHERE lineage = 'subagent')::int AS depth FROM chain`;
  return row?.depth ?? 0;
}

/**
 * Creates the child run (accepted, announced to the workers) in a new thread of the parent's
 * session, as the parent's principal. Refused like any new run when the subagent's agent is gone
 * (not found), archived, or its model or provider is disabled, and beyond MAX_SUBAGENT_DEPTH.
 */
export async function startSubagentRun(call: CallContext, request: SubagentRunRequest): Promise<Run> {
  requirePermission(call.actor, 'write');
  const { parent } = request;
  const child = await inTransaction(call, async (call) => {
    if ((await subagentDepth(call, parent.id)) >= MAX_SUBAGENT_DEPTH)
      throw new AppError('failed_precondition', `subagents nest at most ${MAX_SUBAGENT_DEPTH} levels deep`);
    const agent = await agentForNewRun(call, request.agentId);
    const { revision, effective } = await revisionForNewRun(call, agent, request.revisionId, request.overrides);
    await assertModelUsable(call, effective.model);
    const plan = planNewRun(call, {
      agentId: agent.id,
      revisionId: revision.id,
      pinned: Boolean(request.revisionId),
      input: { content: [{ type: 'text', text: request.task }] },
      options: request.overrides ? { overrides: request.overrides } : {},
      labels: {},
      trigger: 'subagent',
      lineage: 'subagent',
      parentRunId: parent.id,
      trace: request.span,
      thread: {
        new: {
          sessionId: parent.sessionId,
          origin: { runId: parent.id, threadId: parent.threadId, subagent: { name: request.name, toolCallId: request.toolCallId } },
        },
      },
      entry: { new: { delivery: 'queue' } },
    });
    const run = await writeNewRun(call, plan);
    // The delegating run's entry names its (latest) child.
    if (parent.sourceEntryId) await call.db.inboxEntry.update({ where: { id: parent.sourceEntryId }, data: { childRunId: run.id } });
    return run;
  });
  // The delegating run's inbox entry now names the child.
  if (parent.sourceEntryId && !call.inTransaction) announceThreadChanged(call.events, parent.threadId);
  return child;
}

/** The child threads subagent calls of `runId` opened, oldest first, with their runs (the items' `continuation.observer`). */
export async function subagentChildren(call: CallContext, runId: string) {
  const threads = await call.db.thread.findMany({
    where: { workspaceId: call.actor.workspaceId, origin: 'subagent', originRunId: runId },
    orderBy: { id: 'asc' },
    select: { id: true, subagent: true, originToolCallId: true },
  });
  if (!threads.length) return [];
  const runs = await call.db.run.findMany({
    where: { threadId: { in: threads.map((thread) => thread.id) }, lineage: 'subagent' },
    select: { id: true, threadId: true, status: true },
  });
  return threads.map((thread) => {
    const run = runs.find((r) => r.threadId === thread.id);
    return {
      run_id: run?.id ?? null,
      thread_id: thread.id,
      subagent: thread.subagent,
      tool_call_id: thread.originToolCallId,
      status: run?.status ?? null,
    };
  });
}
