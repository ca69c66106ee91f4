// The tool calls of one model turn, carried out by what the toolset says each tool is. Server tools
// that are allowed run now (after the reviewer, when the agent has one): a `tool_call` item while it
// runs and a `tool_result` item with the result — large results stored in its `content_refs`.
// Calls that need the client, the user or an approval become the pending entries the run waits
// with; refused calls are reported to the model; unknown, invalid or failed calls are errors the
// model is told about (they count against `retries.tools`). Invalid includes arguments that break
// the tool's input schema: such a call is never run, reviewed, approved or handed to the client.
// Nothing here names a kind of tool, and nothing here writes an item, a span or a tool result:
// dispatch decides each call's outcome and its ToolCallRecord (tool-call-record.ts) records it.
import type { ToolResultPart } from 'ai';
import type { AttemptTrace } from './attempt-trace.js';
import type { PendingEntry } from '../features/runs/run-lifecycle.js';
import { describeError } from './attempt-errors.js';
import type { RunItemStream } from './items.js';
import type { ToolCall } from './model-turn.js';
import type { CallReviewer } from './reviewer.js';
import { ToolCallRecord, type SettledCall, type ToolCallOutcome, type ToolFailure } from './tool-call-record.js';
import type { RunTool, ServerTool } from './tools/tool.js';
import type { Toolset } from './tools/toolset.js';

export type { ToolFailure } from './tool-call-record.js';

export interface Dispatched {
  /** What the model is told about the calls handled now: results, refusals and errors, in call order. */
  told: ToolResultPart[];
  /** Calls unknown, invalid, or that failed: they count against `retries.tools`. */
  failures: ToolFailure[];
  /** Calls waiting for an approval. */
  approvals: PendingEntry[];
  /** Calls handed to the client, and questions to the user. */
  calls: PendingEntry[];
}

export interface DispatchOptions {
  items: RunItemStream;
  /** The attempt's abort signal: a cancel stops a running tool and ends the attempt. */
  signal: AbortSignal;
  /** The agent's reviewer, when it has one: rates every allowed server call before it runs. */
  reviewer?: CallReviewer;
  /** The attempt's trace: a span per call. */
  trace?: AttemptTrace;
}

/** What the model is told when a call is refused by the agent's configuration. */
export const DENIED_BY_CONFIGURATION = 'This tool call is not allowed for this agent.';

const argumentsOf = (input: unknown) => (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;

/**
 * Carries out one call of a server tool and settles its record: a `tool_call` item while it runs,
 * then the result or the error. A cancel during the execution ends the attempt (the error is the
 * abort's reason), not the call alone.
 */
export async function runServerTool(runTool: ServerTool, record: ToolCallRecord, signal: AbortSignal): Promise<SettledCall> {
  record.started();
  let value: unknown;
  try {
    signal.throwIfAborted();
    const span = record.spanIds();
    value = await runTool.execution.execute(record.call.arguments, {
      toolCallId: record.call.toolCallId,
      signal,
      ...(span ? { span } : {}),
    });
  } catch (error) {
    if (signal.aborted) {
      record.aborted();
      throw signal.reason ?? error;
    }
    return record.settle({ kind: 'failed', error: describeError(error) });
  }
  return record.settle({ kind: 'returned', value });
}

/** Adds a settled call to what the turn's dispatch reports. */
function collect(dispatched: Dispatched, settled: SettledCall) {
  if ('told' in settled) {
    dispatched.told.push(settled.told);
    if (settled.failure) dispatched.failures.push(settled.failure);
  } else (settled.waitsFor === 'approval' ? dispatched.approvals : dispatched.calls).push(settled.entry);
}

/** What the schema check reads: blank arguments are no arguments, as the SDK reads them for a call it accepts. */
const argumentsToCheck = (input: unknown) => (typeof input === 'string' && input.trim() === '' ? {} : input);

/**
 * Why a call is refused before anything runs (`refusal`), or the call to carry out: there is no such
 * tool, its arguments are not JSON (the SDK said so) or break the tool's input schema. The SDK also
 * refuses a call of a tool the run has but does not offer; an allowed server tool answers such a call
 * itself (its own answer, e.g. "read-only", beats "no such tool") — once its arguments pass the
 * schema. Arguments that pass only without the nulls of optional members are carried out without them.
 */
function screen(call: ToolCall, runTool: RunTool | undefined, toolset: Toolset): { call: ToolCall; refusal?: string } {
  if (!runTool) return { call, refusal: call.invalid ?? `there is no tool named ${call.toolName}` };
  const answersItself = runTool.execution.kind === 'server' && runTool.permission === 'allow' && !toolset.isOffered(call.toolName);
  if (call.invalid && !answersItself) return { call, refusal: call.invalid };
  const given = argumentsToCheck(call.input);
  const checked = toolset.checkArguments(call.toolName, given);
  if (checked.problem !== undefined) return { call, refusal: checked.problem };
  return { call: checked.input === given ? call : { ...call, input: checked.input } };
}

/** Whether a call runs on the server now: an allowed server tool, called with arguments that were not refused. */
function runsNow(runTool: RunTool | undefined, refusal: string | undefined): runTool is ServerTool {
  return refusal === undefined && runTool?.execution.kind === 'server' && runTool.permission === 'allow';
}

export async function dispatchToolCalls(modelCalls: ToolCall[], toolset: Toolset, options: DispatchOptions): Promise<Dispatched> {
  const { items, signal, reviewer, trace } = options;
  const dispatched: Dispatched = { told: [], failures: [], approvals: [], calls: [] };
  const recordOf = (modelCall: ToolCall, runTool: RunTool | undefined) =>
    new ToolCallRecord(
      { items, trace },
      { toolCallId: modelCall.toolCallId, toolName: modelCall.toolName, arguments: argumentsOf(modelCall.input) },
      runTool,
      { source: toolset.sourceOf(modelCall.toolName) },
    );
  const later: ToolCall[] = [];
  // Checked before anything runs, is reviewed or waits: a refused call is only an error for the model.
  const screened = modelCalls.map((modelCall) => screen(modelCall, toolset.get(modelCall.toolName), toolset));
  const toolCalls = screened.map(({ call }) => call);
  const refusals = new Map(screened.map(({ call, refusal }) => [call, refusal]));
  // Server tools first, in the order the model called them.
  for (const modelCall of toolCalls) {
    const runTool = toolset.get(modelCall.toolName);
    if (!runsNow(runTool, refusals.get(modelCall))) {
      later.push(modelCall);
      continue;
    }
    const record = recordOf(modelCall, runTool);
    const decision =
      reviewer && !runTool.skipReview
        ? await reviewer.review(runTool, record.call, items, signal, trace && record.span ? { trace, span: record.span } : undefined)
        : { action: 'allow' as const };
    if (decision.action === 'deny')
      collect(dispatched, await record.settle({ kind: 'denied', by: 'reviewer', message: decision.message, verdict: decision.verdict }));
    else if (decision.action === 'ask')
      collect(dispatched, await record.settle({ kind: 'approval_requested', title: runTool.name, verdict: decision.verdict }));
    else {
      record.reviewed(decision.verdict);
      collect(dispatched, await runServerTool(runTool, record, signal));
    }
  }
  for (const modelCall of later) {
    const runTool = toolset.get(modelCall.toolName);
    const record = recordOf(modelCall, runTool);
    const refusal = refusals.get(modelCall);
    collect(
      dispatched,
      await record.settle(refusal !== undefined || !runTool ? failedBeforeRunning(modelCall, refusal) : waitOrDeny(runTool)),
    );
  }
  return dispatched;
}

/** A call refused before it ran: an unknown tool, or arguments that were refused. */
const failedBeforeRunning = (call: ToolCall, refusal: string | undefined) =>
  ({ kind: 'failed', error: refusal ?? `there is no tool named ${call.toolName}` }) as const;

/** A call that does not run on the server now: a question, a refusal by the configuration, an approval or a client call. */
function waitOrDeny(runTool: RunTool): ToolCallOutcome {
  const { execution } = runTool;
  if (execution.kind === 'question') return { kind: 'question' };
  if (runTool.permission === 'deny') return { kind: 'denied', by: 'configuration', message: DENIED_BY_CONFIGURATION };
  const title = execution.kind === 'client' ? execution.title : runTool.name;
  return runTool.permission === 'ask' ? { kind: 'approval_requested', title } : { kind: 'client_call', title };
}
