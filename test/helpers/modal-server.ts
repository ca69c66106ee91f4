// A loopback Modal control-plane API for the `modal` environment type's tests (Modal cannot be
// reached from here). It is a real gRPC server on 127.0.0.1 serving the ModalClient service from the
// same proto definitions the driver uses (src/providers/environments/modal-api.proto, Modal's own
// messages and field numbers), checks the token and the auth token on every call as Modal does, and
// keeps environments, apps, images, sandboxes and execs. A sandbox is a directory: ContainerExec runs
// its command as a real process of this machine with the exec's workdir mapped into that directory,
// its output is served in numbered batches per stream (the last one carrying the exit code) and its
// standard input is fed from ContainerExecPutInput in order — so commands, files and kills are real;
// only the isolation is not.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { modalServiceDefinition } from '../../src/providers/environments/modal-api.js';

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
  batches: { items: { file_descriptor: number; message_bytes: Buffer }[]; batch_index: number; exit_code?: number }[];
  exitCode: number | null;
  nextInput: number;
  pendingInput: Map<number, { message: Buffer; eof: boolean }>;
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
  const images = new Map<string, { tag: string; status: number; exception: string; joined: boolean }>();
  const imageByRecipe = new Map<string, string>();
  const sandboxes = new Map<string, FakeSandbox>();
  const execs = new Map<string, FakeExec>();

  const fail = (code: grpc.status, details: string) => Object.assign(new Error(details), { code, details });
  const id = (prefix: string) => `${prefix}-${randomBytes(10).toString('hex')}`;

  /** A JWT as Modal's auth tokens are (HS256 here, checked by this server only), valid for an hour. */
  const issueToken = (tokenId: string) => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: tokenId, exp: Math.floor(Date.now() / 1000) + 3600 })}`;
    return `${body}.${createHmac('sha256', signingKey).update(body).digest('base64url')}`;
  };
  const tokenValid = (token: string) => {
    const [header, payload, signature] = token.split('.');
    if (!header || !payload || !signature) return false;
    const expected = createHmac('sha256', signingKey).update(`${header}.${payload}`).digest('base64url');
    if (expected !== signature) return false;
    return (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { exp: number }).exp > Date.now() / 1000;
  };

  /** The token id and secret on every call; the auth token from AuthTokenGet on every other one. */
  const authenticate = (method: string, metadata: grpc.Metadata) => {
    const tokenId = String(metadata.get('x-modal-token-id')[0] ?? '');
    const secret = String(metadata.get('x-modal-token-secret')[0] ?? '');
    if (!tokenId || tokens[tokenId] !== secret) throw fail(grpc.status.UNAUTHENTICATED, 'Token ID or secret is invalid');
    if (method === 'AuthTokenGet') return tokenId;
    if (!tokenValid(String(metadata.get('x-modal-auth-token')[0] ?? '')))
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
          joined: false,
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
    ContainerExec: (request) => {
      const sandbox = taskSandbox(request.task_id);
      if (!sandbox) throw fail(grpc.status.NOT_FOUND, `Task ${request.task_id} not found`);
      if (!sandbox.running) throw fail(grpc.status.FAILED_PRECONDITION, `Task ${request.task_id} has already finished`);
      const [file, ...args] = request.command as string[];
      if (!file) throw fail(grpc.status.INVALID_ARGUMENT, 'command is empty');
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        ...(sandbox.definition.environment_variables?.contents ?? {}),
      };
      const cwd = join(sandbox.root, request.workdir ?? '/');
      const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
      const exec: FakeExec = {
        id: id('ex'),
        sandbox,
        request,
        child,
        batches: [],
        exitCode: null,
        nextInput: 1,
        pendingInput: new Map(),
        events: new EventEmitter(),
      };
      exec.events.setMaxListeners(0);
      const push = (batch: Omit<FakeExec['batches'][number], 'batch_index'>) => {
        exec.batches.push({ ...batch, batch_index: exec.batches.length + 1 });
        exec.events.emit('batch');
      };
      sandbox.processes.add(child);
      child.stdin!.on('error', () => undefined);
      child.stdout!.on('data', (chunk: Buffer) => push({ items: [{ file_descriptor: 1, message_bytes: chunk }] }));
      child.stderr!.on('data', (chunk: Buffer) => push({ items: [{ file_descriptor: 2, message_bytes: chunk }] }));
      const finish = (code: number) => {
        if (exec.exitCode !== null) return;
        sandbox.processes.delete(child);
        exec.exitCode = code;
        push({ items: [], exit_code: code });
      };
      child.on('error', (error) => {
        push({ items: [{ file_descriptor: 2, message_bytes: Buffer.from(`exec failed: ${error.message}\n`) }] });
        finish(127);
      });
      child.on('close', (code, signal) => finish(code ?? 128 + (SIGNALS[signal ?? ''] ?? 0)));
      execs.set(exec.id, exec);
      return { exec_id: exec.id };
    },
    ContainerExecPutInput: (request) => {
      const exec = execs.get(request.exec_id);
      if (!exec) throw fail(grpc.status.NOT_FOUND, `Exec ${request.exec_id} not found`);
      const input = request.input ?? {};
      exec.pendingInput.set(Number(input.message_index), { message: input.message ?? Buffer.alloc(0), eof: Boolean(input.eof) });
      // Pieces are written in their index order, whatever order they arrive in.
      for (let next = exec.pendingInput.get(exec.nextInput); next; next = exec.pendingInput.get(exec.nextInput)) {
        exec.pendingInput.delete(exec.nextInput++);
        if (next.message.length && exec.child.stdin!.writable) exec.child.stdin!.write(next.message);
        if (next.eof) exec.child.stdin!.end();
      }
      return {};
    },
  };

  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, handler] of Object.entries(unary)) {
    implementation[method] = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      calls.push(method);
      lastRequest.set(method, call.request);
      try {
        const tokenId = authenticate(method, call.metadata);
        callback(null, method === 'AuthTokenGet' ? { token: issueToken(tokenId) } : handler(call.request));
      } catch (error) {
        callback(error as grpc.ServiceError);
      }
    };
  }

  /** Waits for `ready` (re-checked on each of the exec's batches) up to `seconds`. */
  const waitFor = (exec: FakeExec, seconds: number, ready: () => boolean, cancelled: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (ready() || cancelled()) done();
      };
      const done = () => {
        clearTimeout(timer);
        exec.events.off('batch', check);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, seconds) * 1000);
      exec.events.on('batch', check);
      check();
    });

  implementation.ContainerExecWait = async (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
    calls.push('ContainerExecWait');
    try {
      authenticate('ContainerExecWait', call.metadata);
      const exec = execs.get(call.request.exec_id);
      if (!exec) throw fail(grpc.status.NOT_FOUND, `Exec ${call.request.exec_id} not found`);
      await waitFor(
        exec,
        call.request.timeout,
        () => exec.exitCode !== null,
        () => call.cancelled,
      );
      callback(null, exec.exitCode === null ? { completed: false } : { completed: true, exit_code: exec.exitCode });
    } catch (error) {
      callback(error as grpc.ServiceError);
    }
  };

  implementation.ContainerExecGetOutput = async (call: grpc.ServerWritableStream<any, any>) => {
    calls.push('ContainerExecGetOutput');
    try {
      authenticate('ContainerExecGetOutput', call.metadata);
      const exec = execs.get(call.request.exec_id);
      if (!exec) throw fail(grpc.status.NOT_FOUND, `Exec ${call.request.exec_id} not found`);
      const fd = Number(call.request.file_descriptor);
      let sent = Number(call.request.last_batch_index);
      const deadline = Date.now() + Number(call.request.timeout) * 1000;
      let finished = false;
      while (!finished && !call.cancelled && Date.now() < deadline) {
        for (const batch of exec.batches.slice(sent)) {
          sent = batch.batch_index;
          const items = batch.items.filter((item) => !fd || item.file_descriptor === fd);
          if (batch.exit_code !== undefined) {
            call.write({ items, batch_index: batch.batch_index, exit_code: batch.exit_code });
            finished = true;
            break;
          }
          if (items.length) call.write({ items, batch_index: batch.batch_index });
        }
        if (!finished)
          await waitFor(
            exec,
            (deadline - Date.now()) / 1000,
            () => exec.batches.length > sent,
            () => call.cancelled,
          );
      }
      call.end();
    } catch (error) {
      call.emit('error', error);
    }
  };

  implementation.ImageJoinStreaming = (call: grpc.ServerWritableStream<any, any>) => {
    calls.push('ImageJoinStreaming');
    try {
      authenticate('ImageJoinStreaming', call.metadata);
      const image = images.get(call.request.image_id);
      if (!image) throw fail(grpc.status.NOT_FOUND, `Image ${call.request.image_id} not found`);
      // The build's log, then its result.
      call.write({ entry_id: '1-0' });
      call.write({ entry_id: '2-0', result: { status: image.status, exception: image.exception }, eof: true });
      image.joined = true;
      call.end();
    } catch (error) {
      call.emit('error', error);
    }
  };

  const server = new grpc.Server();
  server.addService(modalServiceDefinition().service, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    lastRequest,
    buildable,
    sandboxes,
    apps,
    async close() {
      for (const sandbox of sandboxes.values()) for (const child of sandbox.processes) child.kill('SIGKILL');
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
