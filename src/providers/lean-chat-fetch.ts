// How a streaming chat-completions answer reaches the lean reader (lean-chat-stream.ts) while the AI
// SDK keeps everything else. model-stream.ts opens a slot around the provider's `doStream`, keyed by
// an abort signal made for that one call, which the SDK hands to fetch as the request's own signal;
// the fetch the `openai_compatible` client was given finds the slot by that signal and sends
// the SDK's request — its URL, headers and body, built by the SDK as always — through the outbound
// policy's own connection pool (`OutboundPolicy.request`: the same dispatcher and address checks as
// its fetch) instead of fetch:
// - a 200 `text/event-stream` answer is claimed: its body (a node Readable) goes into the slot, and
//   the SDK gets an empty event stream of the same status and headers, so its `doStream` returns at
//   once (its stream then says only `stream-start` and the finish of an empty stream, from which
//   model-stream.ts reads the request's warnings and metadata key);
// - any other answer (an error status, JSON) goes to the SDK as the Response fetch would have made
//   of it, so its error handling and our retries see what they saw before; a redirect is sent again
//   through the ordinary fetch, which follows it as it always did.
// Without a slot (embeddings, the probe, a request not made by model-stream.ts) the ordinary fetch
// answers. Nothing here depends on timing: the slot is claimed, or not, before `doStream` returns.
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { IncomingHttpHeaders } from 'node:http';
import type { OutboundPolicy } from '../lib/outbound-policy.js';

/** A claimed answer: its body, decoded, for the lean reader. */
export interface LeanAnswer {
  body: Readable;
}

/** One `doStream` call's slot: `answer` is set when its fetch claimed the streaming answer. */
export interface LeanSlot {
  answer: LeanAnswer | null;
}

/**
 * Open slots by the signal of their call. Not an async-local store: on Node 22 the first store run
 * turns on promise hooks for the whole process, a cost on every promise of every request (2.3 % of
 * node's own time in a profile of 300 live runs, more inside the microtask queue). The signal is
 * the call's own, so two model calls that share their run's signal never find each other's slot.
 */
const slots = new WeakMap<AbortSignal, LeanSlot>();

/**
 * Runs `call` (a provider's `doStream`, given the abort signal to pass it) with a slot its
 * lean-capable fetch may claim the answer into. The signal follows `signal` (the run's), if any.
 */
export async function withLeanSlot<T>(
  slot: LeanSlot,
  call: (abortSignal: AbortSignal) => PromiseLike<T>,
  signal?: AbortSignal,
): Promise<T> {
  const callSignal = signal ? AbortSignal.any([signal]) : new AbortController().signal;
  slots.set(callSignal, slot);
  try {
    return await call(callSignal);
  } finally {
    slots.delete(callSignal);
  }
}

/** The answer's headers as fetch's Headers (repeated headers kept). */
function headersOf(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.append(name, value);
  }
  return headers;
}

/** The body with its content coding undone, as fetch undoes it (an unknown coding passes as it is). */
function decoded(body: Readable, coding: string | undefined): Readable {
  const codings = (coding ?? '')
    .toLowerCase()
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value && value !== 'identity');
  let stream = body;
  for (const name of codings.reverse()) {
    const decoder =
      name === 'gzip' || name === 'x-gzip'
        ? createGunzip()
        : name === 'deflate'
          ? createInflate()
          : name === 'br'
            ? createBrotliDecompress()
            : null;
    if (!decoder) return stream;
    const source = stream;
    source.once('error', (error) => decoder.destroy(error));
    decoder.once('close', () => source.destroy());
    stream = source.pipe(decoder);
  }
  return stream;
}

const isEventStream = (headers: IncomingHttpHeaders) => {
  const type = headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('text/event-stream');
};

/**
 * The fetch of an `openai_compatible` chat client: `fallback` (the policy's fetch, through the SSE
 * coalescer) unless model-stream.ts opened a slot, then the lean request described above.
 */
export function leanChatFetch(policy: OutboundPolicy, fallback: typeof fetch): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const slot = init?.signal ? slots.get(init.signal) : undefined;
    if (!slot || slot.answer || typeof input !== 'string' || typeof init?.body !== 'string') return fallback(input, init);
    const signal = init.signal ?? undefined;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    let answer;
    try {
      answer = await policy.request(input, { method: init.method ?? 'POST', headers, body: init.body, signal });
    } catch (error) {
      // As fetch reports it: the abort's reason, or a TypeError "fetch failed" with the cause
      // (the SDK turns that into a retryable "Cannot connect to API" error, the policy's refusal kept as the cause).
      if (signal?.aborted) throw signal.reason;
      throw new TypeError('fetch failed', { cause: error });
    }
    const { statusCode, statusText, headers: raw, body } = answer;
    if (statusCode >= 300 && statusCode < 400 && raw.location) {
      body.destroy();
      return fallback(input, init);
    }
    const responseHeaders = headersOf(raw);
    const stream = decoded(body, typeof raw['content-encoding'] === 'string' ? raw['content-encoding'] : undefined);
    if (statusCode === 200 && isEventStream(raw)) {
      slot.answer = { body: stream };
      return new Response('', { status: statusCode, statusText, headers: responseHeaders });
    }
    const nullBody = statusCode === 204 || statusCode === 205 || statusCode === 304;
    if (nullBody) body.destroy();
    return new Response(nullBody ? null : (Readable.toWeb(stream) as ReadableStream<Uint8Array>), {
      status: statusCode,
      statusText,
      headers: responseHeaders,
    });
  }) as typeof fetch;
}
