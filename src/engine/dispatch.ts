// The tool calls of one model turn, carried out by what the toolset says each tool is. Server tools
// that are allowed run now (a `tool_call` item each; the results go back to the model); calls that
// need the client, the user or an approval become the pending entries the run waits with; refused
// or unknown calls become errors the model is told about. Nothing here names a kind of tool.
import type { PendingEntry } from '../services/run-lifecycle.js';
import { describeError } from './attempt-errors.js';
import type { RunItemStream } from './items.js';
import type { ToolCall } from './model-turn.js';
import type { RunTool, ServerTool } from './tools/tool.js';
import type { Toolset } from './tools/toolset.js';

export interface ToolFailure {
  toolCallId: string;
  toolName: string;
  error: string;
}

export interface Dispatched {
  /** Results of the server tools carried out, for the model. */
  results: { toolCallId: string; toolName: string; value: unknown }[];
  /** Calls refused, unknown, invalid, or that failed: the model is told (under `retries.tools`). */
  failures: ToolFailure[];
  /** Calls waiting for an approval. */
  approvals: PendingEntry[];
  /** Calls handed to the client, and questions to the user. */
  calls: PendingEntry[];
}

const argumentsOf = (input: unknown) => (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;

/** Carries out one call of a server tool: a `tool_call` item, completed with the result or failed with the error. */
export async function runServerTool(
  runTool: ServerTool,
  call: { toolCallId: string; toolName: string; arguments: Record<string, unknown> },
  items: RunItemStream,
  signal: AbortSignal,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const item = items.open('tool_call', {
    tool_call_id: call.toolCallId,
    tool_name: call.toolName,
    arguments: call.arguments,
    server: true,
  });
  try {
    const value = await runTool.execution.execute(call.arguments, { toolCallId: call.toolCallId, signal });
    items.complete(item, { result: value });
    return { ok: true, value };
  } catch (error) {
    items.complete(item, { error: describeError(error) }, 'failed');
    return { ok: false, error: describeError(error) };
  }
}

/**
 * Whether a call runs on the server now: an allowed server tool. A call the SDK refused as invalid
 * still runs when its tool is not offered (the tool's own answer, e.g. "read-only", beats "no such tool").
 */
function runsNow(runTool: RunTool | undefined, call: ToolCall, toolset: Toolset): runTool is ServerTool {
  return runTool?.execution.kind === 'server' && runTool.permission === 'allow' && (!call.invalid || !toolset.isOffered(call.toolName));
}

export async function dispatchToolCalls(
  toolCalls: ToolCall[],
  toolset: Toolset,
  items: RunItemStream,
  signal: AbortSignal,
): Promise<Dispatched> {
  const dispatched: Dispatched = { results: [], failures: [], approvals: [], calls: [] };
  const later: ToolCall[] = [];
  // Server tools first, in the order the model called them.
  for (const call of toolCalls) {
    const runTool = toolset.get(call.toolName);
    if (!runsNow(runTool, call, toolset)) {
      later.push(call);
      continue;
    }
    const outcome = await runServerTool(runTool, { ...call, arguments: argumentsOf(call.input) }, items, signal);
    if (outcome.ok) dispatched.results.push({ toolCallId: call.toolCallId, toolName: call.toolName, value: outcome.value });
    else dispatched.failures.push({ toolCallId: call.toolCallId, toolName: call.toolName, error: outcome.error });
  }
  for (const call of later) {
    const args = argumentsOf(call.input);
    const runTool = toolset.get(call.toolName);
    const fail = (error: string) => dispatched.failures.push({ toolCallId: call.toolCallId, toolName: call.toolName, error });
    if (call.invalid || !runTool) {
      fail(call.invalid ?? `there is no tool named ${call.toolName}`);
      continue;
    }
    const { execution } = runTool;
    if (execution.kind === 'question') {
      const question = args.question ?? '';
      const choices = args.choices ?? [];
      dispatched.calls.push({
        tool_call_id: call.toolCallId,
        tool_name: call.toolName,
        arguments: args,
        presentation: { kind: 'question', question, choices },
      });
      items.open('question', { tool_call_id: call.toolCallId, question, choices }, 'completed');
      continue;
    }
    if (runTool.permission === 'deny') {
      fail('this tool is not allowed for this agent');
      continue;
    }
    const title = execution.kind === 'client' ? execution.title : runTool.name;
    const ask = runTool.permission === 'ask';
    const entry: PendingEntry = {
      tool_call_id: call.toolCallId,
      tool_name: call.toolName,
      arguments: args,
      presentation: { kind: ask ? 'approval' : 'client_call', title },
    };
    if (ask) {
      dispatched.approvals.push(entry);
      items.open('approval_request', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: args }, 'completed');
    } else {
      dispatched.calls.push(entry);
      items.open('client_call', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: args }, 'completed');
    }
  }
  return dispatched;
}
