// The `fetch` given to the AI SDK providers whose streams sse-coalescer.ts understands: a server-sent
// event stream's body is read through the coalescer, so the text deltas of one network read reach the
// SDK as one event. Every other answer (JSON, errors, a body that is not `text/event-stream`) is the
// response fetch gave, untouched.
import { SseCoalescer } from './sse-coalescer.js';

/** The body of an event stream, with the text deltas of each read merged (see sse-coalescer.ts). */
export function coalescedEventStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const coalescer = new SseCoalescer();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // Read until something can leave: a read that ends inside an event gives nothing yet.
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const rest = coalescer.push(decoder.decode()) + coalescer.end();
          if (rest) controller.enqueue(encoder.encode(rest));
          controller.close();
          return;
        }
        const out = coalescer.push(decoder.decode(value, { stream: true }));
        if (out) {
          controller.enqueue(encoder.encode(out));
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** `base` (the outbound policy's fetch), with event-stream bodies coalesced. */
export const coalescingFetch =
  (base: typeof fetch): typeof fetch =>
  async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!response.ok || !response.body || !type.startsWith('text/event-stream')) return response;
    return new Response(coalescedEventStream(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
