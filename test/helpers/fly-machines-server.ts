// A loopback Fly Machines API for the `fly` environment type's tests (no internet here). It keeps
// one app's machines and speaks the subset the driver uses, as Fly documents it: `GET/POST
// /v1/apps/{app}/machines`, `GET /machines/{id}`, `GET /machines/{id}/wait?state=…&timeout=…`
// (408 when the state did not come in time), `POST /machines/{id}/start|stop`, `POST
// /machines/{id}/exec` (`{command, timeout, stdin}` → `{exit_code, exit_signal, stdout, stderr}`,
// `exit_code` left out when 0) and `DELETE /machines/{id}?force=true`, each behind the bearer token.
// A machine is real processes: booting runs its `config.init.exec` as the main process, stopping
// kills everything it runs, and exec runs the command as a process with the machine's environment.
// Only the isolation is not real: the machine's file system is this machine's.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';

export interface FakeMachine {
  id: string;
  name: string;
  state: 'created' | 'starting' | 'started' | 'stopping' | 'stopped' | 'destroyed';
  instance_id: string;
  region: string;
  config: Record<string, any>;
  main: ChildProcess | null;
  processes: Set<ChildProcess>;
}

export interface FlyMachinesServer {
  /** The provider's `base_url`. */
  baseUrl: string;
  app: string;
  token: string;
  /** Every request as `METHOD /path` below `/v1/apps/{app}` (query left out). */
  requests: string[];
  machines: Map<string, FakeMachine>;
  /** Images machines can boot from. */
  images: Set<string>;
  close(): Promise<void>;
}

const SIGNALS: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };

export async function startFlyMachinesServer(
  options: { app?: string; token?: string; images?: string[] } = {},
): Promise<FlyMachinesServer> {
  const app = options.app ?? 'wsa-sandboxes';
  const token = options.token ?? `fly-token-${randomBytes(8).toString('hex')}`;
  const images = new Set(options.images ?? []);
  const machines = new Map<string, FakeMachine>();
  const requests: string[] = [];
  const waiters = new Set<() => void>();

  const json = (res: ServerResponse, status: number, body?: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(body === undefined ? '' : JSON.stringify(body));
  const view = (m: FakeMachine) => ({
    id: m.id,
    name: m.name,
    state: m.state,
    instance_id: m.instance_id,
    region: m.region,
    config: m.config,
  });
  const setState = (machine: FakeMachine, state: FakeMachine['state']) => {
    machine.state = state;
    for (const wake of [...waiters]) wake();
  };
  const envOf = (machine: FakeMachine) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...(machine.config.env ?? {}) });
  // Every process starts a group of its own, so a stop ends what it started too (as a machine's stop does).
  const killAll = (machine: FakeMachine) => {
    for (const child of machine.processes) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }
  };

  /** Boots a machine: its init command becomes the main process (after the answer, as Fly starts machines asynchronously). */
  const boot = (machine: FakeMachine) => {
    setState(machine, 'starting');
    setImmediate(() => {
      if (machine.state !== 'starting') return;
      const [file, ...args] = machine.config.init.exec as string[];
      const main = spawn(file!, args, { cwd: '/', env: envOf(machine), stdio: 'ignore', detached: true });
      machine.main = main;
      machine.processes.add(main);
      main.on('close', () => {
        machine.processes.delete(main);
        if (machine.main === main) {
          machine.main = null;
          if (machine.state !== 'destroyed') setState(machine, 'stopped');
        }
      });
      setState(machine, 'started');
    });
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://fly');
    const prefix = `/v1/apps/${app}`;
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    requests.push(`${req.method} ${path}`);
    const auth = req.headers.authorization ?? '';
    if (auth !== `Bearer ${token}` && auth !== token) return json(res, 401, { error: 'unauthorized' });
    if (!url.pathname.startsWith(`${prefix}/`) && url.pathname !== prefix) return json(res, 404, { error: 'app not found' });
    const body = text ? JSON.parse(text) : {};
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/machines') {
      json(res, 200, [...machines.values()].filter((x) => x.state !== 'destroyed').map(view));
    } else if (req.method === 'POST' && path === '/machines') {
      const config = body.config ?? {};
      if (!images.has(config.image)) return json(res, 422, { error: `failed to resolve image ${config.image}: not found` });
      if (!Array.isArray(config.init?.exec)) return json(res, 422, { error: 'this server boots only machines with init.exec' });
      const machine: FakeMachine = {
        id: randomBytes(7).toString('hex'),
        name: body.name ?? randomBytes(4).toString('hex'),
        state: 'created',
        instance_id: randomBytes(13).toString('hex').toUpperCase(),
        region: body.region ?? 'ams',
        config,
        main: null,
        processes: new Set(),
      };
      machines.set(machine.id, machine);
      if (!body.skip_launch) boot(machine);
      json(res, 200, view(machine));
    } else if ((m = /^\/machines\/([^/]+)(?:\/(wait|start|stop|exec))?$/.exec(path))) {
      const machine = machines.get(m[1]!);
      if (!machine || machine.state === 'destroyed') return json(res, 404, { error: 'machine not found' });
      const action = m[2];
      if (!action && req.method === 'GET') return json(res, 200, view(machine));
      if (!action && req.method === 'DELETE') {
        if (machine.state === 'started' && url.searchParams.get('force') !== 'true')
          return json(res, 412, { error: 'unable to destroy machine, not currently stopped' });
        killAll(machine);
        setState(machine, 'destroyed');
        machines.delete(machine.id);
        return json(res, 200, { ok: true });
      }
      if (action === 'wait' && req.method === 'GET') {
        const state = url.searchParams.get('state') ?? 'started';
        const seconds = Number(url.searchParams.get('timeout') ?? 60);
        await new Promise<void>((resolve) => {
          const check = () => {
            if (machine.state === state || machine.state === 'destroyed') {
              waiters.delete(check);
              clearTimeout(timer);
              resolve();
            }
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            resolve();
          }, seconds * 1000);
          waiters.add(check);
          check();
        });
        if (machine.state !== state) return json(res, 408, { error: 'deadline_exceeded: machine did not reach the state in time' });
        return json(res, 200, { ok: true });
      }
      if (action === 'start' && req.method === 'POST') {
        const previous = machine.state;
        if (previous === 'stopped' || previous === 'created') boot(machine);
        return json(res, 200, { previous_state: previous });
      }
      if (action === 'stop' && req.method === 'POST') {
        if (machine.state !== 'started') return json(res, 200, { ok: true });
        setState(machine, 'stopping');
        killAll(machine);
        return json(res, 200, { ok: true });
      }
      if (action === 'exec' && req.method === 'POST') {
        if (machine.state !== 'started') return json(res, 412, { error: `machine is ${machine.state}, not started` });
        const command = body.command as string[] | undefined;
        if (!Array.isArray(command) || !command.length) return json(res, 400, { error: 'command is required' });
        const outcome = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
          const child = spawn(command[0]!, command.slice(1), {
            cwd: '/',
            env: envOf(machine),
            stdio: ['pipe', 'pipe', 'pipe'],
            detached: true,
          });
          machine.processes.add(child);
          const out: Buffer[] = [];
          const err: Buffer[] = [];
          child.stdout!.on('data', (c: Buffer) => out.push(c));
          child.stderr!.on('data', (c: Buffer) => err.push(c));
          child.stdin!.on('error', () => undefined);
          child.stdin!.end(typeof body.stdin === 'string' ? body.stdin : undefined);
          const timer = setTimeout(() => child.kill('SIGKILL'), Number(body.timeout ?? 30) * 1000);
          child.on('error', (error) => err.push(Buffer.from(error.message)));
          child.on('close', (code, signal) => {
            clearTimeout(timer);
            machine.processes.delete(child);
            resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
          });
        });
        return json(res, 200, {
          ...(outcome.code ? { exit_code: outcome.code } : {}),
          ...(outcome.signal ? { exit_signal: SIGNALS[outcome.signal] ?? 9 } : {}),
          ...(outcome.stdout ? { stdout: outcome.stdout } : {}),
          ...(outcome.stderr ? { stderr: outcome.stderr } : {}),
        });
      }
      json(res, 404, { error: `not found: ${req.method} ${path}` });
    } else {
      json(res, 404, { error: `not found: ${req.method} ${path}` });
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => json(res, 500, { error: error.message }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    app,
    token,
    requests,
    machines,
    images,
    async close() {
      for (const machine of machines.values()) killAll(machine);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
