// A loopback HTTP server for the web toolset's tests: it speaks whatever wire format the test's
// handler answers with (a web vendor's API, or plain pages) and records every request.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestApp } from './app.js';
import { settleRun } from './runs.js';

export interface WebRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The request target as sent (path and query). */
  target: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface WebAnswer {
  status?: number;
  json?: unknown;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Never answer (time-limit tests); the server's close() ends the connection. */
  hang?: boolean;
}

export interface WebServer {
  url: string;
  requests: WebRequest[];
  close(): Promise<void>;
}

export function startWebServer(handler: (request: WebRequest) => WebAnswer | Promise<WebAnswer>): Promise<WebServer> {
  const requests: WebRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(req.url!, 'http://loopback');
    let body: unknown = text || null;
    if (text && /json/.test(req.headers['content-type'] ?? '')) body = JSON.parse(text);
    const request: WebRequest = {
      method: req.method!,
      path: parsed.pathname,
      query: parsed.searchParams,
      target: req.url!,
      headers: req.headers,
      body,
    };
    requests.push(request);
    const answer = await handler(request);
    if (answer.hang) return;
    const headers = { ...(answer.json !== undefined ? { 'content-type': 'application/json' } : {}), ...answer.headers };
    res.writeHead(answer.status ?? 200, headers);
    res.end(answer.json !== undefined ? JSON.stringify(answer.json) : answer.body);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

export type ScriptedCall = { name: string; arguments: Record<string, unknown> };

/**
 * An agent on the scripted model `dev` with `toolsets.web` whose model makes the given tool calls,
 * one per turn, then answers "done"; runs it and returns the settled run with its items.
 */
export async function webRun(
  t: TestApp,
  web: Record<string, unknown>,
  calls: ScriptedCall[],
  options: Record<string, unknown> = {},
): Promise<{ run: any; items: any[]; history: unknown }> {
  const script = [...calls.map((call, i) => [{ tool_call: { id: `c${i + 1}`, ...call } }]), [{ text: 'done' }]];
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'web agent', config: { model: 'dev', toolsets: { web }, retries: { tools: calls.length }, model_settings: { script } } },
  });
  if (agent.status !== 201) throw new Error(`agent: ${JSON.stringify(agent.body)}`);
  const started = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'look it up' }] }, options },
  });
  if (started.status !== 201) throw new Error(`run: ${JSON.stringify(started.body)}`);
  const run = await settleRun(t, started.body.id);
  const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
  const history = (await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).body.message_history;
  return { run, items, history };
}

/** The run's `tool_call` items, in order. */
/**
 * The run's `tool_call` items, in order, each with its call's `result` from the `tool_result` item the
 * call produced (a failed call carries its `error` on the `tool_call` item itself).
 */
export function toolCalls(items: any[]) {
  const results = new Map(items.filter((item) => item.kind === 'tool_result').map((item) => [item.content.tool_call_id, item.content]));
  return items
    .filter((item) => item.kind === 'tool_call')
    .map((call) => {
      const result = results.get(call.content.tool_call_id);
      return result && 'result' in result ? { ...call, content: { ...call.content, result: result.result } } : call;
    });
}
