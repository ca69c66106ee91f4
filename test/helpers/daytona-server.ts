// A loopback Daytona for the `daytona` environment type's tests (this machine cannot reach
// app.daytona.io). Two HTTP servers speak Daytona's documented wire protocol, both checking
// `Authorization: Bearer <api key>`:
//   - the API under `/api`: `POST /sandbox` (name conflicts 409, a snapshot or a build from an
//     image), `GET /sandbox/{id or name}`, `POST /sandbox/{id}/start`, `POST /sandbox/{id}/stop`,
//     `DELETE /sandbox/{id}`; state changes take effect by the next GET (creating → started,
//     stopping → stopped, starting → started), as Daytona's do a moment later;
//   - the toolbox proxy (`toolboxProxyUrl` of every sandbox) under `/toolbox/{sandbox id}`:
//     `POST /process/execute` (the command is the shell's standard input, output merged, the
//     timeout kills the process group and answers 408), `GET /work-dir`, `GET /files`,
//     `GET /files/info`, `GET /files/download`, `POST /files/upload` (multipart), `POST /files/folder`.
// A sandbox is a directory: commands are real processes of this machine (in their own process
// group) with the sandbox's paths mapped into it, and files are real files.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';

export interface FakeDaytonaSandbox {
  id: string;
  name: string;
  state: string;
  /** The state the next GET moves the sandbox to. */
  pending: string | null;
  request: Record<string, any>;
  root: string;
  /** What runs in it: each toolbox command's shell and the script it was given. */
  processes: Map<ChildProcess, string>;
}

export interface DaytonaServer {
  /** The provider's `api_url`. */
  apiUrl: string;
  apiKey: string;
  /** Every request: `METHOD /path` on the API (without /api), `toolbox METHOD /path` on the proxy (without the sandbox prefix). */
  requests: string[];
  /** The organization header of each API request. */
  organizations: string[];
  sandboxes: Map<string, FakeDaytonaSandbox>;
  snapshots: Set<string>;
  /** Called when a command starts (its script), so a test can act while it runs. */
  onExecute?: (script: string) => void;
  hostPath(sandbox: FakeDaytonaSandbox, path: string): string;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const HOME = '/home/daytona';

export async function startDaytonaServer(options: { snapshots?: string[] } = {}): Promise<DaytonaServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-fake-daytona-'));
  const apiKey = `dtn_${randomBytes(16).toString('hex')}`;
  const snapshots = new Set(options.snapshots ?? ['daytonaio/sandbox:0.4.3']);
  const sandboxes = new Map<string, FakeDaytonaSandbox>();
  const requests: string[] = [];
  const organizations: string[] = [];
  let toolboxBase = '';
  const hostPath = (sandbox: FakeDaytonaSandbox, path: string) => join(sandbox.root, posix.resolve(HOME, path));
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) res.writeHead(status).end();
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  // NestJS's error body (the API) and the daemon's (the toolbox) both carry statusCode and message.
  const error = (res: ServerResponse, status: number, message: string) =>
    json(res, status, { statusCode: status, message, error: 'Error' });
  const find = (idOrName: string) => sandboxes.get(idOrName) ?? [...sandboxes.values()].find((s) => s.name === idOrName);
  const killAll = (sandbox: FakeDaytonaSandbox) => {
    for (const child of sandbox.processes.keys()) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  const view = (sandbox: FakeDaytonaSandbox) => ({
    id: sandbox.id,
    organizationId: 'org',
    name: sandbox.name,
    snapshot: sandbox.request.snapshot ?? null,
    user: sandbox.request.user ?? 'daytona',
    env: sandbox.request.env ?? {},
    labels: sandbox.request.labels ?? {},
    public: false,
    target: sandbox.request.target ?? 'us',
    cpu: sandbox.request.cpu ?? 1,
    memory: sandbox.request.memory ?? 1,
    disk: sandbox.request.disk ?? 3,
    state: sandbox.state,
    autoStopInterval: sandbox.request.autoStopInterval ?? 15,
    toolboxProxyUrl: toolboxBase,
  });

  async function api(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, 'http://api');
    const text = (await readBody(req)).toString('utf8');
    const path = url.pathname.replace(/^\/api/, '');
    requests.push(`${req.method} ${path}`);
    if (!url.pathname.startsWith('/api/')) return error(res, 404, 'Cannot find the route');
    if (req.headers.authorization !== `Bearer ${apiKey}`) return error(res, 401, 'Invalid API key');
    organizations.push(String(req.headers['x-daytona-organization-id'] ?? ''));
    const body = text ? JSON.parse(text) : {};
    let m: RegExpExecArray | null;
    if (req.method === 'POST' && path === '/sandbox') {
      if (body.snapshot && body.buildInfo) return error(res, 400, 'Cannot specify a snapshot when using a build info entry');
      if (body.snapshot && !snapshots.has(body.snapshot))
        return error(res, 400, `Snapshot ${body.snapshot} not found. Did you add it through the Daytona Dashboard?`);
      if (body.name && find(body.name)) return error(res, 409, `Sandbox with name ${body.name} already exists`);
      const id = randomUUID();
      const sandbox: FakeDaytonaSandbox = {
        id,
        name: body.name ?? id,
        state: body.buildInfo ? 'pending_build' : 'creating',
        pending: 'started',
        request: body,
        root: join(dir, id),
        processes: new Map(),
      };
      mkdirSync(join(sandbox.root, HOME), { recursive: true });
      sandboxes.set(id, sandbox);
      return json(res, 200, view(sandbox));
    }
    if ((m = /^\/sandbox\/([^/]+)(?:\/(start|stop))?$/.exec(path))) {
      const sandbox = find(decodeURIComponent(m[1]!));
      if (!sandbox) return error(res, 404, `Sandbox with ID or name ${m[1]} not found`);
      if (req.method === 'GET' && !m[2]) {
        if (sandbox.pending) {
          sandbox.state = sandbox.pending;
          sandbox.pending = null;
        }
        return json(res, 200, view(sandbox));
      }
      if (req.method === 'DELETE' && !m[2]) {
        killAll(sandbox);
        sandboxes.delete(sandbox.id);
        rmSync(sandbox.root, { recursive: true, force: true });
        return json(res, 200, view({ ...sandbox, state: 'destroying' }));
      }
      if (req.method === 'POST' && m[2] === 'stop') {
        if (sandbox.state !== 'started') return error(res, 400, 'Sandbox is not started');
        killAll(sandbox);
        sandbox.state = 'stopping';
        sandbox.pending = 'stopped';
        return json(res, 200, view(sandbox));
      }
      if (req.method === 'POST' && m[2] === 'start') {
        if (sandbox.state === 'started') return json(res, 200, view(sandbox));
        sandbox.state = 'starting';
        sandbox.pending = 'started';
        return json(res, 200, view(sandbox));
      }
    }
    error(res, 404, `Cannot ${req.method} ${url.pathname}`);
  }

  const infoOf = (sandbox: FakeDaytonaSandbox, path: string) => {
    const stats = lstatSync(hostPath(sandbox, path));
    const type = stats.isSymbolicLink() ? 'L' : stats.isDirectory() ? 'd' : '-';
    return {
      name: posix.basename(path),
      size: stats.size,
      mode: `${type}rwxr-xr-x`,
      modTime: stats.mtime.toString(),
      modifiedAt: stats.mtime.toISOString(),
      isDir: stats.isDirectory(),
      owner: 'daytona',
      group: 'daytona',
      permissions: '0755',
    };
  };

  function execute(sandbox: FakeDaytonaSandbox, body: Record<string, any>, res: ServerResponse) {
    if (typeof body.command !== 'string' || !body.command.trim()) return error(res, 400, 'command cannot be empty or whitespace-only');
    const child = spawn('/bin/sh', [], {
      cwd: hostPath(sandbox, body.cwd ?? HOME),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: hostPath(sandbox, HOME),
        ...(sandbox.request.env ?? {}),
        ...(body.envs ?? {}),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let timedOut = false;
    child.on('error', (failure) => json(res, 200, { exitCode: -1, result: failure.message }));
    if (child.pid === undefined) return;
    sandbox.processes.set(child, body.command);
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(body.command);
    const timer =
      body.timeout > 0
        ? setTimeout(() => {
            timedOut = true;
            process.kill(-child.pid!, 'SIGKILL');
          }, body.timeout * 1000)
        : undefined;
    server.onExecute?.(body.command);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      sandbox.processes.delete(child);
      if (timedOut) return error(res, 408, 'command execution timeout');
      json(res, 200, { exitCode: code ?? (signal ? -1 : 0), result: output });
    });
  }

  async function toolbox(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, 'http://toolbox');
    const raw = await readBody(req);
    const m = /^\/toolbox\/([^/]+)(\/.*)$/.exec(url.pathname);
    requests.push(`toolbox ${req.method} ${m?.[2] ?? url.pathname}`);
    if (req.headers.authorization !== `Bearer ${apiKey}`) return error(res, 401, 'Unauthorized');
    const sandbox = m ? sandboxes.get(m[1]!) : undefined;
    if (!sandbox) return error(res, 404, 'sandbox not found');
    if (sandbox.state !== 'started') return error(res, 400, `Sandbox ${sandbox.id} is not started`);
    const path = url.searchParams.get('path') ?? '';
    const exists = () => {
      try {
        lstatSync(hostPath(sandbox, path));
        return true;
      } catch {
        return false;
      }
    };
    const route = `${req.method} ${m![2]}`;
    switch (route) {
      case 'POST /process/execute':
        return execute(sandbox, JSON.parse(raw.toString('utf8') || '{}'), res);
      case 'GET /work-dir':
        return json(res, 200, { dir: HOME });
      case 'GET /files/info':
        if (!exists()) return error(res, 404, `stat ${path}: no such file or directory`);
        return json(res, 200, infoOf(sandbox, path));
      case 'GET /files':
        if (!exists()) return error(res, 404, `open ${path}: no such file or directory`);
        if (!statSync(hostPath(sandbox, path)).isDirectory()) return error(res, 400, `readdirent ${path}: not a directory`);
        return json(
          res,
          200,
          readdirSync(hostPath(sandbox, path)).map((name) => infoOf(sandbox, posix.join(path, name))),
        );
      case 'GET /files/download':
        if (!exists()) return error(res, 404, `stat ${path}: no such file or directory`);
        if (statSync(hostPath(sandbox, path)).isDirectory()) return error(res, 400, 'path must be a file');
        return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(hostPath(sandbox, path)));
      case 'POST /files/folder':
        if (!/^[0-7]{3,4}$/.test(url.searchParams.get('mode') ?? '')) return error(res, 400, 'invalid mode format');
        mkdirSync(hostPath(sandbox, path), { recursive: true });
        return json(res, 201);
      case 'POST /files/upload': {
        const form = await new Response(raw, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
        const file = form.get('file');
        if (!(file instanceof Blob)) return error(res, 400, 'no file');
        mkdirSync(dirname(hostPath(sandbox, path)), { recursive: true });
        writeFileSync(hostPath(sandbox, path), Buffer.from(await file.arrayBuffer()));
        return json(res, 200);
      }
    }
    error(res, 404, `no route ${route}`);
  }

  const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>) => {
    const listener = createServer((req, res) => {
      handler(req, res).catch((failure: Error) => {
        if (!res.headersSent) error(res, 500, failure.message);
        else res.destroy();
      });
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    return listener;
  };
  const apiServer: Server = await listen(api);
  const toolboxServer: Server = await listen(toolbox);
  const port = (listener: Server) => (listener.address() as AddressInfo).port;
  toolboxBase = `http://127.0.0.1:${port(toolboxServer)}/toolbox`;
  const server: DaytonaServer = {
    apiUrl: `http://127.0.0.1:${port(apiServer)}/api`,
    apiKey,
    requests,
    organizations,
    sandboxes,
    snapshots,
    hostPath,
    async close() {
      for (const sandbox of sandboxes.values()) killAll(sandbox);
      for (const listener of [apiServer, toolboxServer]) {
        listener.closeAllConnections();
        await new Promise<void>((resolve) => listener.close(() => resolve()));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}
