// A loopback Kubernetes API server for the `kubernetes` environment type's tests. It listens on TLS
// (a certificate of its own authority, so the client must be given the CA), checks the bearer
// token, keeps pods, and speaks the subset the driver uses: `POST /api/v1/namespaces/{ns}/pods`
// (409 AlreadyExists), `GET` and `DELETE …/pods/{name}` (errors as metav1.Status), and the pod
// `exec` subresource over a websocket with the channel protocol — `v5.channel.k8s.io` (standard
// input ended by a close frame) or `v4.channel.k8s.io` — standard output and error on channels 1
// and 2 and the command's end as a Status on channel 3. A pod is real processes: its container's
// command runs as the pod's first process (in the container's workingDir, made as a runtime does),
// exec runs commands there with the container's environment; only the isolation is not real.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EngineTls } from './docker-engine-server.js';

export interface FakePod {
  namespace: string;
  name: string;
  spec: Record<string, any>;
  metadata: Record<string, any>;
  status: Record<string, any>;
  processes: Set<ChildProcess>;
}

export interface KubernetesApiServer {
  /** The provider's `server`. */
  server: string;
  token: string;
  /** PEM of the authority that signed the server's certificate. */
  ca: string;
  /** Every request as `METHOD /path` (query left out); exec upgrades as `EXEC /path <protocol>`. */
  requests: string[];
  pods: Map<string, FakePod>;
  images: Set<string>;
  close(): Promise<void>;
}

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

export async function startKubernetesApiServer(options: {
  tls: EngineTls;
  images?: string[];
  token?: string;
  /** The exec protocols this server speaks, most preferred first (default v5 then v4). */
  protocols?: string[];
}): Promise<KubernetesApiServer> {
  const token = options.token ?? `k8s-token-${randomBytes(8).toString('hex')}`;
  const images = new Set(options.images ?? []);
  const protocols = options.protocols ?? ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
  const pods = new Map<string, FakePod>();
  const requests: string[] = [];
  const key = (namespace: string, name: string) => `${namespace}/${name}`;

  const json = (res: ServerResponse, code: number, body: unknown) =>
    res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const envOf = (container: Record<string, any>) => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    ...Object.fromEntries(((container.env ?? []) as { name: string; value: string }[]).map((e) => [e.name, e.value])),
  });
  const killAll = (pod: FakePod) => {
    for (const child of pod.processes) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  };
  const view = (pod: FakePod) => ({ apiVersion: 'v1', kind: 'Pod', metadata: pod.metadata, spec: pod.spec, status: pod.status });

  /** Starts the pod's container as a runtime would: its image must be known, its workingDir is made. */
  const run = (pod: FakePod) => {
    const container = pod.spec.containers[0];
    if (!images.has(container.image)) {
      pod.status.containerStatuses = [
        {
          name: container.name,
          ready: false,
          state: { waiting: { reason: 'ErrImagePull', message: `failed to pull image "${container.image}": not found` } },
        },
      ];
      return;
    }
    if (container.workingDir) mkdirSync(container.workingDir, { recursive: true });
    const [file, ...args] = [...(container.command ?? []), ...(container.args ?? [])] as string[];
    const main = spawn(file!, args, { cwd: container.workingDir ?? '/', env: envOf(container), stdio: 'ignore', detached: true });
    pod.processes.add(main);
    main.on('close', (code) => {
      pod.processes.delete(main);
      pod.status.phase = code === 0 ? 'Succeeded' : 'Failed';
      pod.status.containerStatuses = [
        { name: container.name, ready: false, state: { terminated: { exitCode: code ?? 137, reason: 'Error' } } },
      ];
    });
    pod.status.phase = 'Running';
    pod.status.containerStatuses = [{ name: container.name, ready: true, state: { running: { startedAt: new Date().toISOString() } } }];
  };

  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${token}`;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url!, 'https://kubernetes');
    requests.push(`${req.method} ${url.pathname}`);
    if (!authorized(req)) return json(res, 401, status(401, 'Unauthorized', 'Unauthorized'));
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return json(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const namespace = decodeURIComponent(m[1]!);
    const name = m[2] ? decodeURIComponent(m[2]) : null;
    if (req.method === 'POST' && !name) {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (body.kind !== 'Pod' || !body.metadata?.name || !Array.isArray(body.spec?.containers))
        return json(res, 422, status(422, 'Invalid', 'Pod is invalid'));
      if (pods.has(key(namespace, body.metadata.name)))
        return json(res, 409, status(409, 'AlreadyExists', `pods "${body.metadata.name}" already exists`));
      const pod: FakePod = {
        namespace,
        name: body.metadata.name,
        metadata: { ...body.metadata, namespace, uid: randomBytes(16).toString('hex') },
        spec: body.spec,
        status: { phase: 'Pending' },
        processes: new Set(),
      };
      pods.set(key(namespace, pod.name), pod);
      json(res, 201, view(pod));
      // The kubelet starts the container after the answer.
      setImmediate(() => run(pod));
      return;
    }
    const pod = name ? pods.get(key(namespace, name)) : undefined;
    if (!pod) return json(res, 404, status(404, 'NotFound', `pods "${name}" not found`));
    if (req.method === 'GET') return json(res, 200, view(pod));
    if (req.method === 'DELETE') {
      killAll(pod);
      pods.delete(key(namespace, pod.name));
      return json(res, 200, view(pod));
    }
    json(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  }

  const server = createServer({ cert: options.tls.cert, key: options.tls.key }, (req, res) => {
    handle(req, res).catch((error: Error) => json(res, 500, status(500, 'InternalError', error.message)));
  });
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({
    noServer: true,
    // The first protocol this server speaks that the client offered.
    handleProtocols: (offered) => protocols.find((p) => offered.has(p)) ?? false,
  });

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url!, 'https://kubernetes');
    const refuse = (code: number, body: unknown) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${code} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
    };
    const m = /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)\/exec$/.exec(url.pathname);
    if (!authorized(req)) return refuse(401, status(401, 'Unauthorized', 'Unauthorized'));
    const pod = m ? pods.get(key(decodeURIComponent(m[1]!), decodeURIComponent(m[2]!))) : undefined;
    if (!pod) return refuse(404, status(404, 'NotFound', `pods "${m?.[2]}" not found`));
    const container = pod.spec.containers.find((c: { name: string }) => c.name === url.searchParams.get('container'));
    if (!container)
      return refuse(400, status(400, 'BadRequest', `container ${url.searchParams.get('container')} is not valid for pod ${pod.name}`));
    if (pod.status.phase !== 'Running') return refuse(400, status(400, 'BadRequest', `pod ${pod.name} is not running`));
    wss.handleUpgrade(req, socket, head, (ws) => {
      requests.push(`EXEC ${url.pathname} ${ws.protocol}`);
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      const command = url.searchParams.getAll('command');
      const wantsStdin = url.searchParams.get('stdin') === 'true';
      const child = spawn(command[0]!, command.slice(1), {
        cwd: container.workingDir ?? '/',
        env: envOf(container),
        stdio: [wantsStdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
        detached: true,
      });
      pod.processes.add(child);
      const send = (channel: number, data: Buffer) => {
        if (ws.readyState === ws.OPEN) ws.send(Buffer.concat([Buffer.from([channel]), data]));
      };
      child.stdout!.on('data', (chunk: Buffer) => send(1, chunk));
      child.stderr!.on('data', (chunk: Buffer) => send(2, chunk));
      child.stdin?.on('error', () => undefined);
      ws.on('message', (data: Buffer) => {
        const channel = data[0];
        if (channel === 0) child.stdin?.write(data.subarray(1));
        else if (channel === 255 && ws.protocol === 'v5.channel.k8s.io' && data[1] === 0) child.stdin?.end();
      });
      let failed: string | null = null;
      child.on('error', (error) => {
        failed = error.message;
      });
      child.on('close', (code, signal) => {
        pod.processes.delete(child);
        const exit = code ?? 128 + (signal === 'SIGKILL' ? 9 : 15);
        const end = failed
          ? { metadata: {}, status: 'Failure', message: `failed to exec in container: ${failed}`, reason: 'InternalError' }
          : exit === 0
            ? { metadata: {}, status: 'Success' }
            : {
                metadata: {},
                status: 'Failure',
                message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exit}`,
                reason: 'NonZeroExitCode',
                details: { causes: [{ reason: 'ExitCode', message: String(exit) }] },
              };
        send(3, Buffer.from(JSON.stringify(end)));
        ws.close(1000);
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    ca: options.tls.ca,
    requests,
    pods,
    images,
    async close() {
      for (const pod of pods.values()) killAll(pod);
      for (const ws of sockets) ws.terminate();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
