// The workload's loopback process (run as a child of the bench, so its CPU is told apart from the
// service's and the bench clients'): an OpenAI-compatible chat-completions server that streams each
// run's plan (bench/workload/plan.ts) token by token at the planned pace, each token stamped with its
// emission time (stamps.ts); an MCP server (streamable HTTP, the MCP SDK) with a `fetch_document` tool;
// and `GET /doc?bytes=N` for the http_request plugin. Prints `{"port": …}` on stdout when listening.
//
// Env: BENCH_EPOCH (wall-clock ms the stamps count from); BENCH_MCP_LIST_MS (a range, `200-600`, or
// one value; default 0): how long the MCP server takes to list its tools, as a server across a network
// does — every run's preparation asks for the list.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseRange, planFromText, type Plan, type Turn } from './plan.js';
import { formatToken, sinceEpoch } from './stamps.js';

const EPOCH = Number(process.env.BENCH_EPOCH);
if (!Number.isFinite(EPOCH)) throw new Error('BENCH_EPOCH is required');
const MCP_LIST_MS = parseRange(process.env.BENCH_MCP_LIST_MS?.trim() || '0');
/** How often the emitter wakes to write the tokens that are due (all streams in one pass). */
const TICK_MS = 5;

/** A document of `bytes` characters (what a large tool result looks like to the service). */
const documentOf = (bytes: number) => 'lorem ipsum dolor sit amet '.repeat(Math.ceil(bytes / 27)).slice(0, bytes);

// ── chat completions ──

const frame = (delta: string, finish: string | null = null, extra = '') =>
  `data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"loop","choices":[{"index":0,"delta":${delta},"finish_reason":${finish ? `"${finish}"` : 'null'}}]${extra}}\n\n`;

interface Emitting {
  res: ServerResponse;
  planId: string;
  turnIndex: number;
  turn: Turn;
  written: number;
  /** When the next token is due, in ms since the epoch. */
  nextDue: number;
  baseUrl: string;
}

const emitting = new Set<Emitting>();
const turnsSeen = new Map<string, number>();
let requests = 0;
let unplanned = 0;
/** When each plan's first model request arrived (ms since the epoch): the bench measures its run's start from it. */
const firstRequests: Record<string, number> = {};

function messageText(message: { content?: unknown }): string {
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) return message.content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

function toolCall(entry: Emitting): string {
  const tool = entry.turn.tool!;
  const id = `call_${entry.planId}_${entry.turnIndex}`;
  const [name, args] =
    tool.kind === 'mcp'
      ? ['fetch_document', { bytes: tool.resultBytes }]
      : tool.kind === 'http'
        ? ['http_request', { method: 'GET', url: `${entry.baseUrl}/doc?bytes=${tool.resultBytes}` }]
        : ['confirm', { question: 'May I go on?' }];
  return JSON.stringify({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });
}

const USAGE = ',"usage":{"prompt_tokens":100,"completion_tokens":100,"total_tokens":200}';

function finish(entry: Emitting) {
  emitting.delete(entry);
  if (entry.turn.tool) {
    entry.res.write(frame(toolCall(entry)));
    entry.res.write(frame('{}', 'tool_calls', USAGE));
  } else entry.res.write(frame('{}', 'stop', USAGE));
  entry.res.end('data: [DONE]\n\n');
}

setInterval(() => {
  const now = sinceEpoch(EPOCH);
  for (const entry of emitting) {
    while (entry.written < entry.turn.tokens && entry.nextDue <= now) {
      entry.res.write(frame(`{"content":"${formatToken(sinceEpoch(EPOCH))}"}`));
      entry.written += 1;
      entry.nextDue += 1000 / entry.turn.tokensPerSecond;
    }
    if (entry.written >= entry.turn.tokens) finish(entry);
  }
}, TICK_MS);

function chatCompletion(body: { messages?: { role: string; content?: unknown }[] }, res: ServerResponse, baseUrl: string) {
  requests += 1;
  let plan: Plan | null = null;
  for (const message of body.messages ?? []) if (message.role === 'user' && (plan = planFromText(messageText(message)))) break;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(frame('{"role":"assistant","content":""}'));
  // A turn past the plan (a retried request, say) answers at once and is counted: the bench reports it.
  const turnIndex = plan ? (turnsSeen.get(plan.id) ?? 0) : 0;
  if (plan && turnIndex === 0) firstRequests[plan.id] ??= sinceEpoch(EPOCH);
  const turn = plan?.turns[turnIndex];
  if (!plan || !turn) {
    unplanned += 1;
    res.write(frame('{"content":"done"}'));
    res.end(frame('{}', 'stop', USAGE) + 'data: [DONE]\n\n');
    return;
  }
  turnsSeen.set(plan.id, turnIndex + 1);
  const entry: Emitting = { res, planId: plan.id, turnIndex, turn, written: 0, nextDue: sinceEpoch(EPOCH) + turn.ttftMs, baseUrl };
  emitting.add(entry);
  res.on('close', () => emitting.delete(entry));
}

// ── MCP ──

/** `tools/list` requests answered (the service shares listings between attempts: bench:starts counts them). */
let toolListings = 0;

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'bench-documents', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    toolListings += 1;
    const waitMs = MCP_LIST_MS.min + Math.random() * (MCP_LIST_MS.max - MCP_LIST_MS.min);
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    return {
      tools: [
        {
          name: 'fetch_document',
          description: 'Fetches a document of the given size.',
          inputSchema: { type: 'object', properties: { bytes: { type: 'integer', minimum: 1 } }, required: ['bytes'] },
        },
      ],
    };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: documentOf(Number(request.params.arguments?.bytes ?? 100)) }],
  }));
  return server;
}

async function mcp(req: IncomingMessage, res: ServerResponse, body: Buffer) {
  // Stateless: one server and transport per request, as the SDK's stateless example does.
  const server = mcpServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void transport.close());
  await server.connect(transport);
  await transport.handleRequest(req, res, body.length ? JSON.parse(body.toString()) : undefined);
}

// ── HTTP ──

const http = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    if (url.pathname === '/v1/models')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"loop"}]}');
    if (url.pathname === '/v1/chat/completions' && req.method === 'POST') return chatCompletion(JSON.parse(body.toString()), res, baseUrl);
    if (url.pathname === '/mcp') return void mcp(req, res, body).catch(() => res.destroy());
    if (url.pathname === '/doc')
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(documentOf(Number(url.searchParams.get('bytes') ?? 100)));
    if (url.pathname === '/stats')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ requests, unplanned, emitting: emitting.size, firstRequests, toolListings }));
    res.writeHead(404).end();
  });
});
// Idle connections stay open longer than the service's HTTP clients keep theirs (undici: 4 s), so the
// client is the side that closes them: with Node's default of 5 s a request sent as the server closes
// the connection fails with "other side closed", which is this process's fault, not the service's.
http.keepAliveTimeout = 65_000;
http.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: (http.address() as AddressInfo).port })}\n`));
