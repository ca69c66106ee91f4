// Loopback servers that speak the wire protocols of OpenAI-compatible chat completions and
// Anthropic messages (streaming, tool calls), recording every request the real AI SDK clients send.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface Gate {
  afterChunks: number;
  opened: Promise<void>;
  reached?: () => void;
}

/**
 * One streamed answer. `gate` holds it until the test opens it — a text answer after its first
 * `afterChunks` chunks (several gates: at each of them), a tool call before the call — so a test can
 * act while the model is provably mid-stream (no racing the machine's speed).
 */
export type Turn = (
  | { text: string; gate?: Gate | Gate[] }
  | { tool: { id: string; name: string; arguments: Record<string, unknown>; rawArguments?: string }; gate?: Gate }
) & {
  /**
   * The request this turn answers: one whose body holds this exact string value (the text of a run's
   * input, say). Runs that reach the model at once may do so in any order; without it, turns answer
   * requests in the order they arrive.
   */
  forInput?: string;
};

/**
 * A refusal instead of an answer: the HTTP `status` with `headers` (e.g. `retry-after`) and the
 * provider's error body; `answered` is called once it is sent (a signal for the test).
 */
export interface Refusal {
  refuse: { status: number; headers?: Record<string, string>; body?: unknown; answered?: () => void };
}

/** Sends a refusal turn; true when the turn was one. */
function refuse(res: ServerResponse, turn: Turn | Refusal): turn is Refusal {
  if (!('refuse' in turn)) return false;
  const { status, headers, body, answered } = turn.refuse;
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body ?? {}), () => answered?.());
  return true;
}

/**
 * The turn for a request: the first whose `forInput` the body holds as a string value, else the first
 * turn that names no request (turns that name one wait for theirs); undefined when none is left.
 */
export function takeTurn(state: ModelServer, body: unknown): Turn | Refusal | undefined {
  const text = JSON.stringify(body ?? null);
  const index = state.turns.findIndex((turn) =>
    'forInput' in turn && turn.forInput !== undefined ? text.includes(JSON.stringify(turn.forInput)) : true,
  );
  return index < 0 ? undefined : state.turns.splice(index, 1)[0];
}

/** The next answer of a server that sends no refusals (a refusal queued there is a mistake of the test). */
export function nextAnswer(state: ModelServer, fallback: Turn): Turn {
  const turn = state.turns.shift() ?? fallback;
  if ('refuse' in turn) throw new Error('this loopback server does not send refusals');
  return turn;
}

/** A tool call's arguments as the server sends them: `rawArguments` verbatim (e.g. text that is not JSON), else the JSON. */
const argumentsText = (tool: { arguments: Record<string, unknown>; rawArguments?: string }) =>
  tool.rawArguments ?? JSON.stringify(tool.arguments);

/** A gate for a Turn: `reached` resolves when the stream is held; `open()` lets it finish. */
export function streamGate(afterChunks = 1) {
  let open!: () => void;
  let markReached!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (markReached = resolve));
  return { gate: { afterChunks, opened, reached: markReached }, reached, open };
}

export interface ModelServer {
  url: string;
  requests: Recorded[];
  /** Answers (or refusals) for the next streaming requests, in order. */
  turns: (Turn | Refusal)[];
  apiKey: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : null;
}

export function start(
  handler: (server: ModelServer, req: IncomingMessage, res: ServerResponse, body: any) => void | Promise<void>,
  apiKey: string,
): Promise<ModelServer> {
  const state: ModelServer = { url: '', requests: [], turns: [], apiKey, close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    state.requests.push({ method: req.method!, path: req.url!, headers: req.headers, body });
    handler(state, req, res, body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // Held (gated) streams must not keep close() waiting.
      state.close = () =>
        new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      resolve(state);
    });
  });
}

export const sse = (res: ServerResponse) =>
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });

/**
 * `wholeToolCalls`: each tool call in one chunk with its complete arguments, as Mistral and xAI stream
 * them (OpenAI and most compatible servers stream the arguments in pieces after a first chunk with the
 * id). `groqUsage`: the final usage under `x_groq`, where Groq puts it.
 */
export function startOpenAICompatibleServer(
  apiKey = 'sk-test-openai-secret',
  options: {
    wholeToolCalls?: boolean;
    groqUsage?: boolean;
    /** The usage every answer reports (default 11 in, 7 out); cached and reasoning tokens as OpenAI details them. */
    usage?: { prompt: number; completion: number; cached?: number; reasoning?: number };
  } = {},
): Promise<ModelServer> {
  const reported = options.usage ?? { prompt: 11, completion: 7 };
  const usage = {
    prompt_tokens: reported.prompt,
    completion_tokens: reported.completion,
    total_tokens: reported.prompt + reported.completion,
    ...(reported.cached !== undefined ? { prompt_tokens_details: { cached_tokens: reported.cached } } : {}),
    ...(reported.reasoning !== undefined ? { completion_tokens_details: { reasoning_tokens: reported.reasoning } } : {}),
  };
  return start(async (state, req, res, body) => {
    if (req.headers.authorization !== `Bearer ${state.apiKey}`) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }));
      return;
    }
    // The model list, and OpenRouter's key check.
    if (req.method === 'GET' && (req.url === '/v1/models' || req.url === '/v1/key')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [{ id: 'loop-model', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions' || !body?.stream) {
      res.writeHead(404).end();
      return;
    }
    const turn = takeTurn(state, body) ?? { text: 'out of turns' };
    if (refuse(res, turn)) return;
    sse(res);
    const chunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }], ...(options.groqUsage && extra.usage ? { x_groq: extra } : extra) })}\n\n`,
      );
    chunk({ role: 'assistant', content: '' });
    if ('text' in turn) {
      const pieces = turn.text.match(/.{1,4}/g) ?? [];
      const gates = turn.gate ? [turn.gate].flat() : [];
      for (const [index, piece] of pieces.entries()) {
        for (const gate of gates.filter((g) => g.afterChunks === index)) {
          gate.reached?.();
          await gate.opened;
          if (res.destroyed) return;
        }
        chunk({ content: piece });
      }
      chunk({}, 'stop', { usage });
    } else {
      if (turn.gate) {
        turn.gate.reached?.();
        await turn.gate.opened;
        if (res.destroyed) return;
      }
      const args = argumentsText(turn.tool);
      if (options.wholeToolCalls)
        chunk({ tool_calls: [{ index: 0, id: turn.tool.id, type: 'function', function: { name: turn.tool.name, arguments: args } }] });
      else {
        chunk({ tool_calls: [{ index: 0, id: turn.tool.id, type: 'function', function: { name: turn.tool.name, arguments: '' } }] });
        chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] });
      }
      chunk({}, 'tool_calls', { usage });
    }
    res.end('data: [DONE]\n\n');
  }, apiKey);
}

/**
 * An `openai_compatible` provider and a model `key` on the loopback server, created through the
 * public API (the test app must allow plain-HTTP endpoints on 127.0.0.1).
 */
export async function addLoopbackModel(
  t: { rest(method: string, path: string, options?: { body?: unknown }): Promise<{ status: number; body: any }> },
  server: Pick<ModelServer, 'url' | 'apiKey'>,
  key: string,
  /** The wire the server speaks (an Anthropic-wire server: `anthropic`) and the upstream model name. */
  options: { type?: 'openai_compatible' | 'anthropic'; providerModel?: string } = {},
): Promise<void> {
  const provider = await t.rest('POST', '/api/v1/model-providers', {
    body: {
      type: options.type ?? 'openai_compatible',
      name: `loopback ${key}`,
      config: { base_url: `${server.url}/v1` },
      credential: { api_key: server.apiKey },
    },
  });
  if (provider.status !== 201) throw new Error(`loopback provider: ${JSON.stringify(provider.body)}`);
  const model = await t.rest('POST', '/api/v1/models', {
    body: { key, provider_id: provider.body.id, provider_model: options.providerModel ?? 'loop-model' },
  });
  if (model.status !== 201) throw new Error(`loopback model: ${JSON.stringify(model.body)}`);
}

/** The text of the user messages of a recorded chat-completions request. */
export function userTexts(request: Recorded): string[] {
  return (request.body?.messages ?? [])
    .filter((message: { role: string }) => message.role === 'user')
    .map((message: { content: string | { type: string; text?: string }[] }) =>
      typeof message.content === 'string' ? message.content : message.content.map((part) => part.text ?? '').join(''),
    );
}

export function startAnthropicServer(apiKey = 'sk-ant-test-secret'): Promise<ModelServer> {
  return start((state, req, res, body) => {
    if (req.headers['x-api-key'] !== state.apiKey) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }));
      return;
    }
    if (req.method === 'GET' && req.url?.startsWith('/v1/models')) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: [{ id: 'claude-loop', type: 'model' }], has_more: false }));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/v1/messages' || !body?.stream) {
      res.writeHead(404).end();
      return;
    }
    const turn = state.turns.shift() ?? { text: 'out of turns' };
    if (refuse(res, turn)) return;
    writeAnthropicStream(res, { model: body.model, usage: { input_tokens: 12 }, turn, chunkChars: 4 });
  }, apiKey);
}

/**
 * A turn as Anthropic's Messages API streams it (server-sent events): message_start with `usage`,
 * one text or tool_use block (text in pieces of `chunkChars`), message_delta with its stop reason,
 * message_stop. Shared by the loopback servers that speak that API.
 */
export function writeAnthropicStream(
  res: ServerResponse,
  options: { model: string; usage: Record<string, number>; turn: Turn; chunkChars?: number },
): void {
  const { turn } = options;
  sse(res);
  const event = (type: string, data: Record<string, unknown>) =>
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  event('message_start', {
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [],
      model: options.model,
      stop_reason: null,
      stop_sequence: null,
      usage: { ...options.usage, output_tokens: 1 },
    },
  });
  if ('text' in turn) {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    const pieces = options.chunkChars ? (turn.text.match(new RegExp(`[\\s\\S]{1,${options.chunkChars}}`, 'g')) ?? []) : [turn.text];
    for (const piece of pieces) event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece } });
  } else {
    event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: turn.tool.id, name: turn.tool.name, input: {} } });
    event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: argumentsText(turn.tool) } });
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', {
    delta: { stop_reason: 'text' in turn ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: 6 },
  });
  event('message_stop', {});
  res.end();
}
