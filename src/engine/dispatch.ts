// The tool calls of one model turn, carried out by what the toolset says each tool is. Server tools
// that are allowed run now (after the reviewer, when the agent has one): a `tool_call` item while it
// runs and a `tool_result` item with the result — large results stored in its `content_refs`.
// Calls that need the client, the user or an approval become the pending entries the run waits
// with; refused calls are reported to the model; unknown, invalid or failed calls are errors the
// model is told about (they count against `retries.tools`). Invalid includes arguments that break
// the tool's input schema: such a call is never run, reviewed, approved or handed to the client.
// Nothing here names a kind of tool.
import type { ToolResultPart } from 'ai';
import type { Span } from '@opentelemetry/api';
import { AttemptTrace, endTool, recordVerdict } from './attempt-trace.js';
import type { PendingEntry } from '../services/run-lifecycle.js';
import { describeError } from './attempt-errors.js';
import type { RunItemStream } from './items.js';
import { errorResult, jsonResult } from './messages.js';
import type { ToolCall } from './model-turn.js';
import type { CallReviewer } from './reviewer.js';
import type { RunTool, ServerTool } from './tools/tool.js';
import { modelPreview, presentOutput } from './tools/tool-output.js';
import type { Toolset } from './tools/toolset.js';

export interface ToolFailure {
  toolCallId: string;
  toolName: string;
  error: string;
}

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

interface CallToRun {
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** The outcome of a server call: what the model is told, and the error when it failed. */
export type ServerOutcome = { ok: true; told: ToolResultPart } | { ok: false; told: ToolResultPart; error: string };

/**
 * Carries out one call of a server tool: a `tool_call` item while it runs (completed, or failed
 * with the error), then a `tool_result` item with the result or the error. A cancel during the
 * execution ends the attempt (the error is the abort's reason), not the call alone.
 */
export async function runServerTool(
  runTool: ServerTool,
  call: CallToRun,
  items: RunItemStream,
  signal: AbortSignal,
  span?: Span,
): Promise<ServerOutcome> {
  const ids = { tool_call_id: call.toolCallId, tool_name: call.toolName };
  const callItem = items.open('tool_call', { ...ids, arguments: call.arguments, server: true });
  let value: unknown;
  try {
    signal.throwIfAborted();
    value = await runTool.execution.execute(call.arguments, {
      toolCallId: call.toolCallId,
      signal,
      ...(span ? { span: AttemptTrace.ids(span) } : {}),
    });
  } catch (error) {
    if (signal.aborted) {
      if (span) endTool(span, { outcome: 'error', error: 'aborted' });
      throw signal.reason ?? error;
    }
    const message = describeError(error);
    if (span) endTool(span, { outcome: 'error', error: message });
    items.complete(callItem, { error: message }, 'failed');
    items.open('tool_result', { ...ids, error: message }, 'completed');
    return { ok: false, error: message, told: errorResult(call.toolCallId, call.toolName, message) };
  }
  items.complete(callItem);
  if (span) endTool(span, { outcome: 'ok' });
  const presented = runTool.inlineResult ? ({ kind: 'inline', value } as const) : presentOutput(value);
  if (presented.kind === 'inline') {
    items.open('tool_result', { ...ids, result: value ?? null }, 'completed');
    return { ok: true, told: jsonResult(call.toolCallId, call.toolName, value) };
  }
  const resultItem = items.open('tool_result', { ...ids }, 'in_progress');
  await items.storeAsAsset(resultItem, 'result', presented.text, presented.mediaType, presented.sizeBytes);
  const refId = (resultItem.contentRefs.result as { id: string }).id;
  items.complete(resultItem);
  return {
    ok: true,
    told: {
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'text', value: modelPreview(refId, presented) },
    },
  };
}

/** A call refused before it ran (by the configuration or the reviewer): a `tool_result` item, and the model is told. */
export function refuse(call: CallToRun, items: RunItemStream, message: string, by: 'configuration' | 'reviewer' | 'user'): ToolResultPart {
  items.open(
    'tool_result',
    { tool_call_id: call.toolCallId, tool_name: call.toolName, denied: true, denied_by: by, error: message },
    'completed',
  );
  return errorResult(call.toolCallId, call.toolName, message);
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

const approvalEntry = (call: CallToRun, title: string, extra: Record<string, unknown> = {}): PendingEntry => ({
  tool_call_id: call.toolCallId,
  tool_name: call.toolName,
  arguments: call.arguments,
  presentation: { kind: 'approval', title, ...extra },
});

export async function dispatchToolCalls(modelCalls: ToolCall[], toolset: Toolset, options: DispatchOptions): Promise<Dispatched> {
  const { items, signal, reviewer, trace } = options;
  const dispatched: Dispatched = { told: [], failures: [], approvals: [], calls: [] };
  const spanOf = (call: CallToRun, runTool: RunTool | undefined) => trace?.toolCall(call, runTool, toolset.sourceOf(call.toolName));
  const fail = (call: CallToRun, error: string) => {
    const span = spanOf(call, toolset.get(call.toolName));
    if (span) endTool(span, { outcome: 'error', error });
    items.open('tool_result', { tool_call_id: call.toolCallId, tool_name: call.toolName, error }, 'completed');
    dispatched.failures.push({ toolCallId: call.toolCallId, toolName: call.toolName, error });
    dispatched.told.push(errorResult(call.toolCallId, call.toolName, error));
  };
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
    const call = { toolCallId: modelCall.toolCallId, toolName: modelCall.toolName, arguments: argumentsOf(modelCall.input) };
    const span = spanOf(call, runTool);
    const decision =
      reviewer && !runTool.skipReview
        ? await reviewer.review(runTool, call, items, signal, trace && span ? { trace, span } : undefined)
        : { action: 'allow' as const };
    if (decision.action === 'deny') {
      if (span) endTool(span, { outcome: 'denied', deniedBy: 'reviewer', verdict: decision.verdict });
      dispatched.told.push(refuse(call, items, decision.message, 'reviewer'));
      continue;
    }
    if (decision.action === 'ask') {
      if (span) endTool(span, { outcome: 'waiting', waitFor: 'approval', verdict: decision.verdict });
      dispatched.approvals.push(approvalEntry(call, runTool.name, { review: decision.verdict }));
      items.open(
        'approval_request',
        { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: call.arguments, review: decision.verdict },
        'completed',
      );
      continue;
    }
    // The reviewer let it run: its verdict is on the span of the execution.
    if (span && decision.verdict) recordVerdict(span, decision.verdict);
    const outcome = await runServerTool(runTool, call, items, signal, span);
    dispatched.told.push(outcome.told);
    if (!outcome.ok) dispatched.failures.push({ toolCallId: call.toolCallId, toolName: call.toolName, error: outcome.error });
  }
  for (const modelCall of later) {
    const call = { toolCallId: modelCall.toolCallId, toolName: modelCall.toolName, arguments: argumentsOf(modelCall.input) };
    const runTool = toolset.get(call.toolName);
    const refusal = refusals.get(modelCall);
    if (refusal !== undefined || !runTool) {
      fail(call, refusal ?? `there is no tool named ${call.toolName}`);
      continue;
    }
    const { execution } = runTool;
    const span = spanOf(call, runTool);
    if (execution.kind === 'question') {
      if (span) endTool(span, { outcome: 'waiting', waitFor: 'user_question' });
      const question = call.arguments.question ?? '';
      const choices = call.arguments.choices ?? [];
      dispatched.calls.push({ ...approvalEntry(call, ''), presentation: { kind: 'question', question, choices } });
      items.open('question', { tool_call_id: call.toolCallId, question, choices }, 'completed');
      continue;
    }
    if (runTool.permission === 'deny') {
      if (span) endTool(span, { outcome: 'denied', deniedBy: 'configuration' });
      dispatched.told.push(refuse(call, items, DENIED_BY_CONFIGURATION, 'configuration'));
      continue;
    }
    const title = execution.kind === 'client' ? execution.title : runTool.name;
    if (span) endTool(span, { outcome: 'waiting', waitFor: runTool.permission === 'ask' ? 'approval' : 'client_tool' });
    if (runTool.permission === 'ask') {
      dispatched.approvals.push(approvalEntry(call, title));
      items.open('approval_request', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: call.arguments }, 'completed');
    } else {
      dispatched.calls.push({ ...approvalEntry(call, title), presentation: { kind: 'client_call', title } });
      items.open('client_call', { tool_call_id: call.toolCallId, tool_name: call.toolName, arguments: call.arguments }, 'completed');
    }
  }
  return dispatched;
}
