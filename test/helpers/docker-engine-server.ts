// A loopback Docker Engine API for the `docker` environment type's tests (no container engine runs
// on this machine). It listens on a unix socket, keeps its images, containers and execs, and speaks
// the subset the driver uses: `_ping`, `images/create` (a pull with a progress stream), containers
// `create`/`json`/`start`/`stop`/`DELETE`, `exec` create, `exec/{id}/start` on an upgraded (hijacked)
// connection carrying standard input in and the multiplexed output frames out, and `exec/{id}/json`.
// A "container" is a directory: an exec runs its command as a real process of this machine with the
// exec's WorkingDir mapped into that directory, so commands, files and kills are real — only the
// isolation is not.
//
// `flavour: 'podman'` answers where Podman's Docker-compatible service (verified against the real one
// in test/api/docker-real-engine.test.ts) differs from Docker: a container name already in use is
// 500 (Docker: 409); a pull always goes to the registry, even for an image the engine has, and its
// failure is an `error` line in a 200 progress stream (Docker: 404 before any stream); an exec whose
// working directory is missing writes the runtime's error and then an attach error to standard
// error and ends with 127 (Docker: the runtime's error on standard output, and 126).
//
// `loseOutput(count, how)` makes the next `count` execs lose output as a busy Podman service does
// (verified against the real one under load): the command runs and its exit code is recorded, but
// its output never arrives (`all`), its standard output stops halfway (`tail`), or only its second
// half arrives (`head`: what the command wrote before the engine attached the stream is lost).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export interface FakeContainer {
  id: string;
  name: string;
  config: Record<string, any>;
  running: boolean;
  root: string;
  processes: Set<ChildProcess>;
}

interface FakeExec {
  id: string;
  containerId: string;
  config: Record<string, any>;
  running: boolean;
  exitCode: number | null;
}

export interface DockerEngineServer {
  /** The provider's endpoint: `unix://…`, or `https://127.0.0.1:port` with TLS. */
  endpoint: string;
  /** Every request as `METHOD /path` (the API version prefix removed). */
  requests: string[];
  /** Images present; `pullable` ones can be pulled. */
  images: Set<string>;
  pullable: Set<string>;
  containers: Map<string, FakeContainer>;
  /** The next `count` execs lose all their output, or the second or first half of their standard output. */
  loseOutput(count: number, how: 'all' | 'tail' | 'head'): void;
  close(): Promise<void>;
}

const SIGNALS: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };

/** PEM material for an engine on TLS that verifies its clients (as `dockerd --tlsverify` does). */
export interface EngineTls {
  ca: string;
  cert: string;
  key: string;
}

export async function startDockerEngineServer(
  options: {
    pullable?: string[];
    images?: string[];
    tls?: EngineTls;
    flavour?: 'docker' | 'podman';
    /** Awaited before a request (`METHOD /path`) is answered: a test holds the engine with it. */
    gate?: (request: string) => Promise<void>;
  } = {},
): Promise<DockerEngineServer> {
  const podman = options.flavour === 'podman';
  const dir = mkdtempSync(join(tmpdir(), 'wsa-fake-docker-'));
  const images = new Set(options.images ?? []);
  const pullable = new Set(options.pullable ?? []);
  const containers = new Map<string, FakeContainer>();
  const execs = new Map<string, FakeExec>();
  const requests: string[] = [];
  const hijacked = new Set<Socket>();
  const losses: ('all' | 'tail' | 'head')[] = [];

  const find = (idOrName: string) => containers.get(idOrName) ?? [...containers.values()].find((c) => c.name === idOrName);
  const mapPath = (container: FakeContainer, path: string) => join(container.root, path);
  const json = (res: ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const killAll = (container: FakeContainer) => {
    for (const child of container.processes) child.kill('SIGKILL');
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text ? JSON.parse(text) : {};
    const url = new URL(req.url!, 'http://docker');
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
    requests.push(`${req.method} ${path}`);
    await options.gate?.(`${req.method} ${path}`);
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/_ping') {
      res.writeHead(200, { 'content-type': 'text/plain', 'api-version': '1.45' }).end('OK');
    } else if (req.method === 'POST' && path === '/images/create') {
      const image = `${url.searchParams.get('fromImage')}:${url.searchParams.get('tag') ?? 'latest'}`;
      if (!pullable.has(image) && podman) {
        const message = `initializing source docker://${image}: pinging container registry: connection refused`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify({ progressDetail: {}, errorDetail: { message }, error: message })}\n`);
        return;
      }
      if (!pullable.has(image)) return json(res, 404, { message: `pull access denied for ${image}, repository does not exist` });
      images.add(image);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"status":"Pulling from library"}\n{"status":"Digest: sha256:0"}\n{"status":"Downloaded newer image for ${image}"}\n`);
    } else if (req.method === 'POST' && path === '/containers/create') {
      const name = url.searchParams.get('name') ?? randomBytes(6).toString('hex');
      const image = String(body.Image).includes(':') ? String(body.Image) : `${body.Image}:latest`;
      if (!images.has(image)) return json(res, 404, { message: `No such image: ${image}` });
      const taken = find(name);
      if (taken && podman)
        return json(res, 500, {
          cause: 'that name is already in use',
          message: `container create: creating container storage: the container name "${name}" is already in use by ${taken.id}. You have to remove that container to be able to reuse that name: that name is already in use`,
          response: 500,
        });
      if (taken) return json(res, 409, { message: `Conflict. The container name "/${name}" is already in use` });
      const id = randomBytes(32).toString('hex');
      const container: FakeContainer = { id, name, config: body, running: false, root: join(dir, id), processes: new Set() };
      mkdirSync(mapPath(container, body.WorkingDir ?? '/'), { recursive: true });
      containers.set(id, container);
      json(res, 201, { Id: id, Warnings: [] });
    } else if ((m = /^\/containers\/([^/]+)\/json$/.exec(path)) && req.method === 'GET') {
      const container = find(decodeURIComponent(m[1]!));
      if (!container) return json(res, 404, { message: `No such container: ${m[1]}` });
      json(res, 200, { Id: container.id, Name: `/${container.name}`, State: { Running: container.running }, Config: container.config });
    } else if ((m = /^\/containers\/([^/]+)\/(start|stop)$/.exec(path)) && req.method === 'POST') {
      const container = find(decodeURIComponent(m[1]!));
      if (!container) return json(res, 404, { message: `No such container: ${m[1]}` });
      const start = m[2] === 'start';
      if (container.running === start) return json(res, 304);
      if (!start) killAll(container);
      container.running = start;
      json(res, 204);
    } else if ((m = /^\/containers\/([^/]+)$/.exec(path)) && req.method === 'DELETE') {
      const container = find(decodeURIComponent(m[1]!));
      if (!container) return json(res, 404, { message: `No such container: ${m[1]}` });
      if (container.running && url.searchParams.get('force') !== 'true')
        return json(res, 409, {
          message: 'You cannot remove a running container. Stop the container before attempting removal or force remove',
        });
      killAll(container);
      containers.delete(container.id);
      rmSync(container.root, { recursive: true, force: true });
      json(res, 204);
    } else if ((m = /^\/containers\/([^/]+)\/exec$/.exec(path)) && req.method === 'POST') {
      const container = find(decodeURIComponent(m[1]!));
      if (!container) return json(res, 404, { message: `No such container: ${m[1]}` });
      if (!container.running) return json(res, 409, { message: `Container ${container.id} is not running` });
      const id = randomBytes(32).toString('hex');
      execs.set(id, { id, containerId: container.id, config: body, running: false, exitCode: null });
      json(res, 201, { Id: id });
    } else if ((m = /^\/exec\/([^/]+)\/json$/.exec(path)) && req.method === 'GET') {
      const exec = execs.get(m[1]!);
      if (!exec) return json(res, 404, { message: `No such exec instance: ${m[1]}` });
      json(res, 200, { ID: exec.id, Running: exec.running, ExitCode: exec.exitCode, ContainerID: exec.containerId });
    } else {
      json(res, 404, { message: `page not found: ${req.method} ${path}` });
    }
  }

  /** `exec/{id}/start` with `Upgrade: tcp`: the body, then the raw stream both ways. */
  function startExec(req: IncomingMessage, socket: Socket, head: Buffer) {
    hijacked.add(socket);
    // The client closes its side after standard input; the output still flows back (a TLS server's
    // sockets would otherwise end both ways at once).
    socket.allowHalfOpen = true;
    socket.once('close', () => hijacked.delete(socket));
    const path = new URL(req.url!, 'http://docker').pathname.replace(/^\/v\d+\.\d+/, '');
    requests.push(`${req.method} ${path}`);
    const m = /^\/exec\/([^/]+)\/start$/.exec(path);
    const exec = m ? execs.get(m[1]!) : undefined;
    const container = exec ? containers.get(exec.containerId) : undefined;
    if (!exec || !container) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 27\r\n\r\n{"message":"no such exec"}\n');
      return;
    }
    const bodyLength = Number(req.headers['content-length'] ?? 0);
    let pending: Buffer = head;
    let bodyRead = false;
    let child: ChildProcess | null = null;
    const loss = losses.shift();
    // Standard output of an exec that loses its tail, sent (halved) when the command ends.
    const withheld: Buffer[] = [];
    const flushWithheld = () => {
      const all = Buffer.concat(withheld.splice(0));
      const half = Math.floor(all.length / 2);
      if (all.length) send(1, loss === 'head' ? all.subarray(half) : all.subarray(0, half));
    };
    const frame = (stream: 1 | 2, chunk: Buffer) => {
      if (loss === 'all') return;
      if ((loss === 'tail' || loss === 'head') && stream === 1) return void withheld.push(chunk);
      send(stream, chunk);
    };
    const send = (stream: 1 | 2, chunk: Buffer) => {
      const header = Buffer.alloc(8);
      header[0] = stream;
      header.writeUInt32BE(chunk.length, 4);
      socket.write(Buffer.concat([header, chunk]));
    };
    const begin = () => {
      socket.write(
        'HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.multiplexed-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n',
      );
      const config = exec.config;
      const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
      for (const entry of [...(container.config.Env ?? []), ...(config.Env ?? [])] as string[]) {
        const at = entry.indexOf('=');
        env[entry.slice(0, at)] = entry.slice(at + 1);
      }
      const [file, ...args] = config.Cmd as string[];
      const workingDir: string = config.WorkingDir ?? container.config.WorkingDir ?? '/';
      if (!existsSync(mapPath(container, workingDir))) {
        // The runtime cannot enter the working directory: the command never starts.
        const runtime = `exec failed: unable to start container process: chdir to cwd ("${workingDir}") set in config.json failed: no such file or directory`;
        if (podman) {
          frame(2, Buffer.from(`Error: runc: ${runtime}: OCI runtime attempted to invoke a command that was not found\n`));
          frame(2, Buffer.from('Error: read unixpacket @->/proc/self/fd/14/attach: read: connection reset by peer\n'));
        } else frame(1, Buffer.from(`OCI runtime exec failed: ${runtime}: unknown\r\n`));
        exec.exitCode = podman ? 127 : 126;
        socket.end();
        return;
      }
      child = spawn(file!, args, {
        cwd: mapPath(container, workingDir),
        env,
        stdio: [config.AttachStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      });
      exec.running = true;
      container.processes.add(child);
      child.stdout!.on('data', (chunk: Buffer) => frame(1, chunk));
      child.stderr!.on('data', (chunk: Buffer) => frame(2, chunk));
      child.stdin?.on('error', () => undefined);
      child.on('error', (error) => {
        // Docker writes an exec's start failure to the standard output stream.
        frame(1, Buffer.from(`OCI runtime exec failed: ${error.message}\r\n`));
        exec.running = false;
        exec.exitCode = 126;
        socket.end();
      });
      child.on('close', (code, signal) => {
        container.processes.delete(child!);
        exec.running = false;
        exec.exitCode = code ?? 128 + (SIGNALS[signal ?? ''] ?? 0);
        flushWithheld();
        socket.end();
      });
    };
    const take = (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      if (!bodyRead) {
        if (pending.length < bodyLength) return;
        pending = pending.subarray(bodyLength);
        bodyRead = true;
        begin();
      }
      if (pending.length && child?.stdin) {
        child.stdin.write(pending);
        pending = Buffer.alloc(0);
      }
    };
    socket.on('data', take);
    socket.on('end', () => {
      (child as ChildProcess | null)?.stdin?.end();
    });
    socket.on('error', () => undefined);
    take(Buffer.alloc(0));
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: Error) => json(res, 500, { message: error.message }));
  };
  // With TLS: on loopback TCP, requiring a client certificate signed by the CA; otherwise a unix socket.
  const server: Server = options.tls
    ? createTlsServer({ ...options.tls, requestCert: true, rejectUnauthorized: true }, listener)
    : createServer(listener);
  server.on('upgrade', startExec);
  let endpoint: string;
  if (options.tls) {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  } else {
    const socketPath = join(dir, 'docker.sock');
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    endpoint = `unix://${socketPath}`;
  }
  return {
    endpoint,
    requests,
    images,
    pullable,
    containers,
    loseOutput(count, how) {
      for (let i = 0; i < count; i++) losses.push(how);
    },
    async close() {
      for (const container of containers.values()) killAll(container);
      for (const socket of hijacked) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A certificate authority, a server certificate for 127.0.0.1 (and `*.wsa.test`) and a client certificate, made by openssl. */
export function makeEngineCertificates(): { server: EngineTls; client: EngineTls } {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-engine-tls-'));
  const file = (name: string) => join(dir, name);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...key, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=engine-ca');
  const issue = (name: string, extension: string) => {
    writeFileSync(file(`${name}.ext`), extension);
    ssl('req', ...key, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', `/CN=${name}`);
    ssl(
      'x509',
      '-req',
      '-in',
      file(`${name}.csr`),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file(`${name}.pem`),
      '-days',
      '1',
      '-extfile',
      file(`${name}.ext`),
    );
    return { cert: readFileSync(file(`${name}.pem`), 'utf8'), key: readFileSync(file(`${name}.key`), 'utf8') };
  };
  const ca = readFileSync(file('ca.pem'), 'utf8');
  // Also for the `.wsa.test` names outbound-policy tests resolve to loopback (test/helpers/test-dns.ts).
  const server = issue('server', 'subjectAltName=IP:127.0.0.1,DNS:*.wsa.test\nextendedKeyUsage=serverAuth\n');
  const client = issue('client', 'extendedKeyUsage=clientAuth\n');
  rmSync(dir, { recursive: true, force: true });
  return { server: { ca, ...server }, client: { ca, ...client } };
}
