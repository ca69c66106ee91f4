// One tool call as the run records it. Whatever happens to a call — it ran, failed, was refused, waits
// for an approval, the client or the user — three things say so: its run items, its
// `execute_tool` span and what the model is told (a tool result now, or the pending entry the run
// waits with, which its successor answers). A `ToolCallRecord` writes all three from one outcome,
// so they cannot disagree; dispatch.ts and prepare.ts only decide the outcome. The tool results the
// model gets are built here too (messages.ts builds a successor's starting messages from them).
import type { Span } from '@opentelemetry/api';
import type { JSONValue } from '@ai-sdk/provider';
import type { ToolResultPart } from 'ai';
import type { PendingEntry } from '../features/runs/run-lifecycle.js';
import { ATTR } from '../traces/names.js';
import { AttemptTrace, endTool, recordVerdict, type ToolSpanEnd } from './attempt-trace.js';
import type { RunItemState, RunItemStream } from './items.js';
import type { RunTool } from './tools/tool.js';
import { modelPreview, presentOutput } from './tools/tool-output.js';
import { countToolCall } from '../lib/service-metrics.js';

/**
 * A value for the model as JSON. Tool results and client answers are JSON by construction (parsed
 * from a request or the database, or returned by a service as plain data), which the AI SDK's type
 * cannot know: this is the one place that says so.
 */
export const asJson = (value: unknown): JSONValue => (value ?? null) as JSONValue;

export const jsonResult = (toolCallId: string, toolName: string, value: unknown): ToolResultPart => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: { type: 'json', value: asJson(value) },
});

export const errorResult = (toolCallId: string, toolName: string, error: string): ToolResultPart => ({
  type: 'tool-result',
  toolCallId,
  toolName,
  output: { type: 'error-text', value: error },
});

/** What the model is told when a user denies an approval. */
export const DENIED_BY_USER = 'The user denied this tool call.';

/** A call as the record names it: its id, the tool's name in the run and the (checked) arguments. */
export interface CallToRecord {
  toolCallId: string;
  toolName: string;
  arguments: Record<string, unknown>;
}

/** A call that failed (unknown tool, invalid arguments, an execution error): it counts against `retries.tools`. */
export interface ToolFailure {
  toolCallId: string;
  toolName: string;
  error: string;
}

/** Who refused a call before it ran. */
export type DeniedBy = 'configuration' | 'reviewer' | 'user';

/** What happened to a call. */
export type ToolCallOutcome =
  /** A server tool ran and returned `value`. */
  | { kind: 'returned'; value: unknown }
  /** The call failed: before it ran (unknown tool, invalid arguments) or while it ran (after `started`). */
  | { kind: 'failed'; error: string }
  /** Refused before it ran; the model is told `message`. */
  | { kind: 'denied'; by: DeniedBy; message: string; verdict?: Record<string, unknown> }
  /** The run waits for a person to approve the call (`verdict`: the reviewer asked for it). */
  | { kind: 'approval_requested'; title: string; verdict?: Record<string, unknown> }
  /** The call is handed to the client; the run waits for its result. */
  | { kind: 'client_call'; title: string }
  /** A client call a resume approved, handed to the client as its parent's approval entry said. */
  | { kind: 'forwarded'; entry: PendingEntry }
  /** The model asks the user (`question` and `choices` from the arguments); the run waits for the answer. */
  | { kind: 'question' };

/** A call the user denied when answering its approval: the model is told DENIED_BY_USER. */
export const USER_DENIAL: Extract<ToolCallOutcome, { kind: 'denied' }> = { kind: 'denied', by: 'user', message: DENIED_BY_USER };

/**
 * What the model is told of a call that failed or was refused: the one message both the record and
 * a successor's starting messages (for calls the user denied, messages.ts) give it.
 */
export function toldNow(
  call: Pick<CallToRecord, 'toolCallId' | 'toolName'>,
  outcome: Extract<ToolCallOutcome, { kind: 'failed' | 'denied' }>,
) {
  return errorResult(call.toolCallId, call.toolName, outcome.kind === 'failed' ? outcome.error : outcome.message);
}

/** What the turn loop does with a settled call: tell the model now, or wait with a pending entry. */
export type SettledCall = { told: ToolResultPart; failure?: ToolFailure } | { waitsFor: 'approval' | 'call'; entry: PendingEntry };

/** Where a call is recorded: the attempt's items, and its trace when the call gets a span. */
export interface ToolCallScope {
  items: RunItemStream;
  trace?: AttemptTrace;
}

const pendingEntry = (call: CallToRecord, presentation: Record<string, unknown>): PendingEntry => ({
  tool_call_id: call.toolCallId,
  tool_name: call.toolName,
  arguments: call.arguments,
  presentation,
});

/** How each outcome ends the call's span. */
function spanEnd(outcome: ToolCallOutcome): ToolSpanEnd {
  switch (outcome.kind) {
    case 'returned':
      return { outcome: 'ok' };
    case 'failed':
      return { outcome: 'error', error: outcome.error };
    case 'denied':
      return { outcome: 'denied', deniedBy: outcome.by, verdict: outcome.verdict };
    case 'approval_requested':
      return { outcome: 'waiting', waitFor: 'approval', verdict: outcome.verdict };
    case 'client_call':
    case 'forwarded':
      return { outcome: 'waiting', waitFor: 'client_tool' };
    case 'question':
      return { outcome: 'waiting', waitFor: 'user_question' };
  }
}

export class ToolCallRecord {
  /** The call's `execute_tool` span (absent without a trace): the reviewer's request is its child. */
  readonly span?: Span;
  /** The `tool_call` item of a server execution, open while the tool runs. */
  private running?: RunItemState;

  constructor(
    private readonly scope: ToolCallScope,
    readonly call: CallToRecord,
    private readonly runTool?: RunTool,
    options: { source?: string; approvedBy?: 'user' } = {},
  ) {
    this.span = scope.trace?.toolCall(call, runTool, options.source);
    // Approved by a person: the permission path was `ask`, and the answer allowed it.
    if (options.approvedBy) this.span?.setAttribute(ATTR.toolApprovedBy, options.approvedBy);
  }

  /** The span's ids, for the execution (a subagent's child run continues the trace beneath it). */
  spanIds() {
    return this.span ? AttemptTrace.ids(this.span) : undefined;
  }

  /** The reviewer let the call run: its verdict goes on the span of the execution. */
  reviewed(verdict: Record<string, unknown> | undefined) {
    if (this.span && verdict) recordVerdict(this.span, verdict);
  }

  /** A server tool starts running: its `tool_call` item, in progress until the call settles. */
  started() {
    this.running = this.scope.items.open('tool_call', { ...this.ids(), arguments: this.call.arguments, server: true });
  }

  /**
   * The attempt was aborted while the tool ran (a cancel or a hand-over ends the attempt, not the
   * call alone): the span says so; the item stays as it was, and the attempt's end settles the run.
   */
  aborted() {
    if (this.span) endTool(this.span, { outcome: 'error', error: 'aborted' });
  }

  /** Records how the call ended — its items, its span — and returns what the model is told or what the run waits with. */
  async settle(outcome: ToolCallOutcome): Promise<SettledCall> {
    const { items } = this.scope;
    const { call } = this;
    if (this.running)
      items.complete(
        this.running,
        outcome.kind === 'failed' ? { error: outcome.error } : {},
        outcome.kind === 'failed' ? 'failed' : 'completed',
      );
    if (this.span) endTool(this.span, spanEnd(outcome));
    // A call without a tool of the run (an unknown name) has no execution kind.
    countToolCall(this.runTool?.execution.kind ?? 'unknown', outcome.kind);
    switch (outcome.kind) {
      case 'returned':
        return { told: await this.result(outcome.value) };
      case 'failed':
        items.open('tool_result', { ...this.ids(), error: outcome.error }, 'completed');
        return {
          told: toldNow(call, outcome),
          failure: { toolCallId: call.toolCallId, toolName: call.toolName, error: outcome.error },
        };
      case 'denied':
        items.open('tool_result', { ...this.ids(), denied: true, denied_by: outcome.by, error: outcome.message }, 'completed');
        return { told: toldNow(call, outcome) };
      case 'approval_requested': {
        const review = outcome.verdict ? { review: outcome.verdict } : {};
        items.open('approval_request', { ...this.ids(), arguments: call.arguments, ...review }, 'completed');
        return { waitsFor: 'approval', entry: pendingEntry(call, { kind: 'approval', title: outcome.title, ...review }) };
      }
      case 'client_call':
        items.open('client_call', { ...this.ids(), arguments: call.arguments }, 'completed');
        return { waitsFor: 'call', entry: pendingEntry(call, { kind: 'client_call', title: outcome.title }) };
      case 'forwarded':
        items.open('client_call', { ...this.ids(), arguments: call.arguments }, 'completed');
        return { waitsFor: 'call', entry: outcome.entry };
      case 'question': {
        const question = call.arguments.question ?? '';
        const choices = call.arguments.choices ?? [];
        items.open('question', { tool_call_id: call.toolCallId, question, choices }, 'completed');
        return { waitsFor: 'call', entry: pendingEntry(call, { kind: 'question', question, choices }) };
      }
    }
  }

  /** The call as its items name it. */
  private ids() {
    return { tool_call_id: this.call.toolCallId, tool_name: this.call.toolName };
  }

  /**
   * A server tool's result: its `tool_result` item and the model's message — the value itself, or,
   * when it is large (tool-output.ts), stored as an asset of the item with a preview for the model.
   */
  private async result(value: unknown): Promise<ToolResultPart> {
    const { items } = this.scope;
    const { toolCallId, toolName } = this.call;
    const presented = this.runTool?.inlineResult ? ({ kind: 'inline', value } as const) : presentOutput(value);
    if (presented.kind === 'inline') {
      items.open('tool_result', { ...this.ids(), result: value ?? null }, 'completed');
      return jsonResult(toolCallId, toolName, value);
    }
    const resultItem = items.open('tool_result', { ...this.ids() }, 'in_progress');
    await items.storeAsAsset(resultItem, 'result', presented.text, presented.mediaType, presented.sizeBytes);
    const refId = (resultItem.contentRefs.result as { id: string }).id;
    items.complete(resultItem);
    return { type: 'tool-result', toolCallId, toolName, output: { type: 'text', value: modelPreview(refId, presented) } };
  }
}
