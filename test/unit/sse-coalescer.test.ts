import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchema, streamText, tool, type TextStreamPart, type ToolSet } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createAnthropic } from '@ai-sdk/anthropic';
import { SseCoalescer, coalesceBlocks } from '../../src/providers/sse-coalescer.js';
import { coalescedEventStream, coalescingFetch } from '../../src/providers/coalescing-fetch.js';

const chat = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
const content = (text: string) => chat({ content: text });
const anthropicDelta = (index: number, text: string, type = 'text_delta', key = 'text') =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index, delta: { type, [key]: text } })}\n\n`;

/** Every event's data as parsed JSON (or its raw text), in order. */
const events = (sse: string) =>
  sse
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const data = block.slice(block.indexOf('data:') + 5).trim();
      try {
        return JSON.parse(data);
      } catch {
        return data;
      }
    });

describe('coalesceBlocks', () => {
  it('merges neighbouring text deltas of one choice into the first, keeping everything else', () => {
    const sse = chat({ role: 'assistant', content: '' }) + content('Hel') + content('lo') + content(' world') + '';
    const out = coalesceBlocks(sse.slice(0, -2));
    expect(events(out)).toEqual([events(chat({ role: 'assistant', content: '' }))[0], events(content('Hello world'))[0]]);
  });

  it('passes one event byte for byte, unparsed', () => {
    const block = 'data: {"choices":[{"index":0,"delta":{"content":"\\u00e9"}}]}';
    expect(coalesceBlocks(block)).toBe(`${block}\n\n`);
  });

  it('passes byte for byte when nothing merges', () => {
    const sse = content('a') + chat({}, { usage: { prompt_tokens: 1, completion_tokens: 1 } }, 'stop') + 'data: [DONE]\n\n';
    expect(coalesceBlocks(sse.slice(0, -2))).toBe(sse);
  });

  it('keeps the order of mixed events: text and reasoning apart, tool calls, finish and usage in place', () => {
    const toolCall = chat({ tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } }] });
    const sse =
      chat({ reasoning_content: 'th' }) +
      chat({ reasoning_content: 'ink' }) +
      content('a') +
      content('b') +
      toolCall +
      content('c') +
      content('d') +
      chat({}, {}, 'tool_calls') +
      chat({}, { usage: { prompt_tokens: 3, completion_tokens: 4 }, choices: [] }) +
      'data: [DONE]\n\n';
    expect(events(coalesceBlocks(sse.slice(0, -2)))).toEqual([
      ...events(chat({ reasoning_content: 'think' })),
      ...events(content('ab')),
      ...events(toolCall),
      ...events(content('cd')),
      ...events(chat({}, {}, 'tool_calls')),
      ...events(chat({}, { usage: { prompt_tokens: 3, completion_tokens: 4 }, choices: [] })),
      '[DONE]',
    ]);
  });

  it('does not merge deltas that differ in anything but their text, or carry more than text', () => {
    const sse = [
      chat({ content: 'a' }),
      chat({ content: 'b' }, { id: 'c2' }), // another id
      chat({ content: 'c', role: 'assistant' }), // another role
      chat({ content: 'd' }, {}, 'stop'), // a finish reason
      chat({ content: 'e', reasoning_content: 'x' }), // two texts
      chat({ content: 'f' }, { usage: { completion_tokens: 1 } }), // usage
      chat({ content: 'g' }, { usage: { completion_tokens: 2 } }),
    ].join('');
    expect(coalesceBlocks(sse.slice(0, -2))).toBe(sse);
  });

  it('merges a null reasoning field beside the content (what vLLM and DeepSeek send)', () => {
    const sse = chat({ content: 'a', reasoning_content: null }) + chat({ content: 'b', reasoning_content: null });
    expect(events(coalesceBlocks(sse.slice(0, -2)))).toEqual(events(chat({ content: 'ab', reasoning_content: null })));
  });

  it('merges chunks with members the provider skips when null (what vLLM sends)', () => {
    const vllm = (text: string) =>
      `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)},"tool_calls":null},"logprobs":null,"finish_reason":null,"stop_reason":null}]}\n\n`;
    expect(events(coalesceBlocks((vllm('a') + vllm('b')).slice(0, -2)))).toEqual(events(vllm('ab')));
    // The same member with a value is not skipped: such chunks stay apart.
    const refusal = (text: string) => chat({ content: text, refusal: 'no' });
    expect(coalesceBlocks((refusal('a') + refusal('b')).slice(0, -2))).toBe(refusal('a') + refusal('b'));
  });

  it('merges Anthropic text and thinking deltas of one content block, never across blocks or kinds', () => {
    const start = `event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`;
    const sse =
      anthropicDelta(0, 'hm', 'thinking_delta', 'thinking') +
      anthropicDelta(0, 'm', 'thinking_delta', 'thinking') +
      `${start}\n\n` +
      anthropicDelta(1, 'Hi') +
      anthropicDelta(1, ' there') +
      anthropicDelta(2, '!');
    const out = coalesceBlocks(sse.slice(0, -2));
    expect(out).toBe(
      anthropicDelta(0, 'hmm', 'thinking_delta', 'thinking') + `${start}\n\n` + anthropicDelta(1, 'Hi there') + anthropicDelta(2, '!'),
    );
  });

  it('leaves comments, id lines and blank-line runs as they are', () => {
    const sse = `: ping\n\n${content('a')}id: 7\n${content('b')}\n${content('c')}`;
    expect(coalesceBlocks(sse.slice(0, -2))).toBe(sse);
  });
});

describe('SseCoalescer', () => {
  it('holds an event split across reads until its end, and merges only what one read completes', () => {
    const coalescer = new SseCoalescer();
    const a = content('a');
    const b = content('b');
    const c = content('c');
    expect(coalescer.push(a.slice(0, 10))).toBe('');
    expect(coalescer.push(a.slice(10) + b + c.slice(0, -1))).toBe(content('ab'));
    // The blank line split between reads: `\n` then `\n`.
    expect(coalescer.push('\n')).toBe(c);
    expect(coalescer.push('data: [DO')).toBe('');
    expect(coalescer.push('NE]\n\n')).toBe('data: [DONE]\n\n');
    expect(coalescer.end()).toBe('');
  });

  it('gives back an unfinished tail at the end', () => {
    const coalescer = new SseCoalescer();
    expect(coalescer.push(content('a') + 'data: {"x"')).toBe(content('a'));
    expect(coalescer.end()).toBe('data: {"x"');
  });

  it('passes a stream with carriage returns unchanged from then on', () => {
    const coalescer = new SseCoalescer();
    expect(coalescer.push('data: {"a"')).toBe('');
    const crlf = content('a').replace(/\n/g, '\r\n') + content('b').replace(/\n/g, '\r\n');
    expect(coalescer.push(`:1}\r\n\r\n${crlf}`)).toBe(`data: {"a":1}\r\n\r\n${crlf}`);
    expect(coalescer.push(content('c') + content('d'))).toBe(content('c') + content('d'));
  });
});

/** A byte stream of the given chunks. */
const bytes = (chunks: Uint8Array[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });

async function readAll(stream: ReadableStream<Uint8Array>): Promise<{ text: string; reads: number }> {
  const decoder = new TextDecoder();
  let text = '';
  let reads = 0;
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    text += decoder.decode(chunk, { stream: true });
    reads += 1;
  }
  return { text: text + decoder.decode(), reads };
}

describe('coalescedEventStream', () => {
  it('keeps a character whose bytes are split across reads', async () => {
    const sse = new TextEncoder().encode(content('héllo 😀') + content(' wörld'));
    const smiley = new TextEncoder().encode(content('héllo 😀')).indexOf(0xf0);
    // The last read ends the first event and holds the whole second: the two merge.
    const cuts = [3, smiley + 1, smiley + 3];
    const chunks = [0, ...cuts].map((from, i) => sse.slice(from, cuts[i] ?? sse.length));
    const { text } = await readAll(coalescedEventStream(bytes(chunks)));
    expect(events(text)).toEqual(events(content('héllo 😀 wörld')));
  });

  it('merges the events of one read and leaves one read per read that completes something', async () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const chunks = [
      encode(content('a') + content('b')),
      encode(content('c').slice(0, 5)),
      encode(content('c').slice(5) + 'data: [DONE]\n\n'),
    ];
    const { text, reads } = await readAll(coalescedEventStream(bytes(chunks)));
    expect(text).toBe(content('ab') + content('c') + 'data: [DONE]\n\n');
    expect(reads).toBe(2);
  });
});

// ── the real AI SDK providers, through a loopback server, with and without the coalescer ──

let server: Server;
let url = '';
/** The next answer: its chunks, each written on its own (one write each; TCP may join them). */
let answer: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // Every chunk in one write: the service's read gets them together, as a busy service's would.
      res.end(answer.join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const tools: ToolSet = {
  lookup: tool({
    description: 'Looks up.',
    inputSchema: jsonSchema<{ q?: string }>({ type: 'object', properties: { q: { type: 'string' } } }),
  }),
};

/** A stream's parts with consecutive deltas of one id joined (what a consumer sees, whatever the reads). */
async function parts(fetchImpl: typeof fetch, provider: 'chat' | 'anthropic') {
  const model =
    provider === 'chat'
      ? createOpenAICompatible({ name: 'test', baseURL: `${url}/v1`, apiKey: 'k', fetch: fetchImpl, includeUsage: true }).chatModel('m')
      : createAnthropic({ apiKey: 'k', baseURL: `${url}/v1`, fetch: fetchImpl })('claude');
  const result = streamText({ model, prompt: 'hi', tools, maxRetries: 0, maxOutputTokens: 100 });
  const seen: Record<string, unknown>[] = [];
  let deltas = 0;
  for await (const part of result.stream as AsyncIterable<TextStreamPart<ToolSet>>) {
    const { type } = part;
    if (type === 'text-delta' || type === 'reasoning-delta') {
      deltas += 1;
      const last = seen.at(-1);
      if (last?.type === type && last.id === part.id) last.text = `${last.text as string}${part.text}`;
      else seen.push({ type, id: part.id, text: part.text });
    } else if (type === 'tool-call') seen.push({ type, toolName: part.toolName, input: part.input, toolCallId: part.toolCallId });
    else if (type === 'finish-step')
      seen.push({ type, finishReason: part.finishReason, input: part.usage.inputTokens, output: part.usage.outputTokens });
    else if (type === 'finish')
      seen.push({ type, finishReason: part.finishReason, input: part.totalUsage.inputTokens, output: part.totalUsage.outputTokens });
    else if (type === 'error') seen.push({ type, error: String(part.error) });
    else if (type !== 'start-step' && type !== 'start') seen.push({ type });
  }
  return { seen, deltas };
}

describe('the AI SDK through coalescingFetch', () => {
  it('sees the same OpenAI-compatible stream (reasoning, text, tool call, finish, usage) in fewer deltas', async () => {
    answer = [
      chat({ role: 'assistant', content: '' }),
      chat({ reasoning_content: 'Let me ' }),
      chat({ reasoning_content: 'think.' }),
      ...'Ünïcode text, token by token 😀.'.split(/(?= )/).map((token) => content(token)),
      chat({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":' } }] }),
      chat({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
      chat({}, {}, 'tool_calls'),
      chat({}, { choices: [], usage: { prompt_tokens: 11, completion_tokens: 22, total_tokens: 33 } }),
      'data: [DONE]\n\n',
    ];
    const plain = await parts(fetch, 'chat');
    const coalesced = await parts(coalescingFetch(fetch), 'chat');
    expect(coalesced.seen).toEqual(plain.seen);
    expect(plain.seen).toContainEqual({ type: 'tool-call', toolName: 'lookup', input: { q: 'x' }, toolCallId: 'call_1' });
    expect(plain.seen).toContainEqual({ type: 'text-delta', id: 'txt-0', text: 'Ünïcode text, token by token 😀.' });
    expect(coalesced.deltas).toBeLessThan(plain.deltas);
  });

  it('sees the same Anthropic stream (thinking, text, finish, usage) in fewer deltas', async () => {
    const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
    answer = [
      event('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude',
          content: [],
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      }),
      event('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '' } }),
      anthropicDelta(0, 'Hmm, ', 'thinking_delta', 'thinking'),
      anthropicDelta(0, 'yes.', 'thinking_delta', 'thinking'),
      event('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: 'sig' } }),
      event('content_block_stop', { index: 0 }),
      event('content_block_start', { index: 1, content_block: { type: 'text', text: '' } }),
      ...['One', ' two', ' three'].map((token) => anthropicDelta(1, token)),
      event('content_block_stop', { index: 1 }),
      event('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
      event('message_stop', {}),
    ];
    const plain = await parts(fetch, 'anthropic');
    const coalesced = await parts(coalescingFetch(fetch), 'anthropic');
    expect(coalesced.seen).toEqual(plain.seen);
    expect(plain.seen).toContainEqual({ type: 'text-delta', id: '1', text: 'One two three' });
    expect(coalesced.deltas).toBeLessThan(plain.deltas);
  });

  it('ends an aborted stream as fetch would: the text before the abort, then the abort', async () => {
    // A stream that sends two tokens and holds the connection open until the client goes.
    const held = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chat({ role: 'assistant', content: '' }) + content('Hel') + content('lo'));
      });
    });
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    const baseURL = `http://127.0.0.1:${(held.address() as AddressInfo).port}/v1`;
    const abortedParts = async (fetchImpl: typeof fetch) => {
      const controller = new AbortController();
      const model = createOpenAICompatible({ name: 'test', baseURL, apiKey: 'k', fetch: fetchImpl }).chatModel('m');
      const result = streamText({ model, prompt: 'hi', maxRetries: 0, abortSignal: controller.signal, onError: () => undefined });
      let text = '';
      const types: string[] = [];
      for await (const part of result.stream as AsyncIterable<TextStreamPart<ToolSet>>) {
        if (part.type === 'text-delta') {
          text += part.text;
          // Both tokens are in: the server sends nothing more, so only the abort can end the stream.
          if (text === 'Hello') controller.abort(new Error('stop'));
          continue;
        }
        types.push(part.type);
      }
      return { text, types };
    };
    try {
      const plain = await abortedParts(fetch);
      const coalesced = await abortedParts(coalescingFetch(fetch));
      expect(plain.text).toBe('Hello');
      expect(plain.types).toContain('abort');
      expect(coalesced).toEqual(plain);
    } finally {
      held.closeAllConnections();
      await new Promise<void>((resolve) => held.close(() => resolve()));
    }
  });

  it('gives an error answer back untouched', async () => {
    const errorServer = createServer((req, res) => {
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json' }).end('{"error":{"message":"slow down"}}');
    });
    await new Promise<void>((resolve) => errorServer.listen(0, '127.0.0.1', resolve));
    try {
      const response = await coalescingFetch(fetch)(`http://127.0.0.1:${(errorServer.address() as AddressInfo).port}/`);
      expect(response.status).toBe(429);
      expect(await response.json()).toEqual({ error: { message: 'slow down' } });
    } finally {
      await new Promise<void>((resolve) => errorServer.close(() => resolve()));
    }
  });
});
