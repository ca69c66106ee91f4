// The attribute and span names of run traces. OpenTelemetry's GenAI semantic conventions where they
// name the thing (`gen_ai.*`, `error.type`); the service's own under `wsa.` (docs/api/traces.md).
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';

export const ATTR = {
  // GenAI semantic conventions.
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  errorType: 'error.type',
  // The service's own.
  runId: 'wsa.run.id',
  workspaceId: 'wsa.workspace.id',
  attempt: 'wsa.run.attempt',
  lineage: 'wsa.run.lineage',
  parentRunId: 'wsa.run.parent_run_id',
  outcome: 'wsa.run.outcome',
  failureCode: 'wsa.run.failure_code',
  waitReason: 'wsa.run.wait_reason',
  modelKey: 'wsa.model.key',
  modelRequest: 'wsa.model.request',
  modelPurpose: 'wsa.model.purpose',
  timeToFirstToken: 'wsa.model.time_to_first_token_ms',
  toolSource: 'wsa.tool.source',
  toolNamespace: 'wsa.tool.namespace',
  toolExecution: 'wsa.tool.execution',
  toolPermission: 'wsa.tool.permission',
  toolOutcome: 'wsa.tool.outcome',
  toolDeniedBy: 'wsa.tool.denied_by',
  toolApprovedBy: 'wsa.tool.approved_by',
  reviewAction: 'wsa.review.action',
  reviewRisk: 'wsa.review.risk',
  reviewFlagged: 'wsa.review.flagged',
  retryReason: 'wsa.retry.reason',
  retriesLeft: 'wsa.retry.left',
  pauseReason: 'wsa.pause.reason',
  toolCallIds: 'wsa.pause.tool_call_ids',
  contextReason: 'wsa.context.reason',
  contextTokensBefore: 'wsa.context.tokens_before',
  contextTokensAfter: 'wsa.context.tokens_after',
  contextMessagesCovered: 'wsa.context.messages_covered',
  contextMessagesSummarised: 'wsa.context.messages_summarised',
  contextRequests: 'wsa.context.requests',
} as const;

/** Span events the engine records. */
export const EVENT = {
  retry: 'wsa.retry',
  pause: 'wsa.pause',
  cancelled: 'wsa.cancelled',
} as const;

export const SPAN_KIND_NAMES: Record<number, string> = {
  [SpanKind.INTERNAL]: 'internal',
  [SpanKind.SERVER]: 'server',
  [SpanKind.CLIENT]: 'client',
  [SpanKind.PRODUCER]: 'producer',
  [SpanKind.CONSUMER]: 'consumer',
};

export const STATUS_NAMES: Record<number, string> = {
  [SpanStatusCode.UNSET]: 'unset',
  [SpanStatusCode.OK]: 'ok',
  [SpanStatusCode.ERROR]: 'error',
};
