// The `modal` environment type: an instance is a Modal Sandbox, made through Modal's control-plane
// gRPC API and worked through its task's command router (./modal-api.ts) with the provider's token.
// Provisioning resolves the provider's Modal environment (for its image builder version), gets or
// creates the provider's app, builds the template's image from its registry tag, creates a sandbox
// named after the environment whose first process idles, and waits for its task. Commands run through
// the router (TaskExecStart; standard input by TaskExecStdinWrite, each output streamed by
// TaskExecStdioRead, the exit status by TaskExecWait); files are read, written and listed by small
// POSIX shell commands run the same way (the shell-file adapter, ./shell-files.ts). Stop kills every command the service started in the sandbox
// (its files stay); destroy terminates the sandbox.
import { randomUUID } from 'node:crypto';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
} from '../environment-driver.js';
import Type from 'typebox';
import { defineProviderType, jsonSchemaOf, registerProviderType } from '../registry.js';
import { mapOf } from '../common-schemas.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { DEFAULT_MODAL_SERVER_URL, ModalApiError, modalApiFor, type ModalApi } from './modal-api.js';
import { watchForKill } from './kill-watch.js';
import { workingDirectoryOf } from './instance-files.js';
import {
  ENV_NAME,
  execResultOf,
  IDLE_PROCESS,
  killTreeCommand,
  ReportedProcessId,
  shellCommandOf,
  type ShellCommand,
} from './shell-commands.js';
import { fromRoot, shellFiles, type FileScriptRunner } from './shell-files.js';
import { environmentDocuments, imageMember, workingDirectoryMember } from './template-schema.js';

/** Where commands start when the template names no `working_directory`. */
export const DEFAULT_SANDBOX_WORKING_DIRECTORY = '/workspace';
/** The app sandboxes belong to when the provider names none. */
export const DEFAULT_MODAL_APP_NAME = 'workspace-agent-service';
/** A sandbox's lifetime when the template names none: Modal's maximum, 24 hours. */
const DEFAULT_SANDBOX_TIMEOUT_S = 24 * 60 * 60;
/** How long the sandbox's own chores may take: making the working directory, stopping commands. */
const CHORE_TIMEOUT_MS = 60_000;
/** How long a killed command's output streams may take to end before the driver stops waiting. */
const KILL_GRACE_MS = 5_000;
/** Standard input goes out in pieces of this size (each one TaskExecStdinWrite). */
const STDIN_CHUNK_BYTES = 256 * 1024;
/** The longest a server-side wait (output, image build, task) is asked to last before it is asked again. */
const SERVER_WAIT_S = 55;
/** How many times a sandbox's task is waited for during provisioning (each wait up to SERVER_WAIT_S). */
const TASK_WAITS = 10;

/** How long one output stream is kept open (a command that runs longer is read again from its offset). */
const STREAM_TIMEOUT_MS = 15 * 60_000;
/** After the command has ended, its output streams are given up once nothing has arrived for this long (a background process may hold them open). */
const DRAIN_MS = 2_000;
/** How many times a broken output stream is asked again. */
const STREAM_RESUMES = 5;
/** How long one TaskExecWait may wait before it is asked again. */
const WAIT_TIMEOUT_MS = 60_000;

const STDOUT_PIPE = 1; // TaskExecStdoutConfig.TASK_EXEC_STDOUT_CONFIG_PIPE
const STDERR_PIPE = 1; // TaskExecStderrConfig.TASK_EXEC_STDERR_CONFIG_PIPE
const STDIO_STDOUT = 0; // TaskExecStdioFileDescriptor.TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDOUT
const STDIO_STDERR = 1; // TaskExecStdioFileDescriptor.TASK_EXEC_STDIO_FILE_DESCRIPTOR_STDERR
const GRPC_DEADLINE_EXCEEDED = 4;
const CREATE_IF_MISSING = 1; // ObjectCreationType.OBJECT_CREATION_TYPE_CREATE_IF_MISSING
const SUCCESS = 1; // GenericResult.GenericStatus.GENERIC_STATUS_SUCCESS
const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;

// Every command starts through this: it reports its own process id on standard error first (so a
// timeout or an abort can kill it: the command router has no kill), then becomes the command.
const EXEC_WRAPPER = 'echo "$$" >&2; exec "$@"';
// Stop: every process carrying this sandbox's command marker (each command the service started and
// what it started, unless it cleared its environment) is frozen, then killed; the idle first
// process has no marker and keeps the sandbox up.
const KILL_MARKED = [
  'marked() {',
  '  for f in /proc/[0-9]*/environ; do',
  '    p=${f#/proc/}; p=${p%/environ}; [ "$p" = "$$" ] && continue',
  '    tr "\\000" "\\n" < "$f" 2>/dev/null | grep -qxF "WSA_COMMAND=$1" && echo "$p"',
  '  done',
  '}',
  'for p in $(marked "$1"); do kill -STOP "$p" 2>/dev/null; done',
  'for p in $(marked "$1"); do kill -KILL "$p" 2>/dev/null; done',
  'exit 0',
].join('\n');

interface ModalSettings {
  serverUrl: string;
  appName: string;
  environment: string;
}

/** The Modal provider's config: the API, the app sandboxes belong to and the Modal environment. */
const ModalConfig = Type.Object(
  {
    server_url: Type.Optional(
      Type.String({ format: 'uri', pattern: '^https?://', description: `Modal's API (default ${DEFAULT_MODAL_SERVER_URL})` }),
    ),
    app_name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z0-9._-]+$',
        description: `the Modal app sandboxes belong to (made when missing; default ${DEFAULT_MODAL_APP_NAME})`,
      }),
    ),
    environment: Type.Optional(
      Type.String({ maxLength: 64, description: "the Modal environment (default: the workspace's default environment)" }),
    ),
  },
  { additionalProperties: false },
);
/** Its credential: a Modal token's id and secret. */
const ModalCredential = Type.Object(
  {
    token_id: Type.String({ minLength: 1, description: 'ak-…' }),
    token_secret: Type.String({ minLength: 1, writeOnly: true, description: 'as-…' }),
  },
  { additionalProperties: false },
);
const ModalTemplate = Type.Object(
  {
    image: imageMember('a registry image the sandbox starts from (Modal builds it), e.g. python:3.12-slim; it must have /bin/sh', {
      pattern: '^[^\\s]+$',
    }),
    working_directory: Type.Optional(
      workingDirectoryMember('an absolute path inside the sandbox where commands start (default /workspace; created on provisioning)'),
    ),
    env: Type.Optional(
      mapOf(Type.String({ maxLength: 32768 }), {
        description: 'environment variables of the sandbox and every command',
        maxProperties: 100,
        propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
      }),
    ),
    cpu: Type.Optional(
      Type.Number({ description: 'CPU cores reserved for the sandbox (e.g. 0.5 or 2)', exclusiveMinimum: 0, maximum: 64 }),
    ),
    memory_mb: Type.Optional(Type.Integer({ description: 'memory reserved for the sandbox in MiB', minimum: 128, maximum: 344064 })),
    timeout_seconds: Type.Optional(
      Type.Integer({
        description: "the sandbox's longest life in seconds, after which Modal terminates it (default and maximum 86400)",
        minimum: 10,
        maximum: 86400,
      }),
    ),
  },
  { additionalProperties: false },
);
const documents = environmentDocuments({ configuration: ModalConfig, credential: ModalCredential, template: ModalTemplate });

function settingsOf(ctx: EnvironmentDriverContext): ModalSettings {
  const config = documents.config(ctx);
  return {
    serverUrl: config.server_url || DEFAULT_MODAL_SERVER_URL,
    appName: config.app_name || DEFAULT_MODAL_APP_NAME,
    environment: config.environment ?? '',
  };
}

function apiOf(ctx: EnvironmentDriverContext): ModalApi {
  const credential = documents.credential(ctx);
  return modalApiFor({
    serverUrl: settingsOf(ctx).serverUrl,
    tokenId: credential?.token_id ?? '',
    tokenSecret: credential?.token_secret ?? '',
    outbound: ctx.outbound,
  });
}

/**
 * A Modal problem during work as a state the caller can act on (the service answers it with
 * `failed_precondition`), not the service's failure: a sandbox that is gone, an API that cannot be
 * reached, a token that is refused.
 */
function modalProblem(error: unknown): never {
  if (error instanceof EnvironmentDriverError) throw error;
  if (error instanceof ModalApiError && error.code === GRPC_NOT_FOUND)
    throw new EnvironmentDriverError('unavailable', `the environment's sandbox is gone (terminated or timed out?): ${error.details}`);
  throw new EnvironmentDriverError('unavailable', (error as Error).message);
}

const sandboxName = (environmentId: string) => `wsa-${environmentId}`;

// A sandbox's task id is asked for once per process: exec needs it, and it never changes.
const taskIds = new Map<string, string>();
const MAX_TASK_IDS = 10_000;

function rememberTask(sandboxId: string, taskId: string) {
  if (taskIds.size >= MAX_TASK_IDS) taskIds.delete(taskIds.keys().next().value as string);
  taskIds.set(sandboxId, taskId);
}

/** The task a sandbox runs on, waiting while it is scheduled; a sandbox that has ended has none. */
async function taskOf(api: ModalApi, sandboxId: string, waits = 1, signal?: AbortSignal): Promise<string> {
  const known = taskIds.get(sandboxId);
  if (known) return known;
  for (let attempt = 0; attempt < waits; attempt++) {
    const response = await api.unary(
      'SandboxGetTaskId',
      { sandbox_id: sandboxId, timeout: SERVER_WAIT_S, wait_until_ready: true },
      { timeoutMs: (SERVER_WAIT_S + 10) * 1000, signal },
    );
    if (response.task_id) {
      rememberTask(sandboxId, response.task_id);
      return response.task_id;
    }
    if (response.task_result)
      throw new EnvironmentDriverError(
        'unavailable',
        `the sandbox has ended${response.task_result.exception ? `: ${response.task_result.exception}` : ''}`,
      );
  }
  throw new EnvironmentDriverError('unavailable', `the sandbox ${sandboxId} has not started (Modal has not scheduled it yet)`);
}

interface RawExec {
  exitCode: number | null;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
}

interface RawExecRequest extends ShellCommand {
  /** Without the wrapper: no process id line, no marker (the kill and stop scripts themselves). */
  raw?: boolean;
}

/** Sends standard input in order (each piece at its byte offset), then its end (always: a command reading it must not wait forever). */
async function sendInput(api: ModalApi, taskId: string, execId: string, stdin: Buffer | string | undefined) {
  const data = stdin === undefined ? Buffer.alloc(0) : Buffer.isBuffer(stdin) ? stdin : Buffer.from(stdin);
  for (let offset = 0; offset < data.length; offset += STDIN_CHUNK_BYTES) {
    const piece = data.subarray(offset, offset + STDIN_CHUNK_BYTES);
    const last = offset + piece.length >= data.length;
    await api.routerUnary(taskId, 'TaskExecStdinWrite', { task_id: taskId, exec_id: execId, offset, data: piece, eof: last });
    if (last) return;
  }
  await api.routerUnary(taskId, 'TaskExecStdinWrite', {
    task_id: taskId,
    exec_id: execId,
    offset: data.length,
    data: Buffer.alloc(0),
    eof: true,
  });
}

/** Starts a command in the sandbox's task through its command router, feeds its standard input and reads both output streams to their end. */
async function runInSandbox(api: ModalApi, sandboxId: string, req: RawExecRequest): Promise<RawExec> {
  const taskId = await taskOf(api, sandboxId).catch(modalProblem);
  for (const key of Object.keys(req.env ?? {}))
    if (!ENV_NAME.test(key)) throw new EnvironmentDriverError('invalid_path', `${key} is not an environment variable name`);
  // The exec id is the client's: it names the command in every later call.
  const execId = randomUUID();
  await api
    .routerUnary(taskId, 'TaskExecStart', {
      task_id: taskId,
      exec_id: execId,
      command_args: req.raw ? [...req.argv] : ['/bin/sh', '-c', EXEC_WRAPPER, 'wsa-exec', ...req.argv],
      stdout_config: STDOUT_PIPE,
      stderr_config: STDERR_PIPE,
      // Modal's own limit is a backstop: the driver kills the command at its timeout itself.
      timeout_secs: Math.ceil(req.timeoutMs / 1000) + 30,
      workdir: req.cwd,
      // The marker lets stop find every command the service started (not the kill and stop commands).
      env: { ...(req.raw ? {} : { WSA_COMMAND: sandboxId }), ...(req.env ?? {}) },
    })
    .catch(modalProblem);
  const stdout = new OutputBuffer(req.maxOutputBytes);
  const stderr = new OutputBuffer(req.maxOutputBytes);
  // The wrapper's first line is the command's process id, not the command's output (a command run
  // without the wrapper reports none, and is not killed).
  const reported = new ReportedProcessId(
    (pid) => void runInSandbox(api, sandboxId, { ...killTreeCommand(pid), raw: true }).catch(() => undefined),
  );
  const take = (stream: 'stdout' | 'stderr', payload: Buffer) => {
    if (stream === 'stderr' && !req.raw) {
      payload = reported.stderr(payload);
      if (!payload.length) return;
    }
    (stream === 'stdout' ? stdout : stderr).push(payload);
    req.onOutput?.(stream, payload);
  };
  const streams = new AbortController();
  const watch = watchForKill({
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    graceMs: KILL_GRACE_MS,
    // The process id may not have arrived yet: then the kill goes out as soon as it does.
    kill: () => reported.kill(),
    giveUp: () => streams.abort(),
  });
  /** One output stream to its end (the command closed it); a broken stream is asked again from the offset it reached. */
  const read = async (fd: number) => {
    let offset = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        await api.routerStream(
          taskId,
          'TaskExecStdioRead',
          () => ({ task_id: taskId, exec_id: execId, offset, file_descriptor: fd }),
          (message) => {
            const data = Buffer.from((message.data as Buffer | undefined) ?? Buffer.alloc(0));
            offset += data.length;
            if (data.length) take(fd === STDIO_STDOUT ? 'stdout' : 'stderr', data);
            if (drainTimer) armDrain();
          },
          { timeoutMs: STREAM_TIMEOUT_MS, signal: streams.signal },
        );
        return;
      } catch (error) {
        if (streams.signal.aborted) return;
        if (!(error instanceof ModalApiError && error.unreachable) || attempt >= STREAM_RESUMES) throw error;
      }
    }
  };
  let exit: { code?: number; signal?: number } | null = null;
  let drainTimer: NodeJS.Timeout | undefined;
  const armDrain = () => {
    clearTimeout(drainTimer);
    drainTimer = setTimeout(() => streams.abort(), DRAIN_MS);
  };
  /** The exit status: TaskExecWait answers when the command has ended (asked again while it waits). */
  const wait = async () => {
    while (!exit && !streams.signal.aborted) {
      const waited = await api
        .routerUnary(taskId, 'TaskExecWait', { task_id: taskId, exec_id: execId }, { timeoutMs: WAIT_TIMEOUT_MS, signal: streams.signal })
        .catch((error: unknown) => {
          if (streams.signal.aborted) return null;
          if (error instanceof ModalApiError && error.code === GRPC_DEADLINE_EXCEEDED) return null;
          throw error;
        });
      if (waited?.exit_status === 'code') exit = { code: Number(waited.code) };
      else if (waited?.exit_status === 'signal') exit = { signal: Number(waited.signal) };
    }
    // A process the command left running in the background may hold its output open: once the
    // command has ended, the streams are given up when nothing has arrived for a moment.
    if (exit) armDrain();
  };
  try {
    await Promise.all([
      wait(),
      read(STDIO_STDOUT),
      read(STDIO_STDERR),
      sendInput(api, taskId, execId, req.stdin).catch((error: unknown) => {
        // A command that ends before reading its input refuses the rest: that is its business.
        if (!(error instanceof ModalApiError) || error.unreachable) throw error;
      }),
    ]);
  } catch (error) {
    modalProblem(error);
  } finally {
    clearTimeout(drainTimer);
    watch.dispose();
  }
  if (!req.raw) {
    const unended = reported.end();
    if (unended.length) take('stderr', unended);
  }
  // (Set inside `wait`, which the compiler does not follow.)
  const ended = exit as { code?: number; signal?: number } | null;
  const exitCode = ended?.code ?? (ended?.signal !== undefined ? 128 + ended.signal : null);
  return { exitCode, stdout, stderr, timedOut: watch.timedOut, aborted: watch.aborted };
}

const exec: EnvironmentDriver['exec'] = async (ctx, instance, request) => {
  const started = Date.now();
  const raw = await runInSandbox(apiOf(ctx), instance.instanceId, shellCommandOf(request, instance.workingDirectory));
  return execResultOf(raw, started);
};

/** The sandbox's file scripts for the shell-file adapter. */
function fileScripts(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): FileScriptRunner {
  return (run) =>
    runInSandbox(apiOf(ctx), instance.instanceId, {
      argv: run.argv,
      cwd: '/',
      stdin: run.stdin,
      timeoutMs: run.timeoutMs,
      maxOutputBytes: run.maxOutputBytes,
    });
}

/** Builds (or finds already built) the image of a registry tag for the app; a failed build fails provisioning with Modal's sentence. */
async function buildImage(api: ModalApi, appId: string, image: string, builderVersion: string, signal?: AbortSignal): Promise<string> {
  const created = await api.unary(
    'ImageGetOrCreate',
    { app_id: appId, image: { dockerfile_commands: [`FROM ${image}`] }, builder_version: builderVersion },
    { signal },
  );
  const imageId = String(created.image_id);
  let result = created.result?.status ? created.result : null;
  let lastEntryId = '';
  // Not built yet: join the build until Modal reports its result.
  while (!result) {
    signal?.throwIfAborted();
    await api.stream(
      'ImageJoinStreaming',
      { image_id: imageId, timeout: SERVER_WAIT_S, last_entry_id: lastEntryId },
      (message) => {
        if (message.entry_id) lastEntryId = String(message.entry_id);
        if (message.result?.status) result = message.result;
      },
      { timeoutMs: (SERVER_WAIT_S + 10) * 1000, signal },
    );
  }
  const status = (result as { status: number; exception?: string }).status;
  if (status !== SUCCESS)
    throw new Error(
      `Modal could not build the image ${image}: ${(result as { exception?: string }).exception || `build status ${status}`}`,
    );
  return imageId;
}

/** The sandbox an instance names: its id, or — for an environment whose provisioning failed before the id was recorded — its name. */
async function sandboxIdOf(api: ModalApi, settings: ModalSettings, instance: EnvironmentInstance): Promise<string | null> {
  if (instance.instanceId.startsWith('sb-')) return instance.instanceId;
  const found = await api
    .unary('SandboxGetFromName', {
      sandbox_name: sandboxName(instance.instanceId),
      environment_name: settings.environment,
      app_name: settings.appName,
    })
    .catch((error: unknown) => {
      if (error instanceof ModalApiError && error.code === GRPC_NOT_FOUND) return null;
      throw error;
    });
  return found?.sandbox_id ? String(found.sandbox_id) : null;
}

export const modalEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const api = apiOf(ctx);
    const settings = settingsOf(ctx);
    const config = documents.template(request.config);
    const image = config.image;
    const workingDirectory = workingDirectoryOf(config, DEFAULT_SANDBOX_WORKING_DIRECTORY, 'sandbox');
    const signal = request.signal;
    // The environment's settings carry the image builder version images are built with.
    const environment = await api.unary(
      'EnvironmentGetOrCreate',
      { deployment_name: settings.environment, object_creation_type: 0 },
      { signal },
    );
    const builderVersion = String(environment.metadata?.settings?.image_builder_version ?? '');
    const app = await api.unary(
      'AppGetOrCreate',
      { app_name: settings.appName, environment_name: settings.environment, object_creation_type: CREATE_IF_MISSING },
      { signal },
    );
    const appId = String(app.app_id);
    const imageId = await buildImage(api, appId, image, builderVersion, signal);
    const { cpu, memory_mb: memoryMb, timeout_seconds: timeout = DEFAULT_SANDBOX_TIMEOUT_S } = config;
    const name = sandboxName(request.environmentId);
    let sandboxId: string;
    try {
      const created = await api.unary(
        'SandboxCreate',
        {
          app_id: appId,
          definition: {
            entrypoint_args: IDLE_PROCESS,
            image_id: imageId,
            resources: {
              ...(cpu !== undefined ? { milli_cpu: Math.round(cpu * 1000) } : {}),
              ...(memoryMb !== undefined ? { memory_mb: memoryMb } : {}),
            },
            timeout_secs: timeout,
            name,
            environment_variables: { contents: config.env ?? {} },
          },
          tags: [{ tag_name: 'workspace-agent-service.environment-id', tag_value: request.environmentId }],
        },
        { signal },
      );
      sandboxId = String(created.sandbox_id);
    } catch (error) {
      // Provisioned before (idempotent per environment id): a running sandbox already has the name.
      if (!(error instanceof ModalApiError && error.code === GRPC_ALREADY_EXISTS)) throw error;
      const found = await api.unary(
        'SandboxGetFromName',
        { sandbox_name: name, environment_name: settings.environment, app_name: settings.appName },
        { signal },
      );
      sandboxId = String(found.sandbox_id);
    }
    await taskOf(api, sandboxId, TASK_WAITS, signal);
    // The working directory is made by a command (from `/`, with a relative path like the file
    // commands), so it exists whatever the image has.
    const made = await runInSandbox(api, sandboxId, {
      argv: ['mkdir', '-p', '--', fromRoot(workingDirectory)],
      cwd: '/',
      timeoutMs: CHORE_TIMEOUT_MS,
      maxOutputBytes: 4096,
    });
    if (made.exitCode !== 0)
      throw new Error(`could not create ${workingDirectory} in the sandbox: ${made.stderr.text().trim() || `exit code ${made.exitCode}`}`);
    return { instanceId: sandboxId, workingDirectory };
  },
  exec,
  ...shellFiles({ runnerOf: fileScripts, place: 'sandbox', content: 'bytes' }),
  async stop(ctx, instance) {
    // Modal cannot pause a sandbox (terminating it loses its files), so stop ends what the service
    // started in it and leaves the sandbox idling with its files until DELETE or its timeout.
    const api = apiOf(ctx);
    const raw = await runInSandbox(api, instance.instanceId, {
      argv: ['/bin/sh', '-c', KILL_MARKED, 'wsa-stop', instance.instanceId],
      cwd: '/',
      timeoutMs: CHORE_TIMEOUT_MS,
      maxOutputBytes: 4096,
      raw: true,
    }).catch((error: unknown) => {
      // A sandbox that is gone runs nothing: stopping it is done.
      if (error instanceof EnvironmentDriverError && /is gone|has ended/.test(error.message)) return null;
      throw error;
    });
    if (raw && raw.exitCode !== 0)
      throw new EnvironmentDriverError('unavailable', `could not stop the commands in the sandbox: ${raw.stderr.text().trim()}`);
  },
  async start(ctx, instance) {
    // A stopped environment's sandbox kept running with its files (see stop): starting is finding
    // its task again. A sandbox that has ended since (its timeout, or terminated outside the
    // service) cannot come back with its files.
    const api = apiOf(ctx);
    taskIds.delete(instance.instanceId);
    await taskOf(api, instance.instanceId).catch(modalProblem);
    return instance;
  },
  async destroy(ctx, instance) {
    const api = apiOf(ctx);
    const settings = settingsOf(ctx);
    try {
      const sandboxId = await sandboxIdOf(api, settings, instance);
      if (!sandboxId) return;
      await api.unary('SandboxTerminate', { sandbox_id: sandboxId });
      taskIds.delete(sandboxId);
    } catch (error) {
      // Terminated or expired already: destroyed.
      if (error instanceof ModalApiError && error.code === GRPC_NOT_FOUND) return;
      modalProblem(error);
    }
  },
};

// ── the type ──
// Members are ordered so the type's description only grows (the REST golden file compares it member by member).
registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'modal',
    title: 'Modal sandboxes',
    configuration: ModalConfig,
    credential: ModalCredential,
    credentialRequired: true,
    setupUrl: 'https://modal.com/settings/tokens',
    endpointFields: ['server_url'],
    environment: {
      environmentSchema: jsonSchemaOf(ModalTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: modalEnvironmentDriver,
    },
  }),
);
