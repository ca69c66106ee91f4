// One model turn: a request to the model (through the AI SDK), streamed into run items as it comes —
// text and reasoning grow item by item — and returned as the assistant message with its tool calls.
// Tools are offered without `execute`: the SDK only reports calls; dispatch.ts carries them out.
import { streamText, type AssistantModelMessage, type ModelMessage, type TextPart, type ToolCallPart, type ToolSet } from 'ai';
import type { SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { RunItemStream, RunItemState } from './items.js';
import { describeError } from './attempt-errors.js';
import { callSettings, type ResolvedModel } from './models.js';
import { addTokens, tokensOf, type Usage } from './usage.js';

export type { Usage };

/** A tool call the model made; `invalid` when its name or arguments were refused (the model is told why). */
export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  invalid?: string;
}

export interface TurnRequest {
  model: ResolvedModel;
  system: string;
  messages: ModelMessage[];
  tools: ToolSet;
  signal: AbortSignal;
  /** Provider options of the request (prompt caching: context/caching.ts). */
  providerOptions?: SharedV4ProviderOptions;
}

export interface Turn {
  text: string;
  toolCalls: ToolCall[];
  assistant: AssistantModelMessage;
  /** Why the model stopped (`stop`, `tool-calls`, `length`, …), and this request's tokens: what its trace span records. */
  finishReason?: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

/** Streams one model request into `items`, adding its tokens to `usage`. Throws on a model error or an abort. */
export async function streamTurn(request: TurnRequest, items: RunItemStream, usage: Usage): Promise<Turn> {
  const { model, system, messages, tools, signal, providerOptions } = request;
  // Errors arrive as stream parts and are handled below (onError only silences the SDK's own logging).
  const result = streamText({
    model: model.model,
    instructions: system || undefined,
    messages,
    tools,
    abortSignal: signal,
    maxRetries: 0,
    experimental_download: model.download,
    onError: () => undefined,
    ...callSettings(model.settings),
    ...(providerOptions ? { providerOptions } : {}),
    // The system prompt is a message only where it carries a prompt-cache mark (context/caching.ts).
    allowSystemInMessages: true,
  });
  let text = '';
  let textItem: RunItemState | null = null;
  let reasoningItem: RunItemState | null = null;
  const toolCalls: ToolCall[] = [];
  let finishReason: string | undefined;
  let inputTokens = 0;
  let outputTokens = 0;
  let cachedInputTokens = 0;
  for await (const part of result.stream) {
    switch (part.type) {
      case 'text-delta':
        textItem ??= items.open('text_message', { role: 'assistant', text: '' });
        text += part.text;
        items.append(textItem, 'text', part.text);
        break;
      case 'reasoning-delta':
        reasoningItem ??= items.open('reasoning', { text: '' });
        items.append(reasoningItem, 'text', part.text);
        break;
      case 'tool-call':
        toolCalls.push({
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          ...(part.invalid ? { invalid: part.error === undefined ? 'invalid arguments' : describeError(part.error) } : {}),
        });
        break;
      // No 'tool-error' case: the tools have no `execute`, so the SDK sends one only to echo a call it
      // refused (an unknown tool, invalid arguments) — a call already reported above as `invalid`.
      // Taking it too would record, tell the model about and count against retries.tools that call twice.
      case 'finish-step': {
        const tokens = tokensOf(part.usage);
        inputTokens += tokens.input;
        outputTokens += tokens.output;
        cachedInputTokens += tokens.cachedInput;
        addTokens(usage, model, tokens);
        finishReason = part.finishReason;
        break;
      }
      case 'abort':
        throw signal.reason ?? new Error('aborted');
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
  if (textItem) items.complete(textItem);
  if (reasoningItem) items.complete(reasoningItem);
  return { text, toolCalls, assistant: assistantMessage(text, toolCalls), finishReason, inputTokens, outputTokens, cachedInputTokens };
}

/** The assistant message of a turn: its text, then its tool calls (never empty: a blank text part at least). */
export function assistantMessage(text: string, toolCalls: ToolCall[]): AssistantModelMessage {
  const content: (TextPart | ToolCallPart)[] = [];
  if (text) content.push({ type: 'text', text });
  for (const call of toolCalls)
    content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input ?? {} });
  return { role: 'assistant', content: content.length ? content : [{ type: 'text', text: '' }] };
}
