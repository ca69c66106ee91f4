// The trace of one attempt of a run: its run span (a root span of the run's trace, or — for a
// subagent's child run — a child of the delegating tool call span), with a span per model request
// and per tool call beneath it, and events for retries and pauses. The engine calls these at the
// points where those things happen; the spans are stored when the attempt ends (span-store.ts).
// Names and attributes: docs/api/traces.md.
import { SpanKind, SpanStatusCode, type Attributes, type Link, type Span } from '@opentelemetry/api';
import type { Run } from '../services/rows.js';
import type { SealOutcome } from '../features/runs/run-lifecycle.js';
import type { RunTracer } from '../traces/run-tracer.js';
import { ATTR, EVENT } from '../traces/names.js';
import type { ResolvedModel } from './models.js';
import type { RunTool } from './tools/tool.js';

/** The span a resumed or forked run links to: its parent run's last run span. */
export interface SpanRef {
  trace_id: string;
  span_id: string;
}

/** How a tool call was decided and ended, for its span. */
export interface ToolSpanEnd {
  /** ok: it ran; error: it failed (or was unknown / invalid); denied: refused; waiting: the run waits for it. */
  outcome: 'ok' | 'error' | 'denied' | 'waiting';
  error?: string;
  deniedBy?: 'configuration' | 'reviewer' | 'user';
  /** With `waiting`: what the run waits for (an approval, the client, the user's answer). */
  waitFor?: 'approval' | 'client_tool' | 'user_question';
  verdict?: Record<string, unknown>;
}

const errorStatus = (message: string) => ({ code: SpanStatusCode.ERROR, message });

export class AttemptTrace {
  readonly runSpan: Span;
  private readonly base: Attributes;
  private modelRequests = 0;

  constructor(
    private readonly tracer: RunTracer,
    run: Run,
    attempt: number,
    linkTo: SpanRef | null,
  ) {
    this.base = {
      [ATTR.runId]: run.id,
      [ATTR.workspaceId]: run.workspaceId,
      [ATTR.agentId]: run.agentId,
      [ATTR.attempt]: attempt,
    };
    const links: Link[] = linkTo
      ? [{ context: { traceId: linkTo.trace_id, spanId: linkTo.span_id, traceFlags: 1 }, attributes: { [ATTR.lineage]: run.lineage } }]
      : [];
    this.runSpan = tracer.startSpan({
      name: `invoke_agent ${run.agentId}`,
      kind: SpanKind.INTERNAL,
      attributes: {
        ...this.base,
        [ATTR.operationName]: 'invoke_agent',
        [ATTR.conversationId]: run.threadId,
        [ATTR.lineage]: run.lineage,
        ...(run.parentRunId ? { [ATTR.parentRunId]: run.parentRunId } : {}),
      },
      parent: run.traceParentSpanId && run.traceId ? { traceId: run.traceId, spanId: run.traceParentSpanId } : undefined,
      traceId: run.traceId ?? undefined,
      links,
    });
  }

  /** The run span's ids (what a subagent's child run descends from, through its delegating call). */
  static ids(span: Span): { traceId: string; spanId: string } {
    const { traceId, spanId } = span.spanContext();
    return { traceId, spanId };
  }

  /** A model request starts: a `chat {model}` client span. */
  modelRequest(model: ResolvedModel): Span {
    this.modelRequests += 1;
    return this.chat(model, this.runSpan, { [ATTR.modelRequest]: this.modelRequests });
  }

  /** The reviewer's model request about a call: a `chat {model}` span beneath the call's span (`wsa.model.purpose`: `review`). */
  reviewRequest(toolSpan: Span, model: ResolvedModel): Span {
    return this.chat(model, toolSpan, { [ATTR.modelPurpose]: 'review' });
  }

  /**
   * A compaction of the conversation (context/manager.ts): a `compact_context` span beneath the run
   * span, with the summarising model and, when it ends, the tokens before and after and the messages
   * it covers (`wsa.context.*`); `wsa.model.purpose` is `compaction`.
   */
  compaction(model: ResolvedModel, figures: { reason: string }): Span {
    return this.modelSpan('compact_context', SpanKind.INTERNAL, model, this.runSpan, {
      [ATTR.modelPurpose]: 'compaction',
      [ATTR.contextReason]: figures.reason,
    });
  }

  /** A `chat {model}` client span beneath `parent`. */
  private chat(model: ResolvedModel, parent: Span, attributes: Attributes): Span {
    return this.modelSpan('chat', SpanKind.CLIENT, model, parent, attributes);
  }

  /**
   * A span of an operation that asks a model: named `chat {model id}` for a chat, else by the
   * operation; the model's provider, id and key beside the attempt's own attributes.
   */
  private modelSpan(
    operation: 'chat' | 'compact_context',
    kind: SpanKind,
    model: ResolvedModel,
    parent: Span,
    attributes: Attributes,
  ): Span {
    const modelId = (model.model as { modelId?: string }).modelId ?? model.key;
    return this.tracer.startSpan({
      name: operation === 'chat' ? `chat ${modelId}` : operation,
      kind,
      parent,
      attributes: {
        ...this.base,
        [ATTR.operationName]: operation,
        [ATTR.providerName]: model.providerType,
        [ATTR.requestModel]: modelId,
        [ATTR.modelKey]: model.key,
        ...attributes,
      },
    });
  }

  /** A model request that could not start (its model could not be resolved): a failed span all the same. */
  modelUnavailable(key: string, error: unknown) {
    this.modelRequests += 1;
    const span = this.tracer.startSpan({
      name: `chat ${key}`,
      kind: SpanKind.CLIENT,
      parent: this.runSpan,
      attributes: { ...this.base, [ATTR.operationName]: 'chat', [ATTR.modelKey]: key, [ATTR.modelRequest]: this.modelRequests },
    });
    endModelRequest(span, { error });
  }

  /** A tool call is handled: an `execute_tool {name}` span, ended by `endTool`. */
  toolCall(call: { toolCallId: string; toolName: string }, runTool: RunTool | undefined, source: string | undefined): Span {
    const attributes: Attributes = {
      ...this.base,
      [ATTR.operationName]: 'execute_tool',
      [ATTR.toolName]: call.toolName,
      [ATTR.toolCallId]: call.toolCallId,
    };
    if (runTool) {
      attributes[ATTR.toolType] = runTool.execution.kind === 'server' ? 'extension' : 'function';
      attributes[ATTR.toolExecution] = runTool.execution.kind;
      attributes[ATTR.toolPermission] = runTool.permission;
      if (source) attributes[ATTR.toolSource] = source;
      if (runTool.namespace) attributes[ATTR.toolNamespace] = runTool.namespace;
    }
    return this.tracer.startSpan({ name: `execute_tool ${call.toolName}`, kind: SpanKind.INTERNAL, parent: this.runSpan, attributes });
  }

  /** An output or tool retry within the attempt (the model is asked again). */
  retry(reason: string, left: number, detail?: string) {
    this.runSpan.addEvent(EVENT.retry, { [ATTR.retryReason]: reason, [ATTR.retriesLeft]: left, ...(detail ? { message: detail } : {}) });
  }

  /** The attempt ends: the outcome on the run span (a pause is an event with its reason and the calls it waits for). */
  end(outcome: SealOutcome | { kind: 'retry'; message: string } | { kind: 'handed_back' }) {
    const span = this.runSpan;
    span.setAttribute(ATTR.outcome, outcome.kind);
    if (outcome.kind === 'waiting') {
      span.setAttribute(ATTR.waitReason, outcome.reason);
      span.addEvent(EVENT.pause, {
        [ATTR.pauseReason]: outcome.reason,
        [ATTR.toolCallIds]: [...outcome.approvals, ...outcome.calls].map((entry) => entry.tool_call_id),
      });
      span.setStatus({ code: SpanStatusCode.OK });
    } else if (outcome.kind === 'completed') span.setStatus({ code: SpanStatusCode.OK });
    else if (outcome.kind === 'failed') {
      span.setAttribute(ATTR.failureCode, outcome.code);
      span.setAttribute(ATTR.errorType, outcome.code);
      span.setStatus(errorStatus(outcome.message));
    } else if (outcome.kind === 'retry') {
      span.addEvent(EVENT.retry, { [ATTR.retryReason]: 'transient_error', message: outcome.message });
      span.setAttribute(ATTR.errorType, 'transient_error');
      span.setStatus(errorStatus(outcome.message));
    } else if (outcome.kind === 'cancelled') span.addEvent(EVENT.cancelled);
    span.end();
  }
}

/** Ends a model request span with its tokens and finish reason, or its error. */
export function endModelRequest(
  span: Span,
  result: { inputTokens?: number; outputTokens?: number; finishReason?: string; timeToFirstTokenMs?: number; error?: unknown },
) {
  if (result.timeToFirstTokenMs !== undefined) span.setAttribute(ATTR.timeToFirstToken, result.timeToFirstTokenMs);
  if (result.inputTokens !== undefined) span.setAttribute(ATTR.inputTokens, result.inputTokens);
  if (result.outputTokens !== undefined) span.setAttribute(ATTR.outputTokens, result.outputTokens);
  if (result.finishReason) span.setAttribute(ATTR.finishReasons, [result.finishReason]);
  if (result.error !== undefined) {
    const error = result.error as { name?: string; message?: string; code?: string };
    span.setAttribute(ATTR.errorType, error?.code ?? error?.name ?? 'error');
    span.setStatus(errorStatus(error?.message ?? String(result.error)));
  }
  span.end();
}

/** The reviewer's verdict on a call, on its span. */
export function recordVerdict(span: Span, verdict: Record<string, unknown>) {
  if (typeof verdict.action === 'string') span.setAttribute(ATTR.reviewAction, verdict.action);
  if (typeof verdict.risk === 'string') span.setAttribute(ATTR.reviewRisk, verdict.risk);
  if (typeof verdict.flagged === 'boolean') span.setAttribute(ATTR.reviewFlagged, verdict.flagged);
  if (typeof verdict.error === 'string') span.setAttribute('wsa.review.error', verdict.error);
}

/** Ends a tool call span with how it was decided and ended. */
export function endTool(span: Span, end: ToolSpanEnd) {
  span.setAttribute(ATTR.toolOutcome, end.outcome);
  if (end.deniedBy) span.setAttribute(ATTR.toolDeniedBy, end.deniedBy);
  if (end.verdict) recordVerdict(span, end.verdict);
  if (end.outcome === 'waiting') span.addEvent(EVENT.pause, { [ATTR.pauseReason]: end.waitFor ?? 'approval' });
  if (end.error !== undefined) {
    span.setAttribute(ATTR.errorType, 'tool_error');
    span.setStatus(errorStatus(end.error));
  }
  span.end();
}
