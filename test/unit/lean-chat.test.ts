// The lean chat-completions reader (src/providers/lean-chat-*.ts) against the AI SDK's own: a loopback
// server serves recorded chat-completions streams — text, reasoning, tool calls (in pieces, parallel,
// whole, arguments before the name), usage with cached and reasoning tokens, error chunks, malformed
// and schema-refused JSON, refusals, odd line endings, comments, multi-line data, a BOM, multi-byte
// text — each in several chunkings (whole, byte by byte, split at seeded random offsets). For every
// one, `@ai-sdk/openai-compatible`'s `doStream` through the ordinary fetch and the lean reader through
// the slot must give equal parts (tool-call ids the SDK generates are random on both sides: they are
// compared by order of appearance). A package upgrade that changes its mapping fails here. Also: an
// error answer and a refused address reach the SDK as through fetch; an abort or a cancel releases the
// connection (the server sees it close).
import { createServer, type Server } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { OutboundPolicy } from '../../src/lib/outbound-policy.js';
import { leanChatFetch, withLeanSlot, type LeanSlot } from '../../src/providers/lean-chat-fetch.js';
import { openLeanParts, type ChatModelInternals, type PartReader } from '../../src/providers/lean-chat-stream.js';
import { SseEventParser } from '../../src/providers/sse-events.js';

const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: 'chatcmpl-9',
    object: 'chat.completion.chunk',
    created: 7,
    model: 'rec',
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
const events = (...data: string[]) => data.map((item) => `data: ${item}\n\n`).join('');
const usage = {
  prompt_tokens: 40,
  completion_tokens: 9,
  total_tokens: 49,
  prompt_tokens_details: { cached_tokens: 30 },
  completion_tokens_details: { reasoning_tokens: 4, accepted_prediction_tokens: 2, rejected_prediction_tokens: 1 },
};
const call = (index: number, fields: Record<string, unknown>) => ({ index, ...fields });

/** The recorded answers: name → the body's text as the server sends it. */
const CORPUS: Record<string, string> = {
  text: events(
    chunk({ role: 'assistant', content: '' }),
    ...['Hello', ', ', 'wörld ', '🌍', ' 日本語', '!'].map((word) => chunk({ content: word })),
    chunk({}, 'stop'),
    JSON.stringify({ id: 'chatcmpl-9', created: 7, model: 'rec', choices: [], usage }),
    '[DONE]',
  ),
  reasoning: events(
    chunk({ role: 'assistant', reasoning_content: 'think ' }),
    chunk({ reasoning_content: 'hard' }),
    chunk({ content: 'answer' }),
    chunk({ reasoning: 'again' }),
    chunk({
      content: [
        { type: 'thinking', thinking: [{ type: 'text', text: 'array thought' }] },
        { type: 'text', text: ' array text' },
      ],
    }),
    chunk({}, 'length', { usage }),
    '[DONE]',
  ),
  toolPieces: events(
    chunk({ role: 'assistant', content: 'Let me look.' }),
    chunk({ tool_calls: [call(0, { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '' } })] }),
    ...['{"q', '": "wea', 'ther in', ' Zürich"', '}'].map((piece) => chunk({ tool_calls: [call(0, { function: { arguments: piece } })] })),
    chunk({}, 'tool_calls'),
    '[DONE]',
  ),
  toolParallel: events(
    chunk({ tool_calls: [call(0, { id: 'call_1', function: { name: 'a', arguments: '{"x":' } })] }),
    chunk({ tool_calls: [call(1, { id: 'call_2', function: { name: 'b', arguments: '{"y":' } })] }),
    chunk({ tool_calls: [call(0, { function: { arguments: '1}' } }), call(1, { function: { arguments: '2}' } })] }),
    chunk({}, 'tool_calls', { usage: { prompt_tokens: 3, completion_tokens: 4 } }),
  ),
  toolWhole: events(
    chunk(
      { tool_calls: [call(0, { id: 'call_w', type: 'function', function: { name: 'whole', arguments: '{"done":true}' } })] },
      'tool_calls',
    ),
    '[DONE]',
  ),
  toolNoIds: events(
    chunk({ tool_calls: [call(0, { function: { arguments: '{"early":' } })] }),
    chunk({ tool_calls: [call(0, { function: { name: 'late_name', arguments: '1}' } })] }),
    chunk({ tool_calls: [{ function: { name: 'no_index', arguments: '{}' } }] }),
    chunk({ tool_calls: [call(2, { function: { arguments: '{"never":"named"}' } })] }),
    chunk({}, 'tool_calls'),
  ),
  toolSignature: events(
    chunk({
      tool_calls: [
        call(0, { id: 'call_s', function: { name: 'sig', arguments: '{}' }, extra_content: { google: { thought_signature: 'sig-1' } } }),
      ],
    }),
    chunk({}, 'tool_calls'),
  ),
  errorChunk: events(
    chunk({ content: 'partial' }),
    JSON.stringify({ error: { message: 'The model is overloaded', type: 'server_error', code: 'overloaded', param: null } }),
    chunk({ content: ' after' }, 'stop'),
  ),
  malformed: events(chunk({ content: 'a' }), '{"id": "x", "choices": [', chunk({ content: 'b' }, 'stop')),
  schemaRefused: events(
    chunk({ content: 'a' }),
    chunk({ role: 'user', content: 'not an assistant' }),
    chunk({ content: 42 }),
    JSON.stringify({ choices: 'none' }),
    chunk({ content: 'b' }, 'stop'),
  ),
  protoKey: events(
    chunk({ content: 'a' }),
    '{"__proto__": {"x": 1}, "choices": []}',
    chunk({ content: 'b', constructor: 1 }),
    chunk({}, 'stop'),
  ),
  refusal: events(chunk({ refusal: 'I cannot help with that' }), chunk({ refusal: 7 }), chunk({}, 'stop')),
  contentFilter: events(chunk({ content: 'x' }), chunk({}, 'content_filter'), '[DONE]'),
  noFinish: events(chunk({ content: 'cut ' }), chunk({ content: 'short' })),
  trailingPartial: events(chunk({ content: 'a' }, 'stop')) + `data: ${chunk({ content: 'never dispatched' })}`,
  crlf: events(chunk({ content: 'one' }), chunk({ content: 'two' }, 'stop')).replaceAll('\n', '\r\n'),
  cr: events(chunk({ content: 'one' }), chunk({ content: 'two' }, 'stop')).replaceAll('\n', '\r'),
  fields:
    '\uFEFF: a comment\n' +
    'event: message\nid: 1\nretry: 100\nunknown: field\n' +
    `data: ${chunk({ content: 'multi' }).slice(0, 30)}\ndata:${chunk({ content: 'multi' }).slice(30)}\n\n` +
    ':keepalive\n\n' +
    `data:${chunk({ content: ' line' })}\n\n` +
    'event: empty\n\n' +
    `data: ${chunk({}, 'stop')}\n\n` +
    'data: [DONE]\n\n',
  metadataLater: events(
    JSON.stringify({ choices: [{ index: 0, delta: { content: 'no meta' }, finish_reason: null }] }),
    JSON.stringify({ id: 'late', created: 0, model: null, choices: [{ index: 0, delta: { content: '!' }, finish_reason: 'stop' }] }),
  ),
};

/** A seeded generator (mulberry32): the same splits on every run. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The body's bytes cut into the chunks of one chunking. */
function chunked(text: string, chunking: string): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  if (chunking === 'whole') return [bytes];
  if (chunking === 'bytes') return [...bytes].map((byte) => Buffer.from([byte]));
  const random = seeded(Number(chunking.slice('seed'.length)));
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1 + Math.floor(random() * 40);
    out.push(bytes.subarray(at, at + size));
    at += size;
  }
  return out;
}
const CHUNKINGS = ['whole', 'bytes', 'seed1', 'seed42', 'seed2026'];

/** Signals of the `held` answer: its chunks were written; its connection closed. */
const held = { sent: () => {}, closed: () => {} };
const signalled = (key: keyof typeof held) => new Promise<void>((resolve) => (held[key] = resolve));

let server: Server;
let base: string;
const policy = new OutboundPolicy(['127.0.0.1']);

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      const name = String(req.headers['x-case']);
      if (name === 'refused') {
        res.writeHead(429, 'Slow Down', { 'content-type': 'application/json', 'retry-after': '3' });
        return void res.end(JSON.stringify({ error: { message: 'rate limited', type: 'rate_limit', code: 'rate' } }));
      }
      if (name === 'held') {
        // Two chunks, then the stream stays open until the client goes away; `held` reports both.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(events(chunk({ content: 'one' }), chunk({ content: 'two' })), () => held.sent());
        res.on('close', () => held.closed());
        return;
      }
      if (name === 'plain') {
        res.writeHead(500, 'Broken', { 'content-type': 'text/plain' });
        return void res.end('upstream broke');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Each chunk its own write, the next after the last was handed to the socket.
      for (const piece of chunked(CORPUS[name]!, String(req.headers['x-chunking'])))
        await new Promise((resolve) => res.write(piece, resolve));
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const model = (fetch: typeof globalThis.fetch, headers: Record<string, string>) =>
  createOpenAICompatible({ name: 'openai_compatible', baseURL: base, apiKey: 'k', headers, fetch }).chatModel('rec');

const callOptions = (includeRawChunks: boolean): LanguageModelV4CallOptions => ({
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
  tools: [{ type: 'function', name: 'lookup', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } }],
  // `topK` is not a chat-completions setting: the SDK warns, and the warning must reach stream-start.
  topK: 3,
  includeRawChunks,
});

/** Every part until the end; an error the reader throws ends the list as `{ thrown }`. */
async function drain(reader: PartReader): Promise<unknown[]> {
  const parts: unknown[] = [];
  for (;;) {
    try {
      const read = await reader.read();
      if (read.done) return parts;
      parts.push(read.value);
    } catch (error) {
      parts.push({ thrown: error });
      return parts;
    }
  }
}

async function sdkParts(headers: Record<string, string>, raw = false) {
  const { stream } = await model(policy.fetch, headers).doStream(callOptions(raw));
  return drain(stream.getReader());
}

async function leanParts(headers: Record<string, string>, options: { raw?: boolean; coalesce?: boolean } = {}) {
  const chat = model(
    leanChatFetch(policy, () => {
      throw new Error('the fallback fetch was used');
    }),
    headers,
  );
  const slot: LeanSlot = { answer: null };
  const { stream } = await withLeanSlot(slot, (abortSignal) => chat.doStream({ ...callOptions(options.raw ?? false), abortSignal }));
  expect(slot.answer, 'the lean fetch claimed the answer').not.toBeNull();
  return drain(
    await openLeanParts(chat as unknown as ChatModelInternals, stream, slot.answer!.body, {
      includeRawChunks: options.raw,
      coalesce: options.coalesce,
    }),
  );
}

/** Tool-call ids the SDK generated (absent from the wire) replaced by their order of appearance. */
function normalised(parts: unknown[], wire: string): unknown[] {
  const generated = new Map<string, string>();
  const rename = (id: string) => {
    if (wire.includes(JSON.stringify(id))) return id;
    if (!generated.has(id)) generated.set(id, `generated-${generated.size}`);
    return generated.get(id)!;
  };
  return parts.map((part) => {
    const value = part as Record<string, unknown>;
    if (typeof value.type === 'string' && value.type.startsWith('tool-')) {
      const copy = { ...value };
      if (typeof copy.id === 'string') copy.id = rename(copy.id);
      if (typeof copy.toolCallId === 'string') copy.toolCallId = rename(copy.toolCallId);
      return copy;
    }
    return part;
  });
}

/** Consecutive text or reasoning deltas of one block joined (what coalescing may do). */
function merged(parts: unknown[]): unknown[] {
  const out: Record<string, unknown>[] = [];
  for (const part of parts as Record<string, unknown>[]) {
    const last = out[out.length - 1];
    if (last && (part.type === 'text-delta' || part.type === 'reasoning-delta') && last.type === part.type && last.id === part.id)
      out[out.length - 1] = { ...last, delta: `${last.delta as string}${part.delta as string}` };
    else out.push(part);
  }
  return out;
}

describe('the lean reader gives the SDK’s parts', () => {
  for (const name of Object.keys(CORPUS))
    it(name, async () => {
      const wire = CORPUS[name]!;
      const expected = normalised(await sdkParts({ 'x-case': name, 'x-chunking': 'whole' }), wire);
      expect(expected.length).toBeGreaterThan(2);
      for (const chunking of CHUNKINGS) {
        const headers = { 'x-case': name, 'x-chunking': chunking };
        // The SDK itself under this chunking (its parser too must not care where the body was cut).
        expect(normalised(await sdkParts(headers), wire), `SDK, ${chunking}`).toEqual(expected);
        expect(normalised(await leanParts(headers), wire), `lean, ${chunking}`).toEqual(expected);
        expect(merged(normalised(await leanParts(headers, { coalesce: true }), wire)), `lean coalesced, ${chunking}`).toEqual(
          merged(expected),
        );
      }
      const raw = { 'x-case': name, 'x-chunking': 'seed7' };
      expect(normalised(await leanParts(raw, { raw: true }), wire), 'raw chunks').toEqual(normalised(await sdkParts(raw, true), wire));
    });

  it('an error answer is the SDK’s to handle, as through fetch', async () => {
    for (const name of ['refused', 'plain']) {
      const headers = { 'x-case': name };
      const viaFetch = await model(policy.fetch, headers)
        .doStream(callOptions(false))
        .then(
          () => null,
          (error: unknown) => error,
        );
      const slot: LeanSlot = { answer: null };
      const chat = model(
        leanChatFetch(policy, () => {
          throw new Error('the fallback fetch was used');
        }),
        headers,
      );
      const viaLean = await withLeanSlot(slot, (abortSignal) => chat.doStream({ ...callOptions(false), abortSignal })).then(
        () => null,
        (error: unknown) => error,
      );
      expect(slot.answer).toBeNull();
      expect(viaLean).toBeInstanceOf(Error);
      const fields = (error: any) => ({
        name: error.name,
        message: error.message,
        statusCode: error.statusCode,
        isRetryable: error.isRetryable,
        responseBody: error.responseBody,
        data: error.data,
        retryAfter: error.responseHeaders?.['retry-after'],
      });
      expect(fields(viaLean)).toEqual(fields(viaFetch));
    }
  });

  it('the outbound policy applies to the lean request: a refused address fails as fetch fails', async () => {
    const strict = new OutboundPolicy([]);
    const slot: LeanSlot = { answer: null };
    const chat = model(
      leanChatFetch(strict, () => {
        throw new Error('the fallback fetch was used');
      }),
      { 'x-case': 'text', 'x-chunking': 'whole' },
    );
    const error: any = await withLeanSlot(slot, (abortSignal) => chat.doStream({ ...callOptions(false), abortSignal })).catch(
      (caught: unknown) => caught,
    );
    const viaFetch: any = await Promise.resolve(model(strict.fetch, {}).doStream(callOptions(false))).catch((caught: unknown) => caught);
    expect(error.message).toBe(viaFetch.message);
    expect(String(error.cause?.cause?.message ?? error.cause?.message)).toMatch(/outbound_refused: 127\.0\.0\.1 is a loopback address/);
    expect(slot.answer).toBeNull();
  });
});

describe("two model calls at once that share their run's signal", () => {
  it('each read its own answer (a slot belongs to one call, not to the signal it follows)', async () => {
    const run = new AbortController();
    const chat = (name: string) =>
      model(
        leanChatFetch(policy, () => {
          throw new Error('the fallback fetch was used');
        }),
        { 'x-case': name, 'x-chunking': 'whole' },
      );
    const calls = ['text', 'reasoning'].map(async (name) => {
      const answer = chat(name);
      const slot: LeanSlot = { answer: null };
      const { stream } = await withLeanSlot(slot, (abortSignal) => answer.doStream({ ...callOptions(false), abortSignal }), run.signal);
      expect(slot.answer, `the lean fetch claimed the ${name} answer`).not.toBeNull();
      return drain(await openLeanParts(answer as unknown as ChatModelInternals, stream, slot.answer!.body));
    });
    const [text, reasoning] = await Promise.all(calls);
    const deltas = (parts: unknown[]) =>
      parts.flatMap((part) => ((part as { type?: string }).type === 'text-delta' ? [(part as { delta: string }).delta] : [])).join('');
    expect(deltas(text!)).toBe('Hello, wörld 🌍 日本語!');
    expect(deltas(reasoning!)).toContain('answer');
    expect(deltas(reasoning!)).not.toContain('Hello');
  });
});

describe('an abort', () => {
  it('fails the lean read with the signal and closes the connection', async () => {
    const sent = signalled('sent');
    const closed = signalled('closed');
    const controller = new AbortController();
    const chat = model(
      leanChatFetch(policy, () => {
        throw new Error('the fallback fetch was used');
      }),
      { 'x-case': 'held' },
    );
    const slot: LeanSlot = { answer: null };
    const { stream } = await withLeanSlot(slot, (abortSignal) => chat.doStream({ ...callOptions(false), abortSignal }), controller.signal);
    const reader = await openLeanParts(chat as unknown as ChatModelInternals, stream, slot.answer!.body);
    await sent;
    const seen: string[] = [];
    for (;;) {
      const read = await reader.read();
      if (read.done) throw new Error('the held stream ended');
      if (read.value.type === 'text-delta') seen.push(read.value.delta);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['one', 'two']);
    // The next read waits for a part that never comes, until the abort.
    const next = reader.read();
    controller.abort(new Error('run cancelled'));
    await expect(next).rejects.toThrow();
    await closed; // the server saw the connection go: it was released, not left open
  });

  it('cancel releases the connection', async () => {
    const sent = signalled('sent');
    const closed = signalled('closed');
    const chat = model(
      leanChatFetch(policy, () => {
        throw new Error('the fallback fetch was used');
      }),
      { 'x-case': 'held' },
    );
    const slot: LeanSlot = { answer: null };
    const { stream } = await withLeanSlot(slot, (abortSignal) => chat.doStream({ ...callOptions(false), abortSignal }));
    const reader = await openLeanParts(chat as unknown as ChatModelInternals, stream, slot.answer!.body);
    await sent;
    expect(await reader.read()).toMatchObject({ done: false, value: { type: 'stream-start' } });
    await reader.cancel(new Error('turn failed'));
    await expect(reader.read()).rejects.toThrow();
    await closed;
  });
});

describe('the SSE parser', () => {
  it('dispatches what eventsource-parser dispatches, cut anywhere', () => {
    const text = CORPUS.fields! + CORPUS.cr! + CORPUS.crlf!;
    // The SDK's reading: a TextDecoder, then eventsource-parser's parser fed the decoded text.
    const whole: string[] = [];
    const decoder = new TextDecoder();
    createParser({ onEvent: (event) => whole.push(event.data) }).feed(decoder.decode(Buffer.from(text)));
    expect(whole.length).toBe(8);
    for (const chunking of CHUNKINGS) {
      const got: string[] = [];
      const parser = new SseEventParser((data) => got.push(data));
      for (const piece of chunked(text, chunking)) parser.push(piece);
      expect(got, chunking).toEqual(whole);
    }
  });
});
