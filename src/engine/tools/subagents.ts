// Subagents: each entry of the agent configuration's `subagents` becomes a server tool,
// `delegate_to_<name>`, whose call starts a child run of the named agent in a child thread
// (services/subagent-runs.ts) and waits for it to settle: the child's output is the call's result.
//
// Waiting does not hold a worker slot: the attempt parks while it follows the child (the worker
// pool claims other runs — the child among them — in its place) and listens on the event bus for
// the child's items and settlement, with the attempt's abort signal. With `subagent_mode: inline`
// (the default) every item of the child is mirrored into the parent's items as it changes; with
// `thread` the child's items stay in its own thread. A cancelled (or handed-over) parent cancels its
// child. A child that stops to wait (an approval, a client tool, a question) is refused: it is
// cancelled and the call fails, since nobody answers a subagent's questions.
import Type from 'typebox';
import type { Run } from '../../services/rows.js';
import type { SubagentMode } from '../agent-config.js';
import { describeError } from '../attempt-errors.js';
import type { RunItemState, RunItemStream } from '../items.js';
import { cancelRun, getRun } from '../../features/runs/runs.js';
import { streamRunItems, type ItemView } from '../../features/runs/run-items.js';
import { startSubagentRun } from '../../features/runs/subagent-runs.js';
import type { CallContext } from '../../services/call-context.js';
import { resolvePermission } from './permissions.js';
import { checkedExecution, toolInputSchema, type RunTool, type ToolSource } from './tool.js';
import { readFailure, readUsage } from '../../features/runs/run-members.js';
import { runLedgerTotals } from '../../features/runs/usage-ledger.js';
import { addSubagentRun } from '../usage.js';

export const DELEGATE_TOOL_PREFIX = 'delegate_to_';

const inputSchema = Type.Object({
  task: Type.String({
    description: 'Everything the subagent needs to know to do the task: it sees nothing of this conversation but this text.',
  }),
});

/** Where a mirrored item came from: the child run and the item's ordinal there. */
interface ChildOrigin {
  name: string;
  run_id: string;
  thread_id: string;
  tool_call_id: string;
}

/** Copies the child's item changes into the parent's items (inline mode), one parent item per child item. */
class ChildMirror {
  private readonly mirrored = new Map<number, RunItemState>();

  constructor(
    private readonly items: RunItemStream,
    private readonly origin: ChildOrigin,
  ) {}

  change(child: ItemView) {
    const content = (child.content ?? {}) as Record<string, unknown>;
    // A grandchild's mirrored item keeps where it came from, one level down.
    const inner = content.subagent as Record<string, unknown> | undefined;
    const marked = { ...content, subagent: { ...this.origin, ordinal: child.ordinal, ...(inner ? { from: inner } : {}) } };
    const state = child.state === 'completed' || child.state === 'failed' ? child.state : 'in_progress';
    const known = this.mirrored.get(child.ordinal);
    if (!known) {
      this.mirrored.set(child.ordinal, this.items.open(child.kind, marked, state));
      return;
    }
    if (known.state !== 'in_progress') return;
    if (state === 'in_progress') this.items.update(known, marked);
    else this.items.complete(known, marked, state);
  }

  /** The child settled (or the wait ended): whatever is still open in the mirror ends with it. */
  close() {
    for (const item of this.mirrored.values()) if (item.state === 'in_progress') this.items.complete(item, {}, 'failed');
  }
}

/**
 * Follows the child until it settles, mirroring its items when `mirror` is given; the child as it
 * settled. Ends early, throwing the abort's reason, when the parent's attempt is aborted.
 */
async function followChild(call: CallContext, child: Run, signal: AbortSignal, mirror: ChildMirror | null): Promise<Run> {
  const feed = streamRunItems(call, child.id);
  const stop = () => void feed.return(undefined);
  signal.addEventListener('abort', stop, { once: true });
  try {
    for await (const item of feed) mirror?.change(item);
  } finally {
    signal.removeEventListener('abort', stop);
    mirror?.close();
  }
  signal.throwIfAborted();
  return getRun(call, child.id);
}

/** Cancels the child unless it has settled already (a cancel of a sealed run is refused: nothing to do). */
async function cancelChild(call: CallContext, childId: string) {
  await cancelRun(call, childId).catch((error) =>
    call.logger.debug({ err: error, childRunId: childId }, 'the subagent run was not cancelled: it had settled'),
  );
}

/** The call's result: the child's output; its failure, cancellation or wait as the call's error. */
function resultOf(name: string, child: Run): unknown {
  if (child.status === 'completed') return child.output;
  if (child.status === 'waiting')
    throw new Error(
      `the subagent ${name} stopped to wait (${child.waitReason}); subagents cannot wait for approvals, client tools or answers, so its run was cancelled`,
    );
  const failure = readFailure(child.failure);
  if (child.status === 'cancelled') throw new Error(`the subagent ${name}'s run was cancelled`);
  throw new Error(`the subagent ${name} failed (${failure?.code ?? 'failed'}): ${failure?.message ?? 'no message'}`);
}

export const subagentTools: ToolSource = ({ call, run, config, items, park, usage }) => {
  const subagents = Object.entries(config.subagents ?? {});
  const mode: SubagentMode = config.subagent_mode ?? 'inline';
  return subagents.map(([name, subagent]): RunTool => {
    const toolName = `${DELEGATE_TOOL_PREFIX}${name}`;
    return {
      name: toolName,
      namespace: 'subagents',
      description:
        `Delegate a task to the subagent "${name}"${subagent.description ? `: ${subagent.description}` : ''}. ` +
        'It works on the task by itself and its final answer is the result of this call.',
      inputSchema: toolInputSchema(inputSchema),
      permission: resolvePermission(toolName, { permission: subagent.permission }),
      offered: true,
      execution: checkedExecution(inputSchema, async (args, { toolCallId, signal, span }) => {
        const task = args.task.trim();
        if (!task) throw new Error('task is required: the text the subagent works on');
        const child = await startSubagentRun(call, {
          parent: run,
          name,
          toolCallId,
          agentId: subagent.agent_id,
          revisionId: subagent.revision_id,
          overrides: subagent.overrides,
          task,
          span,
        });
        const origin: ChildOrigin = { name, run_id: child.id, thread_id: child.threadId, tool_call_id: toolCallId };
        const record = items?.open('subagent_run', { ...origin, mode, status: child.status });
        try {
          const wait = followChild(call, child, signal, mode === 'inline' && items ? new ChildMirror(items, origin) : null);
          const settled = await (park ? park(wait) : wait);
          if (settled.status === 'waiting') await cancelChild(call, child.id);
          // The child is sealed: its usage (and its own subagents') counts in the parent's, whatever its outcome.
          if (usage) addSubagentRun(usage, await runLedgerTotals(call, child.id), readUsage(settled.usageAtSeal)?.subagents ?? null);
          const status = settled.status === 'waiting' ? 'cancelled' : settled.status;
          if (record) items!.complete(record, { status }, status === 'completed' ? 'completed' : 'failed');
          return resultOf(name, settled);
        } catch (error) {
          if (record?.state === 'in_progress') items!.complete(record, { status: 'cancelled', error: describeError(error) }, 'failed');
          // The parent stops (cancel, hand-over): its child stops with it.
          if (signal.aborted) await cancelChild(call, child.id);
          throw error;
        }
      }),
    };
  });
};
