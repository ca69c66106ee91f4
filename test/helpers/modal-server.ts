// A loopback Modal control-plane API for the `modal` environment type's tests (Modal cannot be
// reached from here). It is a real gRPC server on 127.0.0.1 serving the ModalClient service from the
// same proto definitions the driver uses (src/providers/environments/vendor/modal/api.proto, Modal's own
// messages and field numbers), checks the token and the auth token on every call as Modal does, and
// keeps environments, apps, images and sandboxes. The same server is the sandboxes' command router
// (the TaskCommandRouter service, from the same proto file the driver loads): TaskGetCommandRouterAccess
// answers its URL and a JWT for the task, which every router call must carry. A sandbox is a
// directory: TaskExecStart runs the command as a real process of this machine with the exec's workdir
// mapped into that directory, TaskExecStdioRead streams each output from an offset until the command
// closes it, TaskExecStdinWrite feeds standard input at byte offsets, TaskExecWait answers the exit
// code or signal — so commands, files and kills are real; only the isolation is not.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { modalServiceDefinitions } from '../../src/providers/environments/modal-api.js';

export interface FakeSandbox {
  id: string;
  taskId: string;
  name: string | null;
  appId: string;
  definition: Record<string, any>;
  tags: { tag_name: string; tag_value: string }[];
  running: boolean;
  root: string;
  processes: Set<ChildProcess>;
}

interface FakeExec {
  id: string;
  sandbox: FakeSandbox;
  request: Record<string, any>;
  child: ChildProcess;
  /** Standard output and standard error as they came, and whether the command closed each. */
  output: [Buffer[], Buffer[]];
  closed: [boolean, boolean];
  stdinOffset: number;
  exit: { code: number } | { signal: number } | null;
  events: EventEmitter;
}

export interface ModalServer {
  /** The provider's `server_url`: `http://127.0.0.1:port`. */
  url: string;
  /** Every call as its method name, in order. */
  calls: string[];
  /** The last request of each method. */
  lastRequest: Map<string, Record<string, any>>;
  /** Images tags a build succeeds for (any other tag's build fails as a registry would). */
  buildable: Set<string>;
  sandboxes: Map<string, FakeSandbox>;
  /** Apps by `environment/name`. */
  apps: Map<string, string>;
  /** How many times TaskGetCommandRouterAccess answered. */
  readonly routerAccesses: number;
  /** Makes every router JWT issued so far invalid (as expiry does). */
  expireRouterTokens(): void;
  close(): Promise<void>;
}

const SIGNALS: Record<string, number> = { SIGKILL: 9, SIGTERM: 15, SIGINT: 2 };
const BUILDER_VERSION = '2025.06';

export async function startModalServer(options: { tokens?: Record<string, string>; buildable?: string[] } = {}): Promise<ModalServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-fake-modal-'));
  const tokens = options.tokens ?? { 'ak-test': 'as-test' };
  const signingKey = randomBytes(32);
  const buildable = new Set(options.buildable ?? []);
  const calls: string[] = [];
  const lastRequest = new Map<string, Record<string, any>>();
  const apps = new Map<string, string>();
  const images = new Map<string, { tag: string; status: number; exception: string }>();
  const imageByRecipe = new Map<string, string>();
  const sandboxes = new Map<string, FakeSandbox>();
  const execs = new Map<string, FakeExec>();

  const fail = (code: grpc.status, details: string) => Object.assign(new Error(details), { code, details });
  // Object ids as Modal's look: a kind prefix and 22 base-62 characters (`sb-…`, `ta-…`).
  const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const id = (prefix: string) => `${prefix}-${[...randomBytes(22)].map((byte) => BASE62[byte % 62]).join('')}`;

  let routerKey = randomBytes(32);
  let routerAccesses = 0;
  let port = 0;
  /** A JWT as Modal's tokens are (HS256 here, checked by this server only), valid for an hour. */
  const sign = (claims: Record<string, unknown>, key: Buffer) => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ ...claims, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
    return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
  };
  const verify = (token: string, key: Buffer): Record<string, any> | null => {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return null;
    if (createHmac('sha256', key).update(`${header}.${payload}`).digest('base64url') !== signature) return null;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, any>;
    return claims.exp > Date.now() / 1000 ? claims : null;
  };

  /** The token id and secret on every call; the auth token from AuthTokenGet on every other one. */
  const authenticate = (method: string, metadata: grpc.Metadata) => {
    const tokenId = String(metadata.get('x-modal-token-id')[0] ?? '');
    const secret = String(metadata.get('x-modal-token-secret')[0] ?? '');
    if (!tokenId || tokens[tokenId] !== secret) throw fail(grpc.status.UNAUTHENTICATED, 'Token ID or secret is invalid');
    if (method === 'AuthTokenGet') return tokenId;
    if (!verify(String(metadata.get('x-modal-auth-token')[0] ?? ''), signingKey))
      throw fail(grpc.status.UNAUTHENTICATED, 'missing or invalid auth token');
    return tokenId;
  };

  const taskSandbox = (taskId: string) => [...sandboxes.values()].find((s) => s.taskId === taskId);

  const unary: Record<string, (request: any) => any> = {
    AuthTokenGet: () => ({ token: '' }),
    EnvironmentGetOrCreate: (request) => ({
      environment_id: `en-${request.deployment_name || 'main'}`,
      metadata: { name: request.deployment_name || 'main', settings: { image_builder_version: BUILDER_VERSION } },
    }),
    AppGetOrCreate: (request) => {
      const key = `${request.environment_name}/${request.app_name}`;
      if (!apps.has(key)) {
        if (request.object_creation_type !== 1) throw fail(grpc.status.NOT_FOUND, `App '${request.app_name}' not found`);
        apps.set(key, id('ap'));
      }
      return { app_id: apps.get(key) };
    },
    ImageGetOrCreate: (request) => {
      if (![...apps.values()].includes(request.app_id)) throw fail(grpc.status.NOT_FOUND, `App ${request.app_id} not found`);
      if (request.builder_version !== BUILDER_VERSION)
        throw fail(grpc.status.INVALID_ARGUMENT, `unknown builder version ${request.builder_version}`);
      const commands = request.image?.dockerfile_commands ?? [];
      const recipe = JSON.stringify(commands);
      let imageId = imageByRecipe.get(recipe);
      if (!imageId) {
        imageId = id('im');
        const tag = String(commands[0] ?? '').replace(/^FROM /, '');
        const ok = buildable.has(tag);
        images.set(imageId, {
          tag,
          status: ok ? 1 : 2,
          exception: ok ? '' : `Failed to pull ${tag}: manifest unknown`,
        });
        imageByRecipe.set(recipe, imageId);
        // A new build has not finished when this answers: the client joins it.
        return { image_id: imageId };
      }
      const image = images.get(imageId)!;
      return { image_id: imageId, result: { status: image.status, exception: image.exception } };
    },
    SandboxCreate: (request) => {
      const definition = request.definition ?? {};
      const image = [...images.entries()].find(([key]) => key === definition.image_id)?.[1];
      if (!image || image.status !== 1) throw fail(grpc.status.NOT_FOUND, `Image ${definition.image_id} not found`);
      const name = definition.name ?? null;
      if (name && [...sandboxes.values()].some((s) => s.running && s.appId === request.app_id && s.name === name))
        throw fail(grpc.status.ALREADY_EXISTS, `Sandbox with name '${name}' already exists`);
      const sandbox: FakeSandbox = {
        id: id('sb'),
        taskId: id('ta'),
        name,
        appId: request.app_id,
        definition,
        tags: request.tags ?? [],
        running: true,
        root: join(dir, randomBytes(8).toString('hex')),
        processes: new Set(),
      };
      mkdirSync(sandbox.root, { recursive: true });
      sandboxes.set(sandbox.id, sandbox);
      return { sandbox_id: sandbox.id, metadata: { app_id: request.app_id } };
    },
    SandboxGetFromName: (request) => {
      const appId = apps.get(`${request.environment_name}/${request.app_name}`);
      const sandbox = [...sandboxes.values()].find((s) => s.running && s.appId === appId && s.name === request.sandbox_name);
      if (!sandbox) throw fail(grpc.status.NOT_FOUND, `Sandbox with name '${request.sandbox_name}' not found`);
      return { sandbox_id: sandbox.id };
    },
    SandboxGetTaskId: (request) => {
      const sandbox = sandboxes.get(request.sandbox_id);
      if (!sandbox) throw fail(grpc.status.NOT_FOUND, `Sandbox ${request.sandbox_id} not found`);
      if (!sandbox.running) return { task_result: { status: 3, exception: 'Sandbox was terminated' } };
      return { task_id: sandbox.taskId };
    },
    SandboxTerminate: (request) => {
      const sandbox = sandboxes.get(request.sandbox_id);
      if (!sandbox) throw fail(grpc.status.NOT_FOUND, `Sandbox ${request.sandbox_id} not found`);
      if (sandbox.running) {
        sandbox.running = false;
        for (const child of sandbox.processes) child.kill('SIGKILL');
        rmSync(sandbox.root, { recursive: true, force: true });
        return {};
      }
      return { existing_result: { status: 3 } };
    },
    TaskGetCommandRouterAccess: (request) => {
      const sandbox = taskSandbox(request.task_id);
      if (!sandbox) throw fail(grpc.status.NOT_FOUND, `Task ${request.task_id} not found`);
      if (!sandbox.running) throw fail(grpc.status.FAILED_PRECONDITION, `Task ${request.task_id} has already finished`);
      routerAccesses++;
      // The worker's router: https in the URL as Modal's is (served plain here, which the client
      // allows only because this control plane is plain too).
      return { url: `https://127.0.0.1:${port}`, jwt: sign({ task_id: sandbox.taskId }, routerKey) };
    },
  };

  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(unary)) {
    implementation[method] = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      calls.push(method);
      lastRequest.set(method, call.request);
      try {
        const tokenId = authenticate(method, call.metadata);
        callback(null, method === 'AuthTokenGet' ? { token: sign({ sub: tokenId }, signingKey) } : handler(call.request));
      } catch (error) {
        callback(error as grpc.ServiceError);
      }
    };
  }
  implementation.ImageJoinStreaming = (call: grpc.ServerWritableStream<any, any>) => {
    calls.push('ImageJoinStreaming');
    try {
      authenticate('ImageJoinStreaming', call.metadata);
      const image = images.get(call.request.image_id);
      if (!image) throw fail(grpc.status.NOT_FOUND, `Image ${call.request.image_id} not found`);
      // The build's log, then its result.
      call.write({ entry_id: '1-0' });
      call.write({ entry_id: '2-0', result: { status: image.status, exception: image.exception }, eof: true });
      call.end();
    } catch (error) {
      call.emit('error', error);
    }
  };

  // ── the command router ──
  /** The router's JWT (from TaskGetCommandRouterAccess) must be valid and name the request's task. */
  const routerTask = (metadata: grpc.Metadata, taskId: string) => {
    const bearer = String(metadata.get('authorization')[0] ?? '').replace(/^Bearer /, '');
    const claims = verify(bearer, routerKey);
    if (!claims) throw fail(grpc.status.UNAUTHENTICATED, 'invalid or expired JWT');
    if (claims.task_id !== taskId) throw fail(grpc.status.PERMISSION_DENIED, `the JWT is not for task ${taskId}`);
    const sandbox = taskSandbox(taskId);
    if (!sandbox || !sandbox.running) throw fail(grpc.status.NOT_FOUND, `Task ${taskId} not found`);
    return sandbox;
  };
  const execOf = (sandbox: FakeSandbox, request: { exec_id: string }) => {
    const exec = execs.get(request.exec_id);
    if (!exec || exec.sandbox !== sandbox) throw fail(grpc.status.NOT_FOUND, `Exec ${request.exec_id} not found`);
    return exec;
  };
  /** Resolves when `ready()` holds (re-checked at each change of the exec) or the call is cancelled. */
  const until = (exec: FakeExec, ready: () => boolean, cancelled: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!ready() && !cancelled()) return;
        exec.events.off('change', check);
        resolve();
      };
      exec.events.on('change', check);
      check();
    });
  const routerUnary: Record<string, (sandbox: FakeSandbox, request: any, call: grpc.ServerUnaryCall<any, any>) => any> = {
    TaskExecStart: (sandbox, request) => {
      if (execs.has(request.exec_id)) return {};
      const [file, ...args] = request.command_args as string[];
      if (!file) throw fail(grpc.status.INVALID_ARGUMENT, 'command_args is empty');
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...(sandbox.definition.environment_variables?.contents ?? {}),
        ...(request.env ?? {}),
      };
      const child = spawn(file, args, { cwd: join(sandbox.root, request.workdir ?? '/'), env, stdio: ['pipe', 'pipe', 'pipe'] });
      const exec: FakeExec = {
        id: request.exec_id,
        sandbox,
        request,
        child,
        output: [[], []],
        closed: [false, false],
        stdinOffset: 0,
        exit: null,
        events: new EventEmitter(),
      };
      exec.events.setMaxListeners(0);
      const changed = () => exec.events.emit('change');
      sandbox.processes.add(child);
      child.stdin!.on('error', () => undefined);
      child.stdout!.on('data', (chunk: Buffer) => (exec.output[0].push(chunk), changed()));
      child.stderr!.on('data', (chunk: Buffer) => (exec.output[1].push(chunk), changed()));
      child.stdout!.on('close', () => ((exec.closed[0] = true), changed()));
      child.stderr!.on('close', () => ((exec.closed[1] = true), changed()));
      child.on('error', (error) => {
        exec.output[1].push(Buffer.from(`exec failed: ${error.message}\n`));
        exec.closed = [true, true];
        exec.exit = { code: 127 };
        changed();
      });
      // The command has ended when its process exits, even while something it started still holds its output.
      child.on('exit', (code, signal) => {
        sandbox.processes.delete(child);
        exec.exit ??= code === null ? { signal: SIGNALS[signal ?? ''] ?? 9 } : { code };
        changed();
      });
      execs.set(exec.id, exec);
      return {};
    },
    TaskExecStdinWrite: (sandbox, request) => {
      const exec = execOf(sandbox, request);
      const data: Buffer = request.data ?? Buffer.alloc(0);
      const offset = Number(request.offset);
      // A piece sent again (a retry) is not written twice; a gap is the client's mistake.
      if (offset > exec.stdinOffset) throw fail(grpc.status.INVALID_ARGUMENT, `stdin offset ${offset} is past ${exec.stdinOffset}`);
      const fresh = data.subarray(exec.stdinOffset - offset);
      if (fresh.length && exec.child.stdin!.writable) exec.child.stdin!.write(fresh);
      exec.stdinOffset += fresh.length;
      if (request.eof) exec.child.stdin!.end();
      return {};
    },
  };
  for (const [method, handler] of Object.entries(routerUnary)) {
    implementation[method] = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      calls.push(method);
      lastRequest.set(method, call.request);
      try {
        callback(null, handler(routerTask(call.metadata, call.request.task_id), call.request, call));
      } catch (error) {
        callback(error as grpc.ServiceError);
      }
    };
  }
  implementation.TaskExecWait = async (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
    calls.push('TaskExecWait');
    try {
      const exec = execOf(routerTask(call.metadata, call.request.task_id), call.request);
      await until(
        exec,
        () => exec.exit !== null,
        () => call.cancelled,
      );
      callback(null, exec.exit ?? {});
    } catch (error) {
      callback(error as grpc.ServiceError);
    }
  };
  implementation.TaskExecStdioRead = async (call: grpc.ServerWritableStream<any, any>) => {
    calls.push('TaskExecStdioRead');
    try {
      const exec = execOf(routerTask(call.metadata, call.request.task_id), call.request);
      const fd = Number(call.request.file_descriptor) === 1 ? 1 : 0;
      let offset = Number(call.request.offset);
      // Sends what the stream has from `offset`, until the command closes it.
      for (;;) {
        const all = Buffer.concat(exec.output[fd]);
        if (all.length > offset) {
          call.write({ data: all.subarray(offset) });
          offset = all.length;
        }
        if (exec.closed[fd] && offset >= all.length) break;
        if (call.cancelled) return;
        await until(
          exec,
          () => Buffer.concat(exec.output[fd]).length > offset || exec.closed[fd],
          () => call.cancelled,
        );
      }
      call.end();
    } catch (error) {
      call.emit('error', error);
    }
  };

  const server = new grpc.Server();
  const definitions = modalServiceDefinitions();
  server.addService(definitions.ModalClient.service, implementation);
  server.addService(definitions.TaskCommandRouter.service, implementation);
  port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    lastRequest,
    buildable,
    sandboxes,
    apps,
    get routerAccesses() {
      return routerAccesses;
    },
    expireRouterTokens() {
      routerKey = randomBytes(32);
    },
    async close() {
      for (const sandbox of sandboxes.values()) for (const child of sandbox.processes) child.kill('SIGKILL');
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
