// Opens one model request as the provider's own stream of parts (`LanguageModelV4.doStream`), prepared
// exactly as the AI SDK's `streamText` prepares its one step — the same prompt conversion, tool
// descriptions, call settings — but read by model-turn.ts without `streamText`'s pipeline. That
// pipeline puts every part through a dozen web-stream stages (retry buffering, tool execution, step
// bookkeeping, output parsing, the event processor) that a turn with tools but no `execute` and one step
// never uses: at a hundred live runs it was the largest share of the service's CPU per streamed token.
// What `streamText` did with a part that model-turn.ts still needs — a tool call's parsing and
// validation, the usage in the SDK's shape, the normalised error of an `error` part, the warnings it
// logs — is done here with the SDK's own functions (`ai/internal`), so the results are the same.
// An `openai_compatible` chat answer goes one step further: its provider's fetch may claim the
// streaming answer (a slot opened around `doStream`, providers/lean-chat-fetch.ts) and the parts are
// then read from the body by the lean reader (providers/lean-chat-stream.ts) — the same parts, without
// the provider package's web-stream pipeline per token.
import { AISDKError, NoOutputGeneratedError, StreamProviderError, type ModelMessage, type ToolSet } from 'ai';
import {
  convertToLanguageModelPrompt,
  logWarnings,
  parseToolCall,
  prepareCallSettings,
  prepareToolChoice,
  prepareTools,
  standardizePrompt,
} from 'ai/internal';
import type { LanguageModelV4ToolCall, SharedV4ProviderOptions, SharedV4Warning } from '@ai-sdk/provider';
import { GatewayAuthenticationError } from '@ai-sdk/gateway';
import { callSettings, type ResolvedModel } from './models.js';
import { withLeanSlot, type LeanSlot } from '../providers/lean-chat-fetch.js';
import { openLeanParts, type ChatModelInternals, type PartReader } from '../providers/lean-chat-stream.js';

export interface ModelStreamRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  signal: AbortSignal;
  /** Provider options of the request (prompt caching: context/caching.ts). */
  providerOptions?: SharedV4ProviderOptions;
}

export interface ModelStream {
  /**
   * The provider's parts, in order: the reader of the provider's stream, or the lean reader's queue
   * where an `openai_compatible` chat answer was read by it (providers/lean-chat-fetch.ts).
   */
  parts: PartReader;
  /** A provider tool call as `streamText` reports it: parsed, validated against the tool's schema, `invalid` with its `error` when refused. */
  parseToolCall(call: LanguageModelV4ToolCall): ReturnType<typeof parseToolCall<ToolSet>>;
}

/** Sends the request; resolves once the provider answered with a stream (its HTTP errors reject, as `streamText` reported them). */
export async function openModelStream(request: ModelStreamRequest): Promise<ModelStream> {
  const { model, system, messages, tools, signal, providerOptions } = request;
  const languageModel = model.model;
  // The system prompt is a message only where it carries a prompt-cache mark (context/caching.ts).
  const prompt = await standardizePrompt({ instructions: system || undefined, messages, allowSystemInMessages: true });
  const promptMessages = await convertToLanguageModelPrompt({
    prompt,
    supportedUrls: await languageModel.supportedUrls,
    // Media URLs the model cannot take itself are downloaded through the outbound policy (models.ts).
    download: model.download,
    abortSignal: signal,
    provider: languageModel.provider.split('.')[0],
  });
  const callOptions = {
    ...prepareCallSettings(callSettings(model.settings)),
    tools: await prepareTools({ tools }),
    toolChoice: prepareToolChoice({ toolChoice: undefined }),
    prompt: promptMessages,
    providerOptions,
  };
  // A model whose fetch can claim its streaming answer for the lean reader gets a slot to claim it into.
  const slot: LeanSlot = { answer: null };
  const { stream } = await withLeanSlot(slot, (abortSignal) => languageModel.doStream({ ...callOptions, abortSignal }), signal);
  return {
    parts: slot.answer
      ? await openLeanParts(languageModel as unknown as ChatModelInternals, stream, slot.answer.body, { coalesce: true })
      : stream.getReader(),
    parseToolCall: (call) =>
      parseToolCall({
        toolCall: call,
        tools,
        repairToolCall: undefined,
        instructions: prompt.instructions,
        messages: prompt.messages,
        abortSignal: signal,
      }),
  };
}

/** The warnings of a request, logged as `streamText` logs them after its step (the SDK's `AI_SDK_LOG_WARNINGS` applies). */
export function logModelWarnings(model: ResolvedModel, warnings: SharedV4Warning[]): void {
  logWarnings({ warnings, provider: model.model.provider, model: model.model.modelId });
}

/** What `streamText` threw for a stream that ended with neither output nor a finish. */
export function noOutputError(): Error {
  return new NoOutputGeneratedError({ message: 'No output generated. The model stream ended without a finish chunk.' });
}

/**
 * The error an `error` part carries, as `streamText` reported it: an Error stays as it is; a provider's
 * error object (`{ type, error: { message, … } }` and the like) becomes a `StreamProviderError` with its
 * message, code, status and whether a retry may help; the AI gateway's missing-key error gets the SDK's hint.
 */
export function streamPartError(error: unknown): unknown {
  const normalized = normalizeProviderError(error);
  if (!GatewayAuthenticationError.isInstance(normalized)) return normalized;
  const moreInfo = 'https://ai-sdk.dev/unauthenticated-ai-gateway';
  return new AISDKError({
    name: 'GatewayError',
    message: `Unauthenticated. Configure AI_GATEWAY_API_KEY or use a provider module. Learn more: ${moreInfo}`,
  });
}

/** The mark the provider packages put on their stream errors (a registered symbol of the AI SDK). */
const PROVIDER_STREAM_ERROR = Symbol.for('vercel.ai.providerStreamError');
type Record_ = Record<string | symbol, unknown>;
const asRecord = (value: unknown): Record_ | undefined => (typeof value === 'object' && value !== null ? (value as Record_) : undefined);
const asString = (value: unknown) => (typeof value === 'string' ? value : undefined);
const asBoolean = (value: unknown) => (typeof value === 'boolean' ? value : undefined);
const asCode = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? value : undefined);
function asStatus(value: unknown): number | undefined {
  const status = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}
/** Bare messages some providers send for a retryable failure, with the status they stand for. */
const KNOWN_MESSAGES: Record<string, number> = {
  overloaded: 503,
  'overloaded error': 503,
  'model overloaded': 503,
  'internal server error': 500,
  'service unavailable': 503,
};
const retryableStatus = (status: number | undefined) =>
  status !== undefined && (status === 408 || status === 409 || status === 429 || status >= 500);

/** The AI SDK's normalisation of a stream's provider error (its `normalizeStreamProviderError`, not exported). */
function normalizeProviderError(error: unknown): unknown {
  if (error instanceof Error || Object.prototype.toString.call(error) === '[object Error]' || AISDKError.isInstance(error)) return error;
  const outer = asRecord(error);
  if (!outer) return error;
  // A provider package's own stream error (`createProviderStreamError`) carries its fields at the top.
  const marked = outer[PROVIDER_STREAM_ERROR] === true;
  const details = marked ? outer : (asRecord(asRecord(outer.response)?.error) ?? asRecord(outer.error) ?? outer);
  if (typeof details.message !== 'string') return error;
  const pick = <T>(read: (value: unknown) => T | undefined, ...keys: string[]) => {
    for (const key of keys) {
      const value = read(details[key]) ?? read(outer[key]);
      if (value !== undefined) return value;
    }
    return undefined;
  };
  const known = KNOWN_MESSAGES[details.message.trim().toLowerCase()];
  const statusCode = pick(asStatus, 'statusCode', 'status_code', 'status', 'code') ?? known;
  return new StreamProviderError({
    message: details.message,
    type: pick(asString, 'type'),
    code: pick(asCode, 'code'),
    statusCode,
    isRetryable: pick(asBoolean, 'isRetryable', 'is_retryable') ?? (known !== undefined || retryableStatus(statusCode)),
    data: marked ? outer.data : error,
  });
}
