// The lean reader of an OpenAI-compatible chat-completions stream: a 200 `text/event-stream` answer's
// body (a node Readable, the outbound policy's connection) read straight into the provider's stream
// parts — one `data` listener, the SSE parser of sse-events.ts, one `JSON.parse` per event and a plain
// queue the turn reads — where the AI SDK put every event through a web-stream pipeline (the fetch
// body, a TextDecoderStream, an EventSourceParserStream, a zod validation, the model's own
// TransformStream). That pipeline was about a third of the service's CPU per streamed token.
//
// The parts are the ones `@ai-sdk/openai-compatible`'s chat model makes in its `doStream` — the same
// order, ids, finish reasons, usage, provider metadata and errors — because this file repeats its
// transform (node_modules/@ai-sdk/openai-compatible/dist/index.js, `doStream`) and borrows what it can
// from the SDK itself: the model's own chunk schema and usage conversion, and the tool-call tracker,
// response metadata and JSON parsing of the very provider-utils copy the package imports. Only the
// per-event validation is ours: a chunk of the common shapes (text, reasoning, tool-call deltas, a
// finish reason) is checked by hand; any other chunk (usage, an error object, array content, extra
// content, a `__proto__` key, JSON that does not parse) goes through the SDK's own `safeParseJSON`
// with the model's schema, so its value or its error part is the SDK's. test/unit/lean-chat.test.ts
// runs the SDK's `doStream` and this reader on the same recorded streams and requires equal parts: an
// SDK upgrade that changes its mapping fails that test instead of diverging here.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import { InvalidResponseDataError, type LanguageModelV4StreamPart, type LanguageModelV4Usage } from '@ai-sdk/provider';
import { SseEventParser } from './sse-events.js';

/** What model-turn.ts reads parts through: a web stream's reader has this shape, and so does the lean queue. */
export interface PartReader {
  read(): Promise<ReadableStreamReadResult<LanguageModelV4StreamPart>>;
  cancel(reason?: unknown): Promise<void>;
}

// The provider-utils copy `@ai-sdk/openai-compatible` itself imports (npm may nest a version of its
// own under it): its tool-call tracker and JSON parsing are the ones the SDK's transform uses.
const sdkUtilsPath = createRequire(import.meta.resolve('@ai-sdk/openai-compatible')).resolve('@ai-sdk/provider-utils');
type ProviderUtils = typeof import('@ai-sdk/provider-utils');
const sdkUtils = (await import(pathToFileURL(sdkUtilsPath).href)) as ProviderUtils;

type ParseResult = { success: true; value: unknown; rawValue: unknown } | { success: false; error: unknown; rawValue: unknown };

/** What the lean reader needs of the provider's chat model (members of its instance, not of its typings). */
export interface ChatModelInternals {
  chunkSchema: unknown;
  convertUsage(usage: unknown): LanguageModelV4Usage;
  config: { metadataExtractor?: unknown };
}

export interface LeanChatOptions {
  /** The model whose answer this is (its chunk schema and usage conversion). */
  model: ChatModelInternals;
  /** The request's warnings, for `stream-start` (the SDK's own, read from its stream). */
  warnings: LanguageModelV4StreamPart & { type: 'stream-start' } extends { warnings: infer W } ? W : never;
  /** The key of the provider metadata (the SDK's, per request: the provider options' name). */
  metadataKey: string;
  includeRawChunks?: boolean;
  /**
   * Whether text and reasoning deltas still unread join the delta before them (as the SSE coalescer
   * does for the other provider types): a busy service reads several tokens of one read as one part.
   */
  coalesce?: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const nullishString = (value: unknown) => value == null || typeof value === 'string';
const nullishNumber = (value: unknown) => value == null || typeof value === 'number';

/**
 * Whether a parsed chunk is one the SDK's chunk schema accepts as it is, checked cheaply: the shapes
 * of every text, reasoning and tool-call delta. False sends the chunk to the SDK's own validation.
 */
function isPlainChunk(value: unknown): value is Json {
  if (!isObject(value) || 'error' in value || value.usage != null) return false;
  if (!nullishString(value.id) || !nullishNumber(value.created) || !nullishString(value.model)) return false;
  const choices = value.choices;
  if (!Array.isArray(choices)) return false;
  for (const choice of choices) {
    if (!isObject(choice) || !nullishString(choice.finish_reason)) return false;
    const delta = choice.delta;
    if (delta == null) continue;
    if (!isObject(delta)) return false;
    if (delta.role != null && delta.role !== 'assistant' && delta.role !== '') return false;
    if (!nullishString(delta.content) || !nullishString(delta.refusal)) return false;
    if (!nullishString(delta.reasoning_content) || !nullishString(delta.reasoning)) return false;
    const calls = delta.tool_calls;
    if (calls == null) continue;
    if (!Array.isArray(calls)) return false;
    for (const call of calls) {
      if (!isObject(call) || !nullishNumber(call.index) || !nullishString(call.id) || call.extra_content != null) return false;
      const fn = call.function;
      if (!isObject(fn) || !nullishString(fn.name) || !nullishString(fn.arguments)) return false;
    }
  }
  return true;
}

/** `mapOpenAICompatibleFinishReason` of the package (not exported). */
function unifiedFinishReason(reason: string, hasRefusal: boolean) {
  switch (reason) {
    case 'stop':
      return hasRefusal ? 'content-filter' : 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'function_call':
    case 'tool_calls':
      return 'tool-calls';
    default:
      return 'other';
  }
}

/** `convertOpenAICompatibleContent` of the package (not exported): a delta's content as text and reasoning pieces. */
function contentParts(content: unknown): { type: 'text' | 'reasoning'; text: string }[] {
  if (content == null) return [];
  if (typeof content === 'string') return content.length > 0 ? [{ type: 'text', text: content }] : [];
  const result: { type: 'text' | 'reasoning'; text: string }[] = [];
  for (const part of content as Json[]) {
    if (part.type === 'text' && typeof part.text === 'string') {
      if (part.text.length > 0) result.push({ type: 'text', text: part.text });
    } else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
      const text = (part.thinking as unknown[])
        .filter((chunk): chunk is Json => isObject(chunk) && chunk.type === 'text' && typeof chunk.text === 'string')
        .map((chunk) => chunk.text as string)
        .join('');
      if (text.length > 0) result.push({ type: 'reasoning', text });
    }
  }
  return result;
}

/**
 * The package's `doStream` transform as a plain object: `chunk` per parsed event, `flush` at the end,
 * parts out through `enqueue`. Kept in the package's order, statement for statement.
 */
class ChatPartsMapper {
  private readonly tracker: InstanceType<ProviderUtils['StreamingToolCallTracker']>;
  private readonly pendingToolCalls = new Map<number, { id: string | null; bufferedArguments: string; extraContent: unknown }>();
  private readonly forwardedToolCallIndices = new Set<number>();
  private finishReason: { unified: string; raw: string | undefined } | undefined;
  private rawFinishReason: string | undefined;
  private usage: unknown;
  private metadataExtracted = false;
  private isActiveReasoning = false;
  private isActiveText = false;
  private hasRefusal = false;

  constructor(
    private readonly options: LeanChatOptions,
    private readonly enqueue: (part: LanguageModelV4StreamPart) => void,
  ) {
    const key = options.metadataKey;
    this.tracker = new sdkUtils.StreamingToolCallTracker({ enqueue: (part) => part && enqueue(part) }, {
      generateId: sdkUtils.generateId,
      extractMetadata: (delta: Json) => {
        const signature = ((delta.extra_content as Json | undefined)?.google as Json | undefined)?.thought_signature;
        return signature ? { [key]: { thoughtSignature: signature } } : undefined;
      },
      buildToolCallProviderMetadata: (metadata: unknown) => metadata,
    } as never);
    enqueue({ type: 'stream-start', warnings: options.warnings });
  }

  chunk(chunk: ParseResult): void {
    const enqueue = this.enqueue;
    if (this.options.includeRawChunks) enqueue({ type: 'raw', rawValue: chunk.rawValue });
    if (!chunk.success) {
      this.finishReason = { unified: 'error', raw: undefined };
      this.rawFinishReason = undefined;
      enqueue({ type: 'error', error: chunk.error });
      return;
    }
    const value = chunk.value as Json;
    if ('error' in value) {
      this.finishReason = { unified: 'error', raw: undefined };
      this.rawFinishReason = undefined;
      enqueue({ type: 'error', error: value.error });
      return;
    }
    if (!this.metadataExtracted) {
      const metadata = sdkUtils.createLanguageModelResponseMetadata({
        id: value.id as string | null | undefined,
        model: value.model as string | null | undefined,
        created: (value.created as number | null | undefined) || undefined,
      });
      if (Object.values(metadata).some(Boolean)) {
        this.metadataExtracted = true;
        enqueue({ type: 'response-metadata', ...metadata });
      }
    }
    if (value.usage != null) this.usage = value.usage;
    const choice = (value.choices as Json[])[0];
    if (choice?.finish_reason != null) this.rawFinishReason = choice.finish_reason as string;
    if (choice?.delta == null) return;
    const delta = choice.delta as Json;
    const reasoning = (delta.reasoning_content ?? delta.reasoning) as string | null | undefined;
    if (reasoning) this.reasoningDelta(reasoning);
    for (const part of contentParts(delta.content)) {
      if (part.type === 'reasoning') this.reasoningDelta(part.text);
      else this.textDelta(part.text);
    }
    const refusal = delta.refusal as string | null | undefined;
    if (refusal != null && refusal.length > 0) {
      this.hasRefusal = true;
      this.textDelta(refusal);
    }
    const calls = delta.tool_calls as Json[] | null | undefined;
    if (calls != null && calls.length > 0) {
      if (this.isActiveReasoning) {
        enqueue({ type: 'reasoning-end', id: 'reasoning-0' });
        this.isActiveReasoning = false;
      }
      for (const call of calls) this.toolCallDelta(call);
    }
  }

  private reasoningDelta(delta: string): void {
    if (this.isActiveText) {
      this.enqueue({ type: 'text-end', id: 'txt-0' });
      this.isActiveText = false;
    }
    if (!this.isActiveReasoning) {
      this.enqueue({ type: 'reasoning-start', id: 'reasoning-0' });
      this.isActiveReasoning = true;
    }
    this.enqueue({ type: 'reasoning-delta', id: 'reasoning-0', delta });
  }

  private textDelta(delta: string): void {
    if (this.isActiveReasoning) {
      this.enqueue({ type: 'reasoning-end', id: 'reasoning-0' });
      this.isActiveReasoning = false;
    }
    if (!this.isActiveText) {
      this.enqueue({ type: 'text-start', id: 'txt-0' });
      this.isActiveText = true;
    }
    this.enqueue({ type: 'text-delta', id: 'txt-0', delta });
  }

  /** The package's `processToolCallDelta`: a call's arguments are held until its name has come. */
  private toolCallDelta(delta: Json): void {
    const index = delta.index as number | null | undefined;
    if (index == null || this.forwardedToolCallIndices.has(index)) {
      this.tracker.processDelta(delta as never);
      return;
    }
    let pending = this.pendingToolCalls.get(index);
    if (pending == null) {
      pending = { id: (delta.id as string | null | undefined) ?? null, bufferedArguments: '', extraContent: delta.extra_content ?? null };
      this.pendingToolCalls.set(index, pending);
    } else {
      if (pending.id == null && delta.id != null) pending.id = delta.id as string;
      if (pending.extraContent == null && delta.extra_content != null) pending.extraContent = delta.extra_content;
    }
    const fn = delta.function as Json | undefined;
    const argumentsDelta = fn?.arguments as string | null | undefined;
    if (argumentsDelta != null) pending.bufferedArguments += argumentsDelta;
    const name = fn?.name;
    if (name != null) {
      this.tracker.processDelta({
        index,
        id: pending.id,
        function: { name, arguments: pending.bufferedArguments },
        extra_content: pending.extraContent ?? undefined,
      } as never);
      this.pendingToolCalls.delete(index);
      this.forwardedToolCallIndices.add(index);
    }
  }

  flush(): void {
    const enqueue = this.enqueue;
    if (this.isActiveReasoning) enqueue({ type: 'reasoning-end', id: 'reasoning-0' });
    if (this.isActiveText) enqueue({ type: 'text-end', id: 'txt-0' });
    for (const [index, pending] of this.pendingToolCalls)
      this.tracker.processDelta({ index, id: pending.id, function: { arguments: pending.bufferedArguments } } as never);
    this.pendingToolCalls.clear();
    this.tracker.flush();
    if (this.rawFinishReason != null)
      this.finishReason = { unified: unifiedFinishReason(this.rawFinishReason, this.hasRefusal), raw: this.rawFinishReason };
    if (this.finishReason == null) {
      this.finishReason = { unified: 'error', raw: undefined };
      enqueue({
        type: 'error',
        error: new InvalidResponseDataError({ data: undefined, message: 'Response stream ended without a finish reason.' }),
      });
    }
    const key = this.options.metadataKey;
    const providerMetadata: Record<string, Json> = { [key]: {} };
    const details = (this.usage as Json | undefined)?.completion_tokens_details as Json | null | undefined;
    if (details?.accepted_prediction_tokens != null) providerMetadata[key]!.acceptedPredictionTokens = details.accepted_prediction_tokens;
    if (details?.rejected_prediction_tokens != null) providerMetadata[key]!.rejectedPredictionTokens = details.rejected_prediction_tokens;
    enqueue({
      type: 'finish',
      finishReason: this.finishReason as never,
      usage: this.options.model.convertUsage(this.usage),
      providerMetadata: providerMetadata as never,
    });
  }
}

/** Whether the lean reader can stand for this model's own transform (it has no metadata extractor to run per chunk). */
export const leanReadable = (model: ChatModelInternals) => model.config.metadataExtractor == null && model.chunkSchema != null;

/** Parts pushed by the body's reads, pulled by the turn: at most this many wait before the body is paused. */
const HIGH_WATER = 256;

/**
 * Reads `body` (a 200 `text/event-stream` answer) into parts. The turn's `cancel` — and the request's
 * abort, through the request's own signal — destroys the body, which releases the connection.
 */
export function leanChatParts(body: Readable, options: LeanChatOptions): PartReader {
  const queue: LanguageModelV4StreamPart[] = [];
  let head = 0;
  let failure: { error: unknown } | null = null;
  let ended = false;
  let waiter: { resolve: (result: ReadableStreamReadResult<LanguageModelV4StreamPart>) => void; reject: (error: unknown) => void } | null =
    null;
  const coalesce = options.coalesce ?? false;

  const wake = () => {
    if (!waiter) return;
    const { resolve, reject } = waiter;
    if (failure) {
      waiter = null;
      reject(failure.error);
    } else if (head < queue.length) {
      waiter = null;
      resolve({ done: false, value: take() });
    } else if (ended) {
      waiter = null;
      resolve({ done: true, value: undefined });
    }
  };
  const take = () => {
    const part = queue[head]!;
    queue[head++] = undefined as never;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
      if (body.isPaused()) body.resume();
    }
    return part;
  };
  const enqueue = (part: LanguageModelV4StreamPart) => {
    if (coalesce && (part.type === 'text-delta' || part.type === 'reasoning-delta') && queue.length > head) {
      // A delta still unread takes the next one of the same block: one part for the turn instead of two.
      const last = queue[queue.length - 1]!;
      if (last.type === part.type && last.id === part.id && last.providerMetadata == null && part.providerMetadata == null) {
        queue[queue.length - 1] = { ...last, delta: last.delta + part.delta };
        return;
      }
    }
    queue.push(part);
  };
  // A throw in the mapping (the tracker refuses a delta) errors the stream, as a throw in the SDK's
  // transform errors its stream: the parts not yet read are dropped with it.
  const fail = (error: unknown) => {
    if (failure) return;
    failure = { error };
    queue.length = 0;
    head = 0;
    body.destroy();
    wake();
  };

  const mapper = new ChatPartsMapper(options, enqueue);
  // Events wait here while one goes through the SDK's (asynchronous) validation, to keep their order.
  const events: string[] = [];
  let validating = false;
  let bodyEnded = false;
  const chunkOf = (data: string): ParseResult | null => {
    // `secureJsonParse` refuses these keys; such an event takes the SDK's path and gets its answer.
    if (data.includes('__proto__') || data.includes('constructor')) return null;
    let value: unknown;
    try {
      value = JSON.parse(data);
    } catch {
      return null;
    }
    return isPlainChunk(value) ? { success: true, value, rawValue: value } : null;
  };
  const drain = () => {
    if (validating || failure) return;
    try {
      while (events.length) {
        const data = events.shift()!;
        const chunk = chunkOf(data);
        if (chunk) {
          mapper.chunk(chunk);
          continue;
        }
        validating = true;
        void (sdkUtils.safeParseJSON({ text: data, schema: options.model.chunkSchema as never }) as Promise<ParseResult>).then(
          (parsed) => {
            validating = false;
            if (failure) return;
            try {
              mapper.chunk(parsed);
            } catch (error) {
              return fail(error);
            }
            drain();
          },
          (error: unknown) => fail(error),
        );
        wake();
        return;
      }
      if (bodyEnded && !ended) {
        mapper.flush();
        ended = true;
      }
    } catch (error) {
      return fail(error);
    }
    wake();
  };
  const parser = new SseEventParser((data) => {
    if (data !== '[DONE]') events.push(data);
  });

  body.on('data', (bytes: Buffer) => {
    if (failure) return;
    parser.push(bytes);
    drain();
    if (queue.length - head >= HIGH_WATER) body.pause();
  });
  body.once('end', () => {
    bodyEnded = true;
    drain();
  });
  // A failed read fails the stream as fetch's body did: a TypeError "terminated" with the cause.
  body.once('error', (error) => fail(new TypeError('terminated', { cause: error })));

  return {
    read() {
      if (failure) return Promise.reject(failure.error);
      if (head < queue.length) return Promise.resolve({ done: false, value: take() });
      if (ended) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve, reject) => {
        waiter = { resolve, reject };
      });
    },
    async cancel() {
      if (ended || failure) return;
      failure = { error: new TypeError('the stream was cancelled') };
      queue.length = 0;
      head = 0;
      body.destroy();
      wake();
    },
  };
}

/**
 * The lean reader of a claimed answer (lean-chat-fetch.ts). The SDK's own stream — of the empty answer
 * its fetch was given — still says what only the SDK knows of the request: `stream-start` carries its
 * warnings and the finish of an empty stream its provider-metadata key. It has ended already (its body
 * was empty), so reading it to its end waits for nothing; anything but those parts means the package
 * changed, and the request fails with a clear error rather than guessing.
 */
export async function openLeanParts(
  model: ChatModelInternals,
  sdkStream: ReadableStream<LanguageModelV4StreamPart>,
  body: Readable,
  options: Pick<LeanChatOptions, 'coalesce' | 'includeRawChunks'> = {},
): Promise<PartReader> {
  const parts: LanguageModelV4StreamPart[] = [];
  const reader = sdkStream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value);
  const start = parts[0];
  const finish = parts[parts.length - 1];
  const keys = finish?.type === 'finish' ? Object.keys(finish.providerMetadata ?? {}) : [];
  if (start?.type !== 'stream-start' || keys.length !== 1 || !leanReadable(model)) {
    body.destroy();
    throw new Error(
      'the lean chat-completions reader does not recognise this version of @ai-sdk/openai-compatible (providers/lean-chat-stream.ts)',
    );
  }
  return leanChatParts(body, { ...options, model, warnings: start.warnings, metadataKey: keys[0]! });
}
