// One model turn: a request to the model, streamed into run items as it comes — text and reasoning
// grow item by item — and returned as the assistant message with its tool calls. The request is the
// AI SDK's (model-stream.ts prepares it as `streamText` does) and its parts are read here straight from
// the provider's stream: one read and one switch per part, where `streamText` passed each through a
// pipeline of web streams. Tools are offered without `execute`: the model only reports calls;
// dispatch.ts carries them out.
import type { AssistantModelMessage, LanguageModelUsage, TextPart, ToolCallPart } from 'ai';
import { asLanguageModelUsage, createNullLanguageModelUsage } from 'ai/internal';
import type { LanguageModelV4FinishReason, SharedV4Warning } from '@ai-sdk/provider';
import type { RunItemStream, RunItemState } from './items.js';
import { describeError } from './attempt-errors.js';
import { logModelWarnings, noOutputError, openModelStream, streamPartError, type ModelStreamRequest } from './model-stream.js';
import { addTokens, tokensOf, type Usage } from './usage.js';
import { modelMetrics } from '../lib/service-metrics.js';

export type { Usage };

/** A tool call the model made; `invalid` when its name or arguments were refused (the model is told why). */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: string;
}

/** One model request: what model-stream.ts sends. */
export type TurnRequest = ModelStreamRequest;

export interface Turn {
  text: string;
  toolCalls: ToolCall[];
  assistant: AssistantModelMessage;
  /** Why the model stopped (`stop`, `tool-calls`, `length`, …), and this request's tokens: what its trace span records. */
  finishReason?: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Milliseconds from sending the request to the first streamed text, reasoning or tool call (none: nothing came). */
  timeToFirstTokenMs?: number;
}

/** What an abort throws: the signal's reason (a cancel, a shutdown, a lost lease), as `streamText`'s abort part carried it. */
const abortError = (signal: AbortSignal): unknown => signal.reason ?? new Error('aborted');

/** Streams one model request into `items`, adding its tokens to `usage`. Throws on a model error or an abort. */
export async function streamTurn(request: TurnRequest, items: RunItemStream, usage: Usage): Promise<Turn> {
  const { model, signal } = request;
  const clock = modelMetrics.firstTokenClock(model.key, model.providerType);
  // The same instant the metric observes, kept for the request's trace span.
  const sent = performance.now();
  let firstTokenMs: number | undefined;
  const firstToken = {
    part() {
      firstTokenMs ??= performance.now() - sent;
      clock.part();
    },
  };
  let stream;
  try {
    stream = await openModelStream(request);
  } catch (error) {
    throw signal.aborted ? abortError(signal) : error;
  }
  const { parts } = stream;
  let text = '';
  let textItem: RunItemState | null = null;
  let reasoningItem: RunItemState | null = null;
  const toolCalls: ToolCall[] = [];
  let warnings: SharedV4Warning[] = [];
  let finish: { reason: LanguageModelV4FinishReason; usage: LanguageModelUsage } | null = null;
  // Whether the model produced anything: a stream that ends with neither this nor a finish is an error.
  let produced = false;
  try {
    for (;;) {
      let read;
      try {
        read = await parts.read();
      } catch (error) {
        throw signal.aborted ? abortError(signal) : error;
      }
      if (signal.aborted) throw abortError(signal);
      if (read.done) break;
      const part = read.value;
      switch (part.type) {
        case 'stream-start':
          warnings = part.warnings;
          break;
        case 'text-delta':
          // An empty delta counts only when it brings provider metadata (as `streamText` passes it).
          if (!part.delta && part.providerMetadata == null) break;
          if (part.delta) produced = true;
          firstToken.part();
          textItem ??= items.open('text_message', { role: 'assistant', text: '' });
          text += part.delta;
          items.append(textItem, 'text', part.delta);
          break;
        case 'reasoning-delta':
          if (part.delta) produced = true;
          firstToken.part();
          reasoningItem ??= items.open('reasoning', { text: '' });
          items.append(reasoningItem, 'text', part.delta);
          break;
        case 'tool-input-delta':
          if (part.delta) produced = true;
          break;
        case 'file':
          produced = true;
          break;
        case 'tool-call': {
          produced = true;
          firstToken.part();
          // Parsed and checked against the tool's input schema; a call of an unknown tool or with
          // invalid arguments comes back `invalid` (the model is told why), never thrown.
          const call = await stream.parseToolCall(part);
          toolCalls.push({
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            input: call.input,
            ...(call.invalid ? { invalid: call.error === undefined ? 'invalid arguments' : describeError(call.error) } : {}),
          });
          break;
        }
        case 'finish':
          finish = { reason: part.finishReason, usage: asLanguageModelUsage(part.usage) };
          break;
        case 'error':
          throw streamPartError(part.error);
        default:
          break;
      }
    }
  } catch (error) {
    // Release the provider's response (a no-op once the stream has ended or failed).
    parts.cancel(error).catch(() => undefined);
    throw error;
  }
  if (!finish && !produced) throw noOutputError();
  // The request's tokens count once its stream has ended well (a stream without a finish part reports none).
  const tokens = tokensOf(finish?.usage ?? createNullLanguageModelUsage());
  addTokens(usage, model, tokens);
  logModelWarnings(model, warnings);
  if (textItem) items.complete(textItem);
  if (reasoningItem) items.complete(reasoningItem);
  return {
    text,
    toolCalls,
    assistant: assistantMessage(text, toolCalls),
    finishReason: finish?.reason.unified ?? 'other',
    inputTokens: tokens.input,
    outputTokens: tokens.output,
    cachedInputTokens: tokens.cachedInput,
    ...(firstTokenMs !== undefined ? { timeToFirstTokenMs: Math.round(firstTokenMs * 1000) / 1000 } : {}),
  };
}

/** The assistant message of a turn: its text, then its tool calls (never empty: a blank text part at least). */
export function assistantMessage(text: string, toolCalls: ToolCall[]): AssistantModelMessage {
  const content: (TextPart | ToolCallPart)[] = [];
  if (text) content.push({ type: 'text', text });
  for (const call of toolCalls)
    content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input ?? {} });
  return { role: 'assistant', content: content.length ? content : [{ type: 'text', text: '' }] };
}
