// Loopback servers for the model wire protocols beyond chat completions and Anthropic messages:
// Cohere v2 chat, Ollama's native chat, Gemini's generateContent (as Vertex AI serves it), the OpenAI
// Responses API (Hugging Face's router, the ChatGPT Codex backend) and Vercel's AI Gateway. Each
// streams the scripted `turns` (text in pieces, or one tool call) in the protocol's own framing,
// answers the protocol's probe request, and refuses a wrong credential with its vendor's status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nextAnswer, sse, start, type ModelServer, type Turn } from './model-servers.js';

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};
const pieces = (text: string) => text.match(/.{1,4}/g) ?? [];
const nextTurn = (state: ModelServer): Turn => nextAnswer(state, { text: 'out of turns' });
const bearer = (req: IncomingMessage, state: ModelServer) => req.headers.authorization === `Bearer ${state.apiKey}`;

/** Cohere v2: `POST /v2/chat` (SSE of typed events), probe `GET /v1/models`. */
export function startCohereServer(apiKey = 'co-test-secret'): Promise<ModelServer> {
  return start((state, req, res, body) => {
    if (!bearer(req, state)) return json(res, 401, { message: 'invalid api token' });
    if (req.method === 'GET' && req.url?.startsWith('/v1/models')) return json(res, 200, { models: [{ name: 'command-loop' }] });
    if (req.method !== 'POST' || req.url !== '/v2/chat' || !body?.stream) return json(res, 404, { message: 'not found' });
    const turn = nextTurn(state);
    sse(res);
    const event = (type: string, data: Record<string, unknown> = {}) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message-start', { id: 'co-msg-1', delta: { message: { role: 'assistant' } } });
    if ('text' in turn) {
      event('content-start', { index: 0, delta: { message: { content: { type: 'text', text: '' } } } });
      for (const piece of pieces(turn.text)) event('content-delta', { index: 0, delta: { message: { content: { text: piece } } } });
      event('content-end', { index: 0 });
    } else {
      event('tool-plan-delta', { delta: { message: { tool_plan: 'I will look it up.' } } });
      event('tool-call-start', {
        index: 0,
        delta: { message: { tool_calls: { id: turn.tool.id, type: 'function', function: { name: turn.tool.name, arguments: '' } } } },
      });
      event('tool-call-delta', {
        index: 0,
        delta: { message: { tool_calls: { function: { arguments: JSON.stringify(turn.tool.arguments) } } } },
      });
      event('tool-call-end', { index: 0 });
    }
    event('message-end', {
      delta: { finish_reason: 'text' in turn ? 'COMPLETE' : 'TOOL_CALL', usage: { tokens: { input_tokens: 12, output_tokens: 6 } } },
    });
    res.end();
  }, apiKey);
}

/** Ollama: `POST /api/chat` (newline-delimited JSON), probe `GET /api/tags`; no key (a proxy's bearer token when set). */
export function startOllamaServer(apiKey = 'ollama-proxy-secret'): Promise<ModelServer> {
  return start((state, req, res, body) => {
    if (!bearer(req, state)) return json(res, 401, { error: 'unauthorized' });
    if (req.method === 'GET' && req.url === '/api/tags') return json(res, 200, { models: [{ name: 'llama-loop:latest' }] });
    if (req.method !== 'POST' || req.url !== '/api/chat' || body?.stream === false) return json(res, 404, { error: 'not found' });
    const turn = nextTurn(state);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const line = (message: Record<string, unknown>, done: boolean, extra: Record<string, unknown> = {}) =>
      res.write(
        `${JSON.stringify({ model: body.model, created_at: new Date(0).toISOString(), message: { role: 'assistant', content: '', ...message }, done, ...extra })}\n`,
      );
    if ('text' in turn) for (const piece of pieces(turn.text)) line({ content: piece }, false);
    else line({ tool_calls: [{ id: turn.tool.id, function: { name: turn.tool.name, arguments: turn.tool.arguments } }] }, false);
    line({}, true, { done_reason: 'stop', prompt_eval_count: 12, eval_count: 6, total_duration: 1000 });
    res.end();
  }, apiKey);
}

/**
 * Gemini's generateContent as Vertex AI serves it: `POST …/models/{model}:streamGenerateContent?alt=sse`
 * under the publisher path, with an OAuth bearer token.
 */
export function startVertexServer(apiKey = 'ya29.test-access-token'): Promise<ModelServer> {
  return start((state, req, res) => {
    if (!bearer(req, state))
      return json(res, 401, {
        error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
      });
    if (req.method !== 'POST' || !/\/models\/[^/:]+:streamGenerateContent\?alt=sse$/.test(req.url ?? ''))
      return json(res, 404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
    const turn = nextTurn(state);
    sse(res);
    const chunk = (parts: unknown[], finishReason?: string) =>
      res.write(
        `data: ${JSON.stringify({
          candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
          ...(finishReason ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 } } : {}),
          modelVersion: 'gemini-loop',
        })}\r\n\r\n`,
      );
    if ('text' in turn) {
      const all = pieces(turn.text);
      all.forEach((piece, index) => chunk([{ text: piece }], index === all.length - 1 ? 'STOP' : undefined));
    } else chunk([{ functionCall: { name: turn.tool.name, args: turn.tool.arguments } }], 'STOP');
    res.end();
  }, apiKey);
}

/**
 * The OpenAI Responses API (`POST /v1/responses`, SSE of `response.*` events), as Hugging Face's
 * router and the ChatGPT Codex backend serve it; probe `GET /v1/models`. `requiredHeaders` are checked
 * too (the Codex backend's `chatgpt-account-id`).
 */
export function startResponsesServer(apiKey = 'hf_test_secret', requiredHeaders: Record<string, string> = {}): Promise<ModelServer> {
  return start((state, req, res, body) => {
    const headersOk = Object.entries(requiredHeaders).every(([name, value]) => req.headers[name.toLowerCase()] === value);
    if (!bearer(req, state) || !headersOk)
      return json(res, 401, { error: { message: 'Invalid credentials', type: 'invalid_request_error' } });
    if (req.method === 'GET' && req.url === '/v1/models')
      return json(res, 200, { object: 'list', data: [{ id: 'loop-model', object: 'model' }] });
    if (req.method !== 'POST' || req.url !== '/v1/responses' || !body?.stream) return json(res, 404, { error: { message: 'not found' } });
    const turn = nextTurn(state);
    sse(res);
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    const response = { id: 'resp_1', object: 'response', created_at: 1, model: body.model };
    event('response.created', { response: { ...response, status: 'in_progress', output: [] } });
    let item: Record<string, unknown>;
    if ('text' in turn) {
      item = {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      };
      event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      for (const piece of pieces(turn.text))
        event('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: piece, logprobs: [] });
    } else {
      const args = JSON.stringify(turn.tool.arguments);
      item = { type: 'function_call', id: 'fc_1', call_id: turn.tool.id, name: turn.tool.name, arguments: args, status: 'completed' };
      event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
      event('response.function_call_arguments.delta', { item_id: 'fc_1', output_index: 0, delta: args });
    }
    event('response.output_item.done', { output_index: 0, item });
    event('response.completed', {
      response: {
        ...response,
        status: 'completed',
        output: [item],
        incomplete_details: null,
        usage: {
          input_tokens: 12,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 6,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 18,
        },
      },
    });
    res.end();
  }, apiKey);
}

/**
 * Vercel's AI Gateway: `POST {base}/language-model` with the model in `ai-language-model-id`, the call
 * options as the body, answered by SSE whose data are the AI SDK's stream parts — of the language
 * model specification the client names in `ai-language-model-specification-version` (v4 with AI SDK 7:
 * nested usage, finish reason with its raw value).
 */
export function startGatewayServer(apiKey = 'vck_test_secret'): Promise<ModelServer> {
  return start((state, req, res) => {
    if (!bearer(req, state)) return json(res, 401, { error: { message: 'Invalid API key', type: 'authentication_error' } });
    if (
      req.method !== 'POST' ||
      req.url !== '/v1/ai/language-model' ||
      req.headers['ai-language-model-streaming'] !== 'true' ||
      req.headers['ai-language-model-specification-version'] !== '4'
    )
      return json(res, 404, { error: { message: 'not found', type: 'not_found' } });
    const turn = nextTurn(state);
    sse(res);
    const part = (data: Record<string, unknown>) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    part({ type: 'stream-start', warnings: [] });
    part({
      type: 'response-metadata',
      id: 'gw-1',
      modelId: String(req.headers['ai-language-model-id']),
      timestamp: new Date(0).toISOString(),
    });
    if ('text' in turn) {
      part({ type: 'text-start', id: 't1' });
      for (const piece of pieces(turn.text)) part({ type: 'text-delta', id: 't1', delta: piece });
      part({ type: 'text-end', id: 't1' });
    } else {
      const input = JSON.stringify(turn.tool.arguments);
      part({ type: 'tool-input-start', id: turn.tool.id, toolName: turn.tool.name });
      part({ type: 'tool-input-delta', id: turn.tool.id, delta: input });
      part({ type: 'tool-input-end', id: turn.tool.id });
      part({ type: 'tool-call', toolCallId: turn.tool.id, toolName: turn.tool.name, input });
    }
    const finishReason = 'text' in turn ? 'stop' : 'tool-calls';
    part({
      type: 'finish',
      finishReason: { unified: finishReason, raw: finishReason },
      usage: {
        inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 6, text: 6, reasoning: 0 },
      },
    });
    res.end();
  }, apiKey);
}
