// The reference MCP server from npm (@modelcontextprotocol/server-everything) for connection tests:
// over streamable HTTP as a child process on a loopback port, fronted by a small loopback proxy that
// records every request's headers and refuses (401) requests without the expected bearer token —
// the reference server itself checks no credential. Over stdio, the same server as a command line.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
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
