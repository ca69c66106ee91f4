// A loopback model that behaves like a real provider about its context window: an OpenAI-compatible
// chat-completions server that counts each prompt's tokens (its own count: characters / 4 over
// every message, tool definition and the system prompt, plus a few per message — not the service's
// tokenizer), refuses a prompt over its window the way OpenAI does (400 `context_length_exceeded`,
// "This model's maximum context length is N tokens…") or, with `flavour: 'anthropic'`-style text,
// and reports prompt caching like OpenAI's automatic cache: the longest prefix (in 64-token blocks)
// it has seen before is `prompt_tokens_details.cached_tokens`.
//
// It answers by itself: a summarisation request (no tools, a system prompt asking to compact a
// conversation) gets a summary made of the facts it finds — every sentence of the transcript or the
// earlier summary that says to remember something — so a fact given early survives compaction only
// if the service really sends it to the summariser. Other requests get the scripted `turns` first,
// then `answer(request)`.
import type { ServerResponse } from 'node:http';
import { nextAnswer, sse, start, writeAnthropicStream, type ModelServer, type Turn } from './model-servers.js';

export interface WindowModelServer extends ModelServer {
  window: number;
  /** The prompt size of every chat request, as the server counted it, in order (refused ones included). */
  promptTokens: number[];
  /** How many requests were refused for length. */
  refusals: number;
  /** How many summarisation requests were answered. */
  summaries: number;
  /** The cached tokens reported per request. */
  cachedTokens: number[];
}

const BLOCK = 64;

/** The server's token count of a chat-completions request body. */
export function countPrompt(body: any): number {
  let chars = 0;
  let messages = 0;
  for (const message of body?.messages ?? []) {
    messages += 1;
    const content = message.content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) for (const part of content) chars += (part.text ?? JSON.stringify(part)).length;
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  }
  for (const tool of body?.tools ?? []) chars += JSON.stringify(tool).length;
  return Math.ceil(chars / 4) + messages * 4;
}

/** The prompt as one text, for prefix caching. */
const promptText = (body: any) => JSON.stringify([body?.tools ?? [], body?.messages ?? []]);

const FACT = /[^.\n]*\b(remember|code word)\b[^.\n]*\./gi;

/** The summariser's answer: the remembered facts of the request, each once, in order. */
function summaryOf(body: any): string {
  return factsOf(
    (body.messages as { content: unknown }[])
      .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)))
      .join('\n'),
  );
}

function factsOf(text: string): string {
  const facts = [...new Set((text.match(FACT) ?? []).map((fact) => fact.trim()))];
  return facts.length ? `Facts to keep:\n${facts.join('\n')}` : 'Nothing to keep beyond small talk.';
}

const isSummarisation = (body: any) =>
  !body.tools?.length && body.messages?.[0]?.role === 'system' && /compacting the conversation/i.test(String(body.messages[0].content));

export function startWindowModelServer(options: {
  window: number;
  answer?: (body: any) => string;
  apiKey?: string;
  /** How the refusal reads: OpenAI's (default) or a vLLM-style message without the code. */
  refusal?: 'openai' | 'vllm';
}): Promise<WindowModelServer> {
  const seen: string[] = [];
  let server!: WindowModelServer;
  return start(async (state, req, res, body) => {
    server = state as WindowModelServer;
    if (req.headers.authorization !== `Bearer ${state.apiKey}`) return json(res, 401, { error: { message: 'Incorrect API key provided' } });
    if (req.method === 'GET' && req.url === '/v1/models')
      return json(res, 200, { object: 'list', data: [{ id: 'window-model', object: 'model' }] });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(res, 404, {});
    const tokens = countPrompt(body);
    server.promptTokens.push(tokens);
    const maxTokens = body.max_tokens ?? 0;
    if (tokens + maxTokens > server.window) {
      server.refusals += 1;
      const message =
        options.refusal === 'vllm'
          ? `This model's maximum context length is ${server.window} tokens. However, you requested ${tokens + maxTokens} tokens (${tokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`
          : `This model's maximum context length is ${server.window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
      return json(res, 400, {
        error: {
          message,
          type: 'invalid_request_error',
          param: 'messages',
          code: options.refusal === 'vllm' ? null : 'context_length_exceeded',
        },
      });
    }
    // Prefix caching: the longest prefix shared with an earlier prompt, in whole blocks.
    const text = promptText(body);
    let shared = 0;
    for (const earlier of seen.slice(-8)) {
      let index = 0;
      const limit = Math.min(earlier.length, text.length);
      while (index < limit && earlier.charCodeAt(index) === text.charCodeAt(index)) index += 1;
      shared = Math.max(shared, index);
    }
    seen.push(text);
    const cached = Math.min(tokens, Math.floor(shared / 4 / BLOCK) * BLOCK);
    server.cachedTokens.push(cached);
    const usage = {
      prompt_tokens: tokens,
      completion_tokens: 7,
      total_tokens: tokens + 7,
      prompt_tokens_details: { cached_tokens: cached },
    };
    let turn: Turn;
    if (isSummarisation(body)) {
      server.summaries += 1;
      turn = { text: summaryOf(body) };
    } else turn = nextAnswer(state, { text: options.answer ? options.answer(body) : 'ok' });
    if (!body.stream) {
      return json(res, 200, {
        id: 'chatcmpl-w',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'text' in turn ? turn.text : '' }, finish_reason: 'stop' }],
        usage,
      });
    }
    sse(res);
    const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-w', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' });
    if ('text' in turn) {
      chunk({ content: turn.text });
      chunk({}, 'stop', { usage });
    } else {
      chunk({
        tool_calls: [
          {
            index: 0,
            id: turn.tool.id,
            type: 'function',
            function: { name: turn.tool.name, arguments: JSON.stringify(turn.tool.arguments) },
          },
        ],
      });
      chunk({}, 'tool_calls', { usage });
    }
    res.end('data: [DONE]\n\n');
  }, options.apiKey ?? 'sk-window-secret').then((state) => {
    server = Object.assign(state, { window: options.window, promptTokens: [], refusals: 0, summaries: 0, cachedTokens: [] });
    return server;
  });
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

// The scripted conversation of the long-thread tests and the context benchmark.

export const CODE_WORD = 'PERIWINKLE-42';

const FILLER =
  'The weather report mentioned light rain over the harbour, the ferry schedule changed twice this week, ' +
  'and the committee still has to choose between the blue and the green design for the new library entrance. ';

/** A user turn of about `chars` characters (≈ chars / 4 tokens); turn 1 gives the code word to remember. */
export function turnText(turn: number, chars = 1000): string {
  const head = turn === 1 ? `Turn 1. Please remember this: the code word is ${CODE_WORD}. ` : `Turn ${turn}. `;
  let text = head;
  while (text.length < chars) text += FILLER;
  return text.slice(0, chars);
}

/** The loopback's answer: what it finds of the code word in what it was sent, else a plain reply of ~`chars`. */
export function answerFrom(chars = 400) {
  return (body: any): string => {
    const prompt = JSON.stringify(body.messages);
    const content = body.messages.at(-1)?.content ?? '';
    const lastText = typeof content === 'string' ? content : (content as { text?: string }[]).map((part) => part.text ?? '').join(' ');
    const asked = /what is the code word/i.test(lastText);
    if (asked) return prompt.includes(CODE_WORD) ? `The code word is ${CODE_WORD}.` : 'I do not know the code word.';
    let text = 'Noted. ';
    while (text.length < chars) text += 'I will keep that in mind while we go on. ';
    return text.slice(0, chars);
  };
}

/**
 * The same model behind Anthropic's messages API: it counts the system prompt, the messages and the
 * tools (characters / 4), refuses a prompt over its window (the prompt alone) as Anthropic does (400
 * `invalid_request_error`, "prompt is too long: N tokens > W maximum"), and caches like Anthropic: a
 * request writes the prefix up to each `cache_control` breakpoint it carries, and reads the longest
 * earlier written prefix that it starts with (`cache_read_input_tokens`, apart from `input_tokens`).
 * Summarisation requests (not streamed) get the facts summary.
 */
export function startWindowAnthropicServer(options: { window: number; answer?: (body: any) => string }): Promise<WindowModelServer> {
  const written = new Map<string, number>();
  let server!: WindowModelServer;
  const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));
  return start(async (state, req, res, body) => {
    server = state as WindowModelServer;
    if (req.headers['x-api-key'] !== state.apiKey)
      return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    if (req.method === 'GET' && req.url?.startsWith('/v1/models'))
      return json(res, 200, { data: [{ id: 'claude-window', type: 'model' }], has_more: false });
    if (req.method !== 'POST' || req.url !== '/v1/messages') return json(res, 404, {});
    // The prompt as blocks in order: the system blocks, then the messages; a prefix is counted and keyed by its blocks.
    const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : (body.system ?? []);
    const blocks: { key: string; chars: number; marked: boolean }[] = [];
    const tools = JSON.stringify(body.tools ?? []);
    for (const block of system) blocks.push({ key: `system:${block.text}`, chars: block.text.length, marked: !!block.cache_control });
    for (const message of body.messages ?? []) {
      const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
      for (const part of parts) {
        const text = part.text ?? textOf(part.content ?? part.input ?? part);
        blocks.push({ key: `${message.role}:${text}`, chars: text.length, marked: !!part.cache_control });
      }
    }
    const tokensUpTo = (index: number) =>
      Math.ceil((tools.length + blocks.slice(0, index + 1).reduce((sum, b) => sum + b.chars, 0)) / 4) + (index + 1) * 4;
    const total = blocks.length ? tokensUpTo(blocks.length - 1) : Math.ceil(tools.length / 4);
    server.promptTokens.push(total);
    // Anthropic judges the prompt alone (`max_tokens` has a limit of its own).
    if (total > server.window) {
      server.refusals += 1;
      return json(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: `prompt is too long: ${total} tokens > ${server.window} maximum` },
      });
    }
    let prefix = tools;
    let cacheRead = 0;
    const prefixes: string[] = [];
    for (const [index, block] of blocks.entries()) {
      prefix += `\u0000${block.key}`;
      prefixes.push(prefix);
      if (written.has(prefix)) cacheRead = written.get(prefix)!;
      void index;
    }
    for (const [index, block] of blocks.entries()) if (block.marked) written.set(prefixes[index]!, tokensUpTo(index));
    server.cachedTokens.push(cacheRead);
    const usage = { input_tokens: total - cacheRead, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 0, output_tokens: 6 };
    const summarising = !body.stream && /compacting the conversation/i.test(system.map((b: { text: string }) => b.text).join(' '));
    if (summarising) {
      server.summaries += 1;
      return json(res, 200, {
        id: 'msg_s',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [{ type: 'text', text: factsOf((body.messages ?? []).map((m: { content: unknown }) => textOf(m.content)).join('\n')) }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      });
    }
    const turn: Turn = nextAnswer(state, { text: options.answer ? options.answer({ messages: body.messages }) : 'ok' });
    writeAnthropicStream(res, { model: body.model, usage, turn });
  }, 'sk-ant-window-secret').then((state) => {
    server = Object.assign(state, { window: options.window, promptTokens: [], refusals: 0, summaries: 0, cachedTokens: [] });
    return server;
  });
}
