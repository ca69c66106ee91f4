// Before the first model turn of an attempt: the agent configuration, the messages the run starts
// from (history, then its input or the answers its resume brings), the memory mounts and what they
// recall, the attempt's toolset, and the calls a resume approved (server tools run now, client tools
// go to the client).
import type { Usage } from './model-turn.js';
import { mountEnvironments, type RunEnvironments } from './environment-mounts.js';
import type { ModelMessage } from 'ai';
import type { Run } from '../services/rows.js';
import { runOptionsSchema, type RunOptions } from '../features/agents/documents/config-schema.js';
import type { CallContext } from '../services/call-context.js';
import type { Deps } from '../services/deps.js';
import { recordMemoryMounts, type PendingEntry } from '../features/runs/run-lifecycle.js';
import { parentPending, threadHistory } from '../features/runs/run-inheritance.js';
import { runAgentConfig, type RunAgentConfig } from './agent-config.js';
import { runServerTool } from './dispatch.js';
import type { RunItemStream } from './items.js';
import { recall, resolveMounts, type Recalled } from './memory-mounts.js';
import { partsOf, startingMessages, textOf, type Pending } from './messages.js';
import { buildReviewer, type CallReviewer } from './reviewer.js';
import { upgradeStoredHistory } from './stored-history.js';
import { buildToolset, type Toolset } from './tools/toolset.js';
import type { Park } from './tools/tool.js';
import type { AttemptTrace } from './attempt-trace.js';
import { ToolCallRecord, USER_DENIAL } from './tool-call-record.js';

/** A pending entry (what a parent waited for) as the record names the call. */
const callOf = (entry: PendingEntry) => ({ toolCallId: entry.tool_call_id, toolName: entry.tool_name, arguments: entry.arguments });
import { readDocument } from '../lib/json-documents.js';
import { storedMessage } from '../features/runs/run-input.js';
import type { McpHeaders } from '../features/threads/thread-documents.js';
import type { EnvironmentMount } from '../features/runs/run-members.js';

export interface ExecutionContext {
  deps: Deps;
  /** The run's call context (its principal, in its workspace): what the run does through services. */
  call: CallContext;
  run: Run;
  attempt: number;
  signal: AbortSignal;
  items: RunItemStream;
  /** The thread's committed history when the run was claimed (read again when absent). */
  history?: ModelMessage[];
  /** The thread's MCP headers when the run was claimed (read again when absent). */
  mcpHeaders?: McpHeaders;
  /** The parent run's pending calls as the claim read them (null: no parent; read again when absent). */
  parentPending?: Pending | null;
  /** The parent run's environment mounts as the claim read them (read again when absent). */
  parentEnvironmentMounts?: EnvironmentMount[];
  /** Parks the attempt while a tool waits for another run (the worker pool's; absent outside a worker). */
  park?: Park;
  /**
   * Told the attempt's environments as soon as they are mounted, so the worker can run their seal
   * work (skill sync's cleanup) when the attempt ends by an error or a cancellation, paths on which
   * the executor does not seal the run itself.
   */
  onEnvironments?: (environments: RunEnvironments) => void;
  /**
   * Told once the attempt is prepared (its configuration, history, memory, environments and tools
   * ready) and about to make its first model request: the worker pool bounds the attempts preparing
   * at once, and admits the next runs then.
   */
  onPrepared?: () => void;
  /**
   * Told when the preparation starts waiting on a server outside the service (a tool server listing
   * its tools, a sandbox provisioned): the worker pool's bound on preparations is for the database's
   * sake, so the attempt gives its place up then, as it does when prepared.
   */
  onOutsideWait?: () => void;
  /**
   * Whether the run's thread may hold a pending steer entry since the attempt last asked (the worker
   * pool's hints, engine/steer-hints.ts); absent outside a worker, where every model request after
   * the first reads the steer entries.
   */
  steerHinted?: () => boolean;
  /** The attempt's trace (its run span): model requests and tool calls add their spans to it. */
  trace?: AttemptTrace;
  /**
   * The attempt's model usage, counted as it goes: the worker's own object, so that a run that ends by
   * an error or a cancellation still seals with the requests and tokens it consumed.
   */
  usage?: Usage;
}

/** The conversation of an attempt: every message the model sees, and those this run adds to the thread. */
export class Conversation {
  readonly newMessages: ModelMessage[];

  constructor(
    readonly messages: ModelMessage[],
    historyLength: number,
  ) {
    this.newMessages = messages.slice(historyLength);
  }

  /** A message the model sees from now on and the thread keeps. */
  say(message: ModelMessage) {
    this.messages.push(message);
    this.newMessages.push(message);
  }

  /** A message only the thread keeps (the attempt asks the model nothing more). */
  record(message: ModelMessage) {
    this.newMessages.push(message);
  }
}

export interface PreparedAttempt {
  config: RunAgentConfig;
  options: RunOptions;
  conversation: Conversation;
  toolset: Toolset;
  recalled: Recalled[];
  /** Client calls a resume approved: the attempt hands them to the client and waits, asking the model nothing. */
  forwardedCalls: PendingEntry[];
  /** The agent's reviewer of server calls, when it has one. */
  reviewer?: CallReviewer;
  /** The run's environments (`environment_mounts`): where tools that run commands or keep files work. */
  environments: RunEnvironments;
}

/** The thread's history as the claim read it, or read now (older SDKs' shapes upgraded on the way). */
async function historyOf(ctx: ExecutionContext): Promise<ModelMessage[]> {
  return ctx.history ?? upgradeStoredHistory(await threadHistory(ctx.call, ctx.run.threadId));
}

/** What the parent waited for, as the claim read it or read now (null: no parent). */
async function parentPendingOf(ctx: ExecutionContext): Promise<Pending | null> {
  if (!ctx.run.parentRunId) return null;
  if (ctx.parentPending !== undefined) return ctx.parentPending;
  return parentPending(ctx.call, ctx.run.parentRunId);
}

export async function prepareAttempt(ctx: ExecutionContext): Promise<PreparedAttempt> {
  const { deps, run, items } = ctx;
  const options = readDocument(runOptionsSchema, run.options, 'runs.options');
  const config = await runAgentConfig(deps, run);
  const history = await historyOf(ctx);
  const { messages, approvedCalls, deniedCalls } = startingMessages(run, history, await parentPendingOf(ctx));
  const conversation = new Conversation(messages, history.length);

  const inputText = textOf(run.input);
  if (ctx.attempt === 1 && partsOf(run.input).length)
    items.open('user_message', { role: 'user', content: storedMessage(run.input, 'runs.input').content }, 'completed');
  // Calls the user denied: the model is told in the starting messages (USER_DENIAL's message); the
  // first attempt records them with the same outcome (a later attempt's items and trace have them).
  if (ctx.attempt === 1)
    for (const denied of deniedCalls) await new ToolCallRecord({ items, trace: ctx.trace }, callOf(denied)).settle(USER_DENIAL);

  // Memory mounts: resolved once per run, recalled into the context, offered as server-side tools.
  const mounts = await resolveMounts(ctx.call, config.memory_mounts ?? []);
  const environments = await mountEnvironments(ctx, config);
  ctx.onEnvironments?.(environments);
  const toolset = await buildToolset({
    deps,
    call: ctx.call,
    run,
    config,
    mounts,
    environments,
    items,
    park: ctx.park,
    usage: ctx.usage,
    mcpHeaders: ctx.mcpHeaders,
    onOutsideWait: ctx.onOutsideWait,
  });

  const forwardedCalls = approvedCalls.filter((call) => toolset.get(call.tool_name)?.execution.kind !== 'server');
  if (forwardedCalls.length) {
    // No span: the call's span is its parent's, which ended waiting for the approval.
    for (const entry of forwardedCalls) await new ToolCallRecord({ items }, callOf(entry)).settle({ kind: 'forwarded', entry });
    return { config, options, conversation, toolset, recalled: [], forwardedCalls, environments };
  }
  await runApprovedServerCalls(ctx, toolset, approvedCalls, conversation);

  if (mounts.length && ctx.attempt === 1) await recordMemoryMounts(deps.db, run.id, mounts);
  const recalled = await recall(ctx.call, mounts, inputText);
  for (const result of recalled)
    items.open('memory_recall', { memory_id: result.mount.memory_id, memory: result.mount.name, records: result.records }, 'completed');
  return {
    config,
    options,
    conversation,
    toolset,
    recalled,
    forwardedCalls: [],
    reviewer: buildReviewer(deps, run, config, ctx.usage),
    environments,
  };
}

/** Server tools whose calls waited for an approval run before the first model turn; the model gets their results. */
async function runApprovedServerCalls(ctx: ExecutionContext, toolset: Toolset, approved: PendingEntry[], conversation: Conversation) {
  const told = [];
  for (const entry of approved) {
    const runTool = toolset.get(entry.tool_name);
    if (runTool?.execution.kind !== 'server') continue;
    // A tool's work (an HTTP request, a tool server's call) is the preparation's longest wait.
    ctx.onOutsideWait?.();
    const record = new ToolCallRecord({ items: ctx.items, trace: ctx.trace }, callOf(entry), runTool, {
      source: toolset.sourceOf(entry.tool_name),
      approvedBy: 'user',
    });
    const settled = await runServerTool({ ...runTool, execution: runTool.execution }, record, ctx.signal);
    if ('told' in settled) told.push(settled.told);
  }
  if (told.length) conversation.say({ role: 'tool', content: told });
}
