// A loopback E2B for the `e2b` environment type's tests (this machine cannot reach e2b.app). Two
// HTTP servers speak E2B's documented wire protocol:
//   - the control plane (`api`): `POST /sandboxes`, `GET /sandboxes/{id}`, `GET /v2/sandboxes`
//     (metadata and state filters), `POST /sandboxes/{id}/pause`, `POST /sandboxes/{id}/connect`,
//     `DELETE /sandboxes/{id}`, checking `X-API-Key`;
//   - the sandboxes' shared host (`sandbox`), routing by the `E2b-Sandbox-Id` header as E2B's
//     sandbox proxy does, serving envd: Connect RPC `process.Process/{Start, SendSignal, SendInput,
//     CloseStdin}` (Start as a server stream of enveloped JSON) and `filesystem.Filesystem/{Stat,
//     MakeDir, ListDir}`, and plain HTTP `GET/POST /files` (multipart upload), checking the
//     sandbox's `X-Access-Token` and the Basic user.
// A sandbox is a directory: commands are real processes of this machine (in their own process
// group) with the sandbox's paths mapped into it, and files are real files. Pausing stops (SIGSTOP)
// what runs and refuses envd traffic; connecting resumes (SIGCONT) it; killing removes it all.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { encodeEnvelope, EnvelopeDecoder, END_STREAM_FLAG } from '../../src/providers/environments/connect-rpc.js';

export interface FakeSandbox {
  sandboxID: string;
  templateID: string;
  state: 'running' | 'paused';
  accessToken: string;
  metadata: Record<string, string>;
  envVars: Record<string, string>;
  timeout: number;
  autoPause: boolean;
  root: string;
  processes: Map<number, ChildProcess>;
  /** The Basic users envd requests named. */
  users: Set<string>;
}

export interface E2bServer {
  /** The provider's `api_url`. */
  apiUrl: string;
  /** The provider's `sandbox_url` (one host for every sandbox, routed by header). */
  sandboxUrl: string;
  apiKey: string;
  /** Every request: `METHOD /path` on the control plane, `envd METHOD /path` on the sandbox host. */
  requests: string[];
  sandboxes: Map<string, FakeSandbox>;
  /** Templates that exist (others answer 404 on create). */
  templates: Set<string>;
  /** Where a sandbox path lives on this machine. */
  hostPath(sandbox: FakeSandbox, path: string): string;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

export async function startE2bServer(options: { templates?: string[]; apiKey?: string } = {}): Promise<E2bServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-fake-e2b-'));
  const apiKey = options.apiKey ?? `e2b_${randomBytes(12).toString('hex')}`;
  const templates = new Set(options.templates ?? ['base']);
  const sandboxes = new Map<string, FakeSandbox>();
  const requests: string[] = [];
  const streams = new Set<ServerResponse>();
  const hostPath = (sandbox: FakeSandbox, path: string) => join(sandbox.root, posix.resolve('/', path));
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) res.writeHead(status).end();
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const apiError = (res: ServerResponse, status: number, message: string) => json(res, status, { code: status, message });
  const signalAll = (sandbox: FakeSandbox, signal: NodeJS.Signals) => {
    for (const pid of sandbox.processes.keys()) {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const view = (sandbox: FakeSandbox) => ({
    templateID: sandbox.templateID,
    sandboxID: sandbox.sandboxID,
    clientID: 'loopback',
    envdVersion: '0.5.7',
    envdAccessToken: sandbox.accessToken,
    domain: null,
  });

  // ── the control plane ──
  async function api(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, 'http://api');
    const text = (await readBody(req)).toString('utf8');
    requests.push(`${req.method} ${url.pathname}`);
    if (req.headers['x-api-key'] !== apiKey) return apiError(res, 401, 'Invalid API key, it must start with e2b_');
    const body = text ? JSON.parse(text) : {};
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && url.pathname === '/sandboxes') {
      if (typeof body.templateID !== 'string') return apiError(res, 400, 'templateID is required');
      if (!templates.has(body.templateID)) return apiError(res, 404, `template '${body.templateID}' not found`);
      const sandboxID = `i${randomBytes(10).toString('hex')}`;
      const sandbox: FakeSandbox = {
        sandboxID,
        templateID: body.templateID,
        state: 'running',
        accessToken: randomBytes(16).toString('hex'),
        metadata: body.metadata ?? {},
        envVars: body.envVars ?? {},
        timeout: body.timeout ?? 15,
        autoPause: body.autoPause === true,
        root: join(dir, sandboxID),
        processes: new Map(),
        users: new Set(),
      };
      mkdirSync(join(sandbox.root, 'home/user'), { recursive: true });
      sandboxes.set(sandboxID, sandbox);
      return json(res, 201, view(sandbox));
    }
    if (req.method === 'GET' && url.pathname === '/v2/sandboxes') {
      const states = (url.searchParams.get('state') ?? 'running,paused').split(',');
      const wanted = new URLSearchParams(url.searchParams.get('metadata') ?? '');
      const listed = [...sandboxes.values()].filter(
        (sandbox) => states.includes(sandbox.state) && [...wanted].every(([key, value]) => sandbox.metadata[key] === value),
      );
      return json(
        res,
        200,
        listed.map((sandbox) => ({ ...view(sandbox), envdAccessToken: undefined, state: sandbox.state, metadata: sandbox.metadata })),
      );
    }
    if ((m = /^\/sandboxes\/([^/]+)(?:\/(pause|connect))?$/.exec(url.pathname))) {
      const sandbox = sandboxes.get(decodeURIComponent(m[1]!));
      if (!sandbox) return apiError(res, 404, `sandbox '${m[1]}' not found`);
      if (req.method === 'GET' && !m[2]) return json(res, 200, { ...view(sandbox), state: sandbox.state, metadata: sandbox.metadata });
      if (req.method === 'DELETE' && !m[2]) {
        signalAll(sandbox, 'SIGKILL');
        sandboxes.delete(sandbox.sandboxID);
        rmSync(sandbox.root, { recursive: true, force: true });
        return json(res, 204);
      }
      if (req.method === 'POST' && m[2] === 'pause') {
        if (sandbox.state === 'paused') return apiError(res, 409, `sandbox '${sandbox.sandboxID}' is already paused`);
        sandbox.state = 'paused';
        signalAll(sandbox, 'SIGSTOP');
        return json(res, 204);
      }
      if (req.method === 'POST' && m[2] === 'connect') {
        if (typeof body.timeout !== 'number') return apiError(res, 400, 'timeout is required');
        sandbox.timeout = body.timeout;
        const resumed = sandbox.state === 'paused';
        sandbox.state = 'running';
        signalAll(sandbox, 'SIGCONT');
        return json(res, resumed ? 201 : 200, view(sandbox));
      }
    }
    apiError(res, 404, `no route ${req.method} ${url.pathname}`);
  }

  // ── envd, behind the shared sandbox host ──
  const connectError = (res: ServerResponse, status: number, code: string, message: string) => json(res, status, { code, message });
  const CODE_STATUS: Record<string, number> = { not_found: 404, invalid_argument: 400, unauthenticated: 401, already_exists: 409 };

  type EntryInfo = { name: string; type: string; path: string; size: string; modifiedTime: string };
  const entryOf = (sandbox: FakeSandbox, path: string): EntryInfo => {
    const info = lstatSync(hostPath(sandbox, path));
    return {
      name: posix.basename(path),
      type: info.isSymbolicLink() ? 'FILE_TYPE_SYMLINK' : info.isDirectory() ? 'FILE_TYPE_DIRECTORY' : 'FILE_TYPE_FILE',
      path,
      size: String(info.size),
      modifiedTime: info.mtime.toISOString(),
    };
  };
  const exists = (sandbox: FakeSandbox, path: string) => {
    try {
      lstatSync(hostPath(sandbox, path));
      return true;
    } catch {
      return false;
    }
  };

  function startProcess(sandbox: FakeSandbox, message: Record<string, any>, res: ServerResponse) {
    const config = message.process ?? {};
    const cwd = config.cwd ?? '/home/user';
    const end = (error?: { code: string; message: string }) => {
      res.end(encodeEnvelope(error ? { error } : {}, END_STREAM_FLAG));
      streams.delete(res);
    };
    res.writeHead(200, { 'content-type': 'application/connect+json' });
    streams.add(res);
    let isDirectory = false;
    try {
      isDirectory = statSync(hostPath(sandbox, cwd)).isDirectory();
    } catch {
      // missing
    }
    if (!isDirectory) return end({ code: 'invalid_argument', message: `cwd '${cwd}' does not exist` });
    const child = spawn(config.cmd, config.args ?? [], {
      cwd: hostPath(sandbox, cwd),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: hostPath(sandbox, '/home/user'), ...sandbox.envVars, ...(config.envs ?? {}) },
      stdio: [message.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child.on('error', (error) => end({ code: 'invalid_argument', message: error.message }));
    if (child.pid === undefined) return;
    const pid = child.pid;
    sandbox.processes.set(pid, child);
    child.stdin?.on('error', () => undefined);
    res.write(encodeEnvelope({ event: { start: { pid } } }));
    child.stdout!.on('data', (chunk: Buffer) => res.write(encodeEnvelope({ event: { data: { stdout: chunk.toString('base64') } } })));
    child.stderr!.on('data', (chunk: Buffer) => res.write(encodeEnvelope({ event: { data: { stderr: chunk.toString('base64') } } })));
    child.on('close', (code, signal) => {
      sandbox.processes.delete(pid);
      // proto3 JSON leaves default values out: exit code 0 and `exited: false` are absent.
      const event: Record<string, unknown> = {
        status: signal ? `signal: ${signal === 'SIGKILL' ? 'killed' : signal}` : `exit status ${code}`,
      };
      if (!signal) event.exited = true;
      if (code) event.exitCode = code;
      res.write(encodeEnvelope({ event: { end: event } }));
      end();
    });
  }

  async function envd(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, 'http://sandbox');
    const raw = await readBody(req);
    requests.push(`envd ${req.method} ${url.pathname}`);
    const sandbox = sandboxes.get(String(req.headers['e2b-sandbox-id'] ?? ''));
    if (!sandbox || req.headers['e2b-sandbox-port'] !== '49983')
      return json(res, 502, { message: 'The sandbox was not found', sandboxId: req.headers['e2b-sandbox-id'], code: 502 });
    if (sandbox.state === 'paused') return json(res, 502, { message: 'The sandbox is paused', code: 502 });
    const authorization = String(req.headers.authorization ?? '');
    const user = authorization.startsWith('Basic ') ? Buffer.from(authorization.slice(6), 'base64').toString().replace(/:$/, '') : '';
    if (req.headers['x-access-token'] !== sandbox.accessToken || !user)
      return connectError(res, 401, 'unauthenticated', 'invalid access token or user');
    sandbox.users.add(user);

    if (url.pathname === '/files') {
      const path = url.searchParams.get('path') ?? '';
      if (req.method === 'GET') {
        if (!exists(sandbox, path)) return json(res, 404, { code: 404, message: `path '${path}' does not exist` });
        if (statSync(hostPath(sandbox, path)).isDirectory()) return json(res, 400, { code: 400, message: `path '${path}' is a directory` });
        return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(hostPath(sandbox, path)));
      }
      if (req.method === 'POST') {
        const form = await new Response(raw, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
        const file = form.get('file');
        if (!(file instanceof Blob)) return json(res, 400, { code: 400, message: 'no file in the form' });
        mkdirSync(dirname(hostPath(sandbox, path)), { recursive: true });
        writeFileSync(hostPath(sandbox, path), Buffer.from(await file.arrayBuffer()));
        return json(res, 200, [{ path, name: posix.basename(path), type: 'file' }]);
      }
    }
    if (req.method !== 'POST') return connectError(res, 404, 'unimplemented', `no route ${req.method} ${url.pathname}`);
    if (url.pathname === '/process.Process/Start') {
      if (req.headers['content-type'] !== 'application/connect+json')
        return connectError(res, 415, 'invalid_argument', 'Start is a server stream: application/connect+json');
      const decoded = new EnvelopeDecoder().push(raw);
      if (decoded.length !== 1) return connectError(res, 400, 'invalid_argument', 'one enveloped request message expected');
      return startProcess(sandbox, decoded[0]!.message, res);
    }
    if (req.headers['content-type'] !== 'application/json')
      return connectError(res, 415, 'invalid_argument', 'unary calls take application/json');
    const message = JSON.parse(raw.toString('utf8') || '{}');
    const fail = (code: string, text: string) => connectError(res, CODE_STATUS[code] ?? 500, code, text);
    switch (url.pathname) {
      case '/process.Process/SendSignal': {
        const pid = Number(message.process?.pid);
        if (!sandbox.processes.has(pid)) return fail('not_found', `process ${pid} not found`);
        process.kill(-pid, message.signal === 'SIGNAL_SIGKILL' ? 'SIGKILL' : 'SIGTERM');
        return json(res, 200, {});
      }
      case '/process.Process/SendInput':
      case '/process.Process/CloseStdin': {
        const child = sandbox.processes.get(Number(message.process?.pid));
        if (!child?.stdin) return fail('not_found', 'process not found or without standard input');
        if (url.pathname.endsWith('SendInput')) child.stdin.write(Buffer.from(message.input?.stdin ?? '', 'base64'));
        else child.stdin.end();
        return json(res, 200, {});
      }
      case '/filesystem.Filesystem/Stat':
        if (!exists(sandbox, message.path)) return fail('not_found', `no such file or directory: ${message.path}`);
        return json(res, 200, { entry: entryOf(sandbox, message.path) });
      case '/filesystem.Filesystem/MakeDir':
        if (exists(sandbox, message.path)) return fail('already_exists', `directory already exists: ${message.path}`);
        mkdirSync(hostPath(sandbox, message.path), { recursive: true });
        return json(res, 200, { entry: entryOf(sandbox, message.path) });
      case '/filesystem.Filesystem/ListDir': {
        if (!exists(sandbox, message.path)) return fail('not_found', `no such directory: ${message.path}`);
        if (!statSync(hostPath(sandbox, message.path)).isDirectory())
          return fail('invalid_argument', `path is not a directory: ${message.path}`);
        const entries: EntryInfo[] = [];
        const walk = (path: string, level: number) => {
          for (const name of readdirSync(hostPath(sandbox, path)).sort()) {
            const entry = entryOf(sandbox, posix.join(path, name));
            entries.push(entry);
            if (entry.type === 'FILE_TYPE_DIRECTORY' && level < (message.depth || 1)) walk(entry.path, level + 1);
          }
        };
        walk(message.path, 1);
        return json(res, 200, { entries });
      }
    }
    fail('unimplemented', `no procedure ${url.pathname}`);
  }

  const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) => {
    const server = createServer((req, res) => {
      handler(req, res).catch((error: Error) => {
        if (!res.headersSent) json(res, 500, { code: 500, message: error.message });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  };
  const apiServer: Server = await listen(api);
  const sandboxServer: Server = await listen(envd);
  const port = (server: Server) => (server.address() as AddressInfo).port;
  return {
    apiUrl: `http://127.0.0.1:${port(apiServer)}`,
    sandboxUrl: `http://127.0.0.1:${port(sandboxServer)}`,
    apiKey,
    requests,
    sandboxes,
    templates,
    hostPath,
    async close() {
      for (const sandbox of sandboxes.values()) signalAll(sandbox, 'SIGKILL');
      for (const res of streams) res.destroy();
      for (const server of [apiServer, sandboxServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
