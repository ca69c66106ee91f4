// The reference MCP server from npm (@modelcontextprotocol/server-everything) for connection tests:
// over streamable HTTP as a child process on a loopback port, fronted by a small loopback proxy that
// records every request's headers and refuses (401) requests without the expected bearer token —
// the reference server itself checks no credential. Over stdio, the same server as a command line.
// And a server of the test's own, built with the MCP SDK, for tests that decide how it answers.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server as McpServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { freePort } from './process.js';

const require = createRequire(import.meta.url);
/** The server's entry point (its package exports nothing else). */
export const EVERYTHING_ENTRY = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** A connection `config` that runs the reference server over stdio. */
export const everythingStdioConfig = () => ({ transport: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] });

export interface McpTestServer {
  /** The MCP endpoint (through the proxy). */
  url: string;
  /** Headers of every request that reached the proxy, in order. */
  requests: IncomingHttpHeaders[];
  /** The bearer token the proxy requires (null: none). */
  token: string | null;
  /** Requests that were let through to the server. */
  forwarded(): number;
  close(): Promise<void>;
}

export async function startEverythingServer(token: string | null = null): Promise<McpTestServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_ENTRY, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the MCP server exited (${code}): ${output}`)));
  });

  let forwarded = 0;
  const state: McpTestServer = { url: '', requests: [], token, forwarded: () => forwarded, close: async () => undefined };
  const proxy: Server = createServer((req, res) => {
    state.requests.push(req.headers);
    if (state.token && req.headers.authorization !== `Bearer ${state.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      req.resume();
      return;
    }
    forwarded += 1;
    const upstream = request(
      { host: '127.0.0.1', port, path: req.url, method: req.method, headers: { ...req.headers, host: `127.0.0.1:${port}` } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
    child.kill('SIGKILL');
    await exited;
  };
  return state;
}

/**
 * An MCP server of the SDK over streamable HTTP on a loopback port, stateless (one server and transport
 * per request, as the SDK's stateless example does). `handlers` sets its request handlers; `intercept`
 * may answer a JSON-RPC message itself first (at the HTTP level: a 500, say) and returns whether it did.
 */
export async function startSdkMcpServer(
  handlers: (server: McpServer) => void,
  intercept?: (message: { method?: string; params?: { name?: string } } | undefined, res: ServerResponse) => boolean,
): Promise<{ url: string; close(): Promise<void> }> {
  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const message = body.length ? JSON.parse(body.toString()) : undefined;
    if (intercept?.(message, res)) return;
    const server = new McpServer({ name: 'test server', version: '1' }, { capabilities: { tools: {} } });
    handlers(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  };
  const http = await listenWithBodies(handle);
  return { url: http.url, close: http.close };
}

/**
 * An HTTP server on a loopback port that hands `handle` each request with its whole body (a handler
 * that fails drops the connection); `url` is its /mcp endpoint.
 */
async function listenWithBodies(handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => Promise<void>) {
  const http: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)).catch(() => res.destroy()));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export interface StatefulMcpTestServer {
  url: string;
  /** Event streams (GET) the clients hold open: where the server's own notifications go. */
  openStreams(): number;
  /** Sends `notifications/tools/list_changed` to every session. */
  toolsChanged(): Promise<void>;
  close(): Promise<void>;
}

/**
 * An MCP server of the SDK over streamable HTTP with sessions (one server and transport per session)
 * that declares `tools.listChanged`, so it can tell its clients that its tools changed. `intercept` as
 * for startSdkMcpServer.
 */
export async function startStatefulSdkMcpServer(
  handlers: (server: McpServer) => void,
  intercept?: (message: { method?: string; params?: { name?: string } } | undefined, res: ServerResponse) => boolean,
): Promise<StatefulMcpTestServer> {
  const sessions = new Map<string, { server: McpServer; transport: StreamableHTTPServerTransport }>();
  let streams = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const message = body.length ? JSON.parse(body.toString()) : undefined;
    if (intercept?.(message, res)) return;
    const id = req.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session) {
      if (req.method !== 'POST' || message?.method !== 'initialize') return void res.writeHead(404).end();
      const server = new McpServer({ name: 'test server', version: '1' }, { capabilities: { tools: { listChanged: true } } });
      handlers(server);
      const created = {
        server,
        transport: new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
        }),
      };
      session = created;
      await server.connect(created.transport);
    }
    if (req.method === 'GET') {
      // The transport registers the stream before it answers: once the answer's head is out, a
      // notification reaches the client.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => {
        const written = writeHead(...args);
        if (res.statusCode === 200) {
          streams += 1;
          res.once('close', () => (streams -= 1));
        }
        return written;
      }) as typeof res.writeHead;
    }
    await session.transport.handleRequest(req, res, message);
  };
  const http = await listenWithBodies(handle);
  return {
    url: http.url,
    openStreams: () => streams,
    async toolsChanged() {
      await Promise.all([...sessions.values()].map(({ server }) => server.sendToolListChanged()));
    },
    async close() {
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close().catch(() => undefined)));
      await http.close();
    },
  };
}
