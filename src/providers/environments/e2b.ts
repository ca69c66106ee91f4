// The `e2b` environment type: an instance is an E2B sandbox (a Firecracker micro-VM made from a
// template). Provisioning creates it through E2B's control plane; commands run through the
// sandbox's own daemon (envd) as Connect RPC server streams (`process.Process/Start`, killed with
// `SendSignal`, standard input through `SendInput` and `CloseStdin`); files are read and written
// with envd's plain HTTP `/files` and listed with `filesystem.Filesystem/ListDir`. Stop pauses the
// sandbox (its memory and files are kept), start resumes it (`connect`), destroy kills it.
import { posix } from 'node:path';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
  type FileEntry,
} from '../environment-driver.js';
import Type from 'typebox';
import { defineProviderType, jsonSchemaOf, registerProviderType } from '../registry.js';
import { apiKeyCredentialOf, uriMember } from '../common-schemas.js';
import { ConnectError, connectServerStream, connectUnary } from './connect-rpc.js';
import {
  DEFAULT_E2B_USER,
  e2bApi,
  forgetAccess,
  rememberAccess,
  sandboxAccess,
  userOf,
  type E2bSandbox,
  type EnvdAccess,
} from './e2b-api.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { watchForKill } from './kill-watch.js';
import { breadthFirst, fileToWrite, instancePath, vendorIdOf, workingDirectoryOf } from './instance-files.js';
import { boundedFileRead, controlPlaneWork, SandboxApiError, sandboxFetch, unreachable, uploadFile } from './sandbox-http.js';
import { environmentDocuments, stringMapMember } from './template-schema.js';

/** Where commands start when the template names no `working_directory`: the E2B user's home. */
export const DEFAULT_E2B_WORKING_DIRECTORY = '/home/user';
/** The sandbox's lifetime (seconds) from creation or resumption, unless the template says otherwise. */
export const DEFAULT_E2B_TIMEOUT_SECONDS = 3600;
/** The metadata member that names the environment a sandbox belongs to (provisioning finds it again by it). */
export const E2B_ENVIRONMENT_METADATA = 'workspace-agent-service.environment-id';
const SANDBOX_SERVICE = 'the E2B sandbox';
/** How long a killed command's stream may take to end before the driver stops waiting. */
const KILL_GRACE_MS = 5_000;
/** envd's unary calls (file metadata, signals) give up after this long. */
const ENVD_TIMEOUT_MS = 60_000;
/** Tells envd (and proxies before it) to send a keepalive event this often on a quiet command's stream. */
const KEEPALIVE_SECONDS = '50';

const signalOfStatus = (status: string | undefined): string => {
  if (!status) return 'SIGKILL';
  if (/killed/i.test(status)) return 'SIGKILL';
  if (/terminated/i.test(status)) return 'SIGTERM';
  if (/interrupt/i.test(status)) return 'SIGINT';
  return status.replace(/^signal:\s*/i, '').toUpperCase();
};

const pathIn = (instance: EnvironmentInstance, path: string | undefined) => instancePath(instance.workingDirectory, path);

/** An envd problem during work as a driver error; the sandbox's address is fetched again next time. */
function envdProblem(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, error: unknown): EnvironmentDriverError {
  if (error instanceof EnvironmentDriverError) {
    if (error.reason === 'unavailable') forgetAccess(ctx, instance.instanceId);
    return error;
  }
  forgetAccess(ctx, instance.instanceId);
  if (error instanceof ConnectError) {
    if (error.code === 'unauthenticated' || error.code === 'permission_denied')
      return new EnvironmentDriverError('unavailable', `the E2B sandbox refused the request: ${error.message}`);
    // A working directory that is not there, a command that cannot start: the caller's input.
    if (error.code === 'invalid_argument') return new EnvironmentDriverError('invalid_path', error.message);
    return new EnvironmentDriverError('unavailable', `the E2B sandbox answered ${error.code}: ${error.message}`);
  }
  // A stream cut off midway (the sandbox paused or killed while a command ran).
  return unreachable(SANDBOX_SERVICE, error);
}

function unary<T>(access: EnvdAccess, procedure: string, message: unknown): Promise<T> {
  return connectUnary<T>({
    baseUrl: access.baseUrl,
    procedure,
    headers: access.headers,
    fetch: access.fetch,
    message,
    timeoutMs: ENVD_TIMEOUT_MS,
    service: SANDBOX_SERVICE,
  });
}

interface EnvdEntry {
  name?: string;
  type?: string;
  path?: string;
  size?: string | number;
  modifiedTime?: string;
}

const KIND_OF_TYPE: Record<string, FileEntry['kind']> = {
  FILE_TYPE_FILE: 'file',
  FILE_TYPE_DIRECTORY: 'directory',
  FILE_TYPE_SYMLINK: 'symlink',
};

/** A path's entry, or null when nothing is there. */
async function stat(access: EnvdAccess, path: string): Promise<EnvdEntry | null> {
  try {
    return (await unary<{ entry?: EnvdEntry }>(access, 'filesystem.Filesystem/Stat', { path })).entry ?? null;
  } catch (error) {
    if (error instanceof ConnectError && error.code === 'not_found') return null;
    throw error;
  }
}

const exec: EnvironmentDriver['exec'] = async (ctx, instance, request) => {
  // A command line runs in a login shell, as E2B's own SDK runs commands; an argument vector as is.
  const argv = typeof request.command === 'string' ? ['/bin/bash', '-l', '-c', request.command] : [...request.command];
  if (!argv[0]) throw new EnvironmentDriverError('invalid_path', 'the command is empty');
  const started = Date.now();
  let access: EnvdAccess;
  try {
    access = await sandboxAccess(ctx, instance.instanceId);
  } catch (error) {
    throw envdProblem(ctx, instance, error);
  }
  const stdout = new OutputBuffer(request.maxOutputBytes);
  const stderr = new OutputBuffer(request.maxOutputBytes);
  const stream = new AbortController();
  let pid: number | null = null;
  let killRequested = false;
  const signalProcess = () => {
    if (pid !== null)
      void unary(access, 'process.Process/SendSignal', { process: { pid }, signal: 'SIGNAL_SIGKILL' }).catch(() => undefined);
  };
  const kill = () => {
    // The process id arrives with the stream's first event: a kill asked for before it goes out then.
    killRequested = true;
    signalProcess();
  };
  const feedStdin = async (processId: number) => {
    const process = { pid: processId };
    if (request.stdin)
      await unary(access, 'process.Process/SendInput', {
        process,
        input: { stdin: Buffer.from(request.stdin).toString('base64') },
      });
    await unary(access, 'process.Process/CloseStdin', { process });
  };
  const watch = watchForKill({
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    graceMs: KILL_GRACE_MS,
    kill,
    giveUp: () => stream.abort(),
  });
  type EndEvent = { exitCode?: number; exited?: boolean; status?: string; error?: string };
  let end = null as EndEvent | null;
  try {
    const events = connectServerStream({
      baseUrl: access.baseUrl,
      procedure: 'process.Process/Start',
      headers: { ...access.headers, 'keepalive-ping-interval': KEEPALIVE_SECONDS },
      fetch: access.fetch,
      message: {
        process: {
          cmd: argv[0],
          args: argv.slice(1),
          envs: request.env ?? {},
          cwd: pathIn(instance, request.cwd),
        },
        stdin: request.stdin !== undefined,
      },
      signal: stream.signal,
      service: SANDBOX_SERVICE,
    });
    for await (const message of events) {
      const event = (message.event ?? {}) as Record<string, Record<string, unknown> | undefined>;
      if (event.start) {
        pid = Number(event.start.pid);
        if (killRequested) signalProcess();
        else if (request.stdin !== undefined) void feedStdin(pid).catch(() => kill());
      } else if (event.data) {
        for (const name of ['stdout', 'stderr'] as const) {
          const data = event.data[name];
          if (typeof data !== 'string') continue;
          const chunk = Buffer.from(data, 'base64');
          (name === 'stdout' ? stdout : stderr).push(chunk);
          request.onOutput?.(name, chunk);
        }
      } else if (event.end) end = event.end as EndEvent;
    }
  } catch (error) {
    // A stream the driver cut off after a kill ends the command's wait, not the driver's work.
    if (!(stream.signal.aborted && (watch.timedOut || watch.aborted))) throw envdProblem(ctx, instance, error);
  } finally {
    watch.dispose();
  }
  const { timedOut, aborted } = watch;
  if (!end && !timedOut && !aborted)
    throw envdProblem(ctx, instance, new ConnectError('unavailable', 'the command ended without an end event'));
  const killed = timedOut || aborted;
  // envd's end event: `exited` false — absent in proto3 JSON — means a signal ended the process
  // (its status says which).
  const bySignal = killed || end?.exited !== true;
  return {
    exitCode: bySignal ? null : (end?.exitCode ?? 0),
    signal: killed ? 'SIGKILL' : bySignal ? signalOfStatus(end?.status) : null,
    stdout: stdout.text(),
    stderr: stderr.text(),
    stdoutBytes: stdout.total,
    stderrBytes: stderr.total,
    truncated: stdout.truncated || stderr.truncated,
    timedOut,
    aborted,
    durationMs: Date.now() - started,
  };
};

/** A control-plane problem during stop, start or destroy as a driver error. */
/** Stop, start or destroy work through E2B's API (the sandbox's daemon access is asked for again next time). */
const controlPlane = <T>(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, work: () => Promise<T>) =>
  controlPlaneWork('the E2B API', () => forgetAccess(ctx, instance.instanceId), work);

/** The sandbox an environment already has (provisioning is idempotent per environment id), or null. */
async function findSandbox(ctx: EnvironmentDriverContext, environmentId: string, signal?: AbortSignal): Promise<E2bSandbox | null> {
  const metadata = new URLSearchParams({ [E2B_ENVIRONMENT_METADATA]: environmentId }).toString();
  const query = new URLSearchParams({ metadata, state: 'running,paused' }).toString();
  const listed = await e2bApi<E2bSandbox[]>(ctx, 'GET', `/v2/sandboxes?${query}`, [200], undefined, signal);
  return (listed.body ?? []).find((sandbox) => sandbox.metadata?.[E2B_ENVIRONMENT_METADATA] === environmentId) ?? null;
}

function timeoutOf(config: { timeout_seconds?: number }): number {
  return config.timeout_seconds ?? DEFAULT_E2B_TIMEOUT_SECONDS;
}

/** Resumes a paused sandbox (or extends a running one's lifetime): `POST /sandboxes/{id}/connect`. */
async function connectSandbox(ctx: EnvironmentDriverContext, sandboxId: string, signal?: AbortSignal): Promise<E2bSandbox> {
  const answer = await e2bApi<E2bSandbox>(
    ctx,
    'POST',
    `/sandboxes/${encodeURIComponent(sandboxId)}/connect`,
    [200, 201],
    { timeout: timeoutOf(documents.template(ctx.environmentConfig)) },
    signal,
  );
  return answer.body;
}

export const e2bEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const config = documents.template(request.config);
    const workingDirectory = workingDirectoryOf(config, DEFAULT_E2B_WORKING_DIRECTORY, 'sandbox');
    const template = config.template;
    let sandbox: E2bSandbox;
    try {
      const existing = await findSandbox(ctx, request.environmentId, request.signal);
      if (existing) sandbox = existing.state === 'paused' ? await connectSandbox(ctx, existing.sandboxID, request.signal) : existing;
      else {
        const created = await e2bApi<E2bSandbox>(
          ctx,
          'POST',
          '/sandboxes',
          [201],
          {
            templateID: template,
            timeout: timeoutOf(config),
            autoPause: config.auto_pause === true,
            // envd then wants the sandbox's access token on every request.
            secure: true,
            metadata: {
              ...config.metadata,
              [E2B_ENVIRONMENT_METADATA]: request.environmentId,
            },
            envVars: config.env ?? {},
          },
          request.signal,
        );
        sandbox = created.body;
      }
      if (typeof sandbox?.sandboxID !== 'string') throw new Error('E2B answered without a sandbox id');
    } catch (error) {
      if (error instanceof SandboxApiError)
        throw new Error(`E2B refused the sandbox (${error.status}): ${error.message}`, { cause: error });
      throw error;
    }
    // The listing and `connect` may not carry the access token: ask for the sandbox's details.
    if (sandbox.envdAccessToken === undefined) forgetAccess(ctx, sandbox.sandboxID);
    else rememberAccess(ctx, sandbox);
    const access = await sandboxAccess(ctx, sandbox.sandboxID);
    try {
      await unary(access, 'filesystem.Filesystem/MakeDir', { path: workingDirectory });
    } catch (error) {
      if (!(error instanceof ConnectError && error.code === 'already_exists'))
        throw new Error(`the sandbox could not make ${workingDirectory}: ${(error as Error).message}`, { cause: error });
    }
    return { instanceId: sandbox.sandboxID, workingDirectory };
  },
  exec,
  async readFile(ctx, instance, path, options) {
    const file = pathIn(instance, path);
    try {
      const access = await sandboxAccess(ctx, instance.instanceId);
      const entry = await stat(access, file);
      if (!entry) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
      if (entry.type === 'FILE_TYPE_DIRECTORY') throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
      const query = new URLSearchParams({ path: file, username: userOf(ctx) });
      const response = await sandboxFetch({
        method: 'GET',
        url: `${access.baseUrl}/files?${query}`,
        headers: { ...access.headers, accept: 'application/octet-stream' },
        service: SANDBOX_SERVICE,
        fetch: access.fetch,
      });
      if (response.status === 404) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
      if (response.status === 400) throw new EnvironmentDriverError('not_a_file', `${path}: ${(await response.text()).slice(0, 300)}`);
      if (response.status !== 200)
        throw new EnvironmentDriverError('unavailable', `the E2B sandbox answered ${response.status} reading ${path}`);
      return await boundedFileRead(response, options.maxBytes, entry.size, SANDBOX_SERVICE);
    } catch (error) {
      throw envdProblem(ctx, instance, error);
    }
  },
  async writeFile(ctx, instance, path, content) {
    const file = fileToWrite(instance.workingDirectory, path);
    try {
      const access = await sandboxAccess(ctx, instance.instanceId);
      const entry = await stat(access, file);
      if (entry?.type === 'FILE_TYPE_DIRECTORY') throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
      // envd creates the parent directories and replaces an existing file.
      const query = new URLSearchParams({ path: file, username: userOf(ctx) });
      const { bytes, response } = await uploadFile(
        { url: `${access.baseUrl}/files?${query}`, headers: access.headers, service: SANDBOX_SERVICE, fetch: access.fetch },
        file,
        content,
      );
      const text = await response.text().catch(() => '');
      if (response.status === 400 || response.status === 507)
        throw new EnvironmentDriverError('invalid_path', `${path}: ${text.slice(0, 300) || `HTTP ${response.status}`}`);
      if (response.status !== 200)
        throw new EnvironmentDriverError('unavailable', `the E2B sandbox answered ${response.status} writing ${path}`);
      return { sizeBytes: bytes.length };
    } catch (error) {
      throw envdProblem(ctx, instance, error);
    }
  },
  async listFiles(ctx, instance, path, options) {
    const directory = pathIn(instance, path);
    let entries: EnvdEntry[];
    try {
      const access = await sandboxAccess(ctx, instance.instanceId);
      const entry = await stat(access, directory);
      if (!entry) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
      if (entry.type !== 'FILE_TYPE_DIRECTORY') throw new EnvironmentDriverError('not_a_directory', `${path} is not a directory`);
      const listed = await unary<{ entries?: EnvdEntry[] }>(access, 'filesystem.Filesystem/ListDir', {
        path: directory,
        depth: Math.max(1, options.depth),
      });
      entries = listed.entries ?? [];
    } catch (error) {
      throw envdProblem(ctx, instance, error);
    }
    const all: FileEntry[] = [];
    for (const entry of entries) {
      const relative = posix.relative(directory, entry.path ?? posix.join(directory, entry.name ?? ''));
      if (!relative || relative.startsWith('..')) continue;
      const kind = KIND_OF_TYPE[entry.type ?? ''] ?? 'other';
      const modified = entry.modifiedTime ? new Date(entry.modifiedTime) : new Date(0);
      all.push({
        path: relative,
        kind,
        sizeBytes: kind === 'file' ? Number(entry.size ?? 0) : 0,
        modifiedAt: Number.isNaN(modified.getTime()) ? new Date(0).toISOString() : modified.toISOString(),
      });
    }
    return breadthFirst(all, options.limit);
  },
  async stop(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      // 204 paused; 409 already paused; 404 gone (nothing runs in it either way).
      await e2bApi(ctx, 'POST', `/sandboxes/${encodeURIComponent(instance.instanceId)}/pause`, [204, 404, 409], {});
    });
  },
  async start(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      const sandbox = await connectSandbox(ctx, instance.instanceId).catch((error: unknown) => {
        if (error instanceof SandboxApiError && error.status === 404)
          throw new EnvironmentDriverError('unavailable', `the E2B sandbox ${instance.instanceId} no longer exists`);
        throw error;
      });
      if (sandbox?.envdAccessToken !== undefined) rememberAccess(ctx, sandbox);
    });
    return instance;
  },
  async destroy(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      // The sandbox E2B may have made for an environment not yet recorded is found by its metadata.
      const sandboxId = await vendorIdOf(instance.instanceId, async (id) => (await findSandbox(ctx, id))?.sandboxID ?? null);
      if (!sandboxId) return;
      await e2bApi(ctx, 'DELETE', `/sandboxes/${encodeURIComponent(sandboxId)}`, [204, 404]);
    });
  },
};

// ── registration ──

/** The E2B provider's config: the API, the sandboxes' domain, or one address for every sandbox's envd. */
const E2bConfig = Type.Object(
  {
    api_url: Type.Optional(uriMember('the E2B API (default https://api.<domain>)')),
    domain: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9.-]+$',
        maxLength: 253,
        description: 'the domain sandboxes are reached under (default e2b.app): envd at https://49983-<sandbox id>.<domain>',
      }),
    ),
    sandbox_url: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'the address of every sandbox’s envd instead, with {sandbox_id} and {port} filled in (a self-hosted or proxied deployment; requests also carry E2b-Sandbox-Id and E2b-Sandbox-Port)',
      }),
    ),
  },
  { additionalProperties: false },
);
const E2bTemplate = Type.Object(
  {
    template: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the E2B template (id or alias) the sandbox starts from, e.g. base',
    }),
    timeout_seconds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 86400,
        description: `how long the sandbox lives after it is made or started again (default ${DEFAULT_E2B_TIMEOUT_SECONDS}); E2B kills it then, or pauses it with auto_pause`,
      }),
    ),
    auto_pause: Type.Optional(Type.Boolean({ description: 'pause the sandbox at its timeout instead of killing it (default false)' })),
    metadata: Type.Optional(stringMapMember('metadata stored with the sandbox in E2B', 50)),
    env: Type.Optional(stringMapMember('environment variables of the sandbox and so of every command', 100)),
    working_directory: Type.Optional(
      Type.String({
        maxLength: 1024,
        pattern: '^/',
        description: `an absolute path inside the sandbox where commands start (default ${DEFAULT_E2B_WORKING_DIRECTORY}; created on provisioning)`,
      }),
    ),
    user: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[a-z_][a-z0-9_-]*$',
        description: `the sandbox user commands run as and files belong to (default ${DEFAULT_E2B_USER})`,
      }),
    ),
  },
  { additionalProperties: false },
);
const E2bCredential = apiKeyCredentialOf('an E2B API key (sent as X-API-Key)');
const documents = environmentDocuments({ configuration: E2bConfig, credential: E2bCredential, template: E2bTemplate });

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'e2b',
    title: 'E2B sandboxes',
    configuration: E2bConfig,
    credential: E2bCredential,
    credentialRequired: true,
    setupUrl: 'https://e2b.dev/dashboard',
    endpointFields: ['api_url', 'sandbox_url'],
    environment: {
      environmentSchema: jsonSchemaOf(E2bTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: e2bEnvironmentDriver,
    },
  }),
);
