// The `docker` environment type: an instance is a container made by a Docker Engine API (the
// provider's `endpoint`: a unix socket or TCP, TLS from the credential). Provisioning creates and
// starts a container from the template's image (pulling it when the engine does not have it) and
// keeps it alive with an idle process; commands run through the engine's exec API with their
// standard streams on the hijacked connection; files are read, written and listed by small POSIX
// shell commands run the same way (the shell-file adapter, ./shell-files.ts), so any image with
// /bin/sh (and `find`, `stat`, `wc`, `head` for listing and reading) works. Stop stops the container (its files stay), start starts it again,
// destroy removes it.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
} from '../environment-driver.js';
import { EndMarkerFilter } from './end-marker.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import type { OutboundPolicy } from '../../lib/outbound-policy.js';
import { engineCall, EngineError, engineUpgrade, pullImage, StreamDemultiplexer, type EngineEndpoint } from './docker-engine.js';
import { watchForKill } from './kill-watch.js';
import { imageOf, workingDirectoryOf } from './instance-files.js';
import { execResultOf, IDLE_PROCESS, killTreeCommand, ReportedProcessId, shellCommandOf, type ShellCommand } from './shell-commands.js';
import { fromRoot, shellFiles, type FileScriptRunner } from './shell-files.js';
import Type from 'typebox';
import { environmentDocuments, imageTemplateSchema } from './template-schema.js';

/** Where commands start when the template names no `working_directory` (the engine creates it). */
export const DEFAULT_CONTAINER_WORKING_DIRECTORY = '/workspace';
/** Engine calls other than a command's own stream give up after this long. */
const ENGINE_TIMEOUT_MS = 60_000;
/** How long a killed command's stream may take to close before the driver stops waiting. */
const KILL_GRACE_MS = 5_000;
/** How often the exit code is asked for (100 ms apart) while the engine still reports the exec running. */
const EXIT_CODE_ATTEMPTS = 20;
/** How often a read-only file operation runs when the engine lost its output (see runInContainer). */
const LOST_OUTPUT_ATTEMPTS = 3;
/** The sentence for output an engine lost, in errors and in a command's standard error. */
const LOST_OUTPUT = "the container engine lost the command's output";

// Every command starts through this: it reports its own process id on standard error first, so a
// timeout or an abort can kill it (the engine's exec API has no kill), runs the command, and prints
// the marker (its first argument) on standard output before and after it, exiting with the command's
// code. A busy engine (Podman's compatible service on a loaded machine) may lose an exec's output —
// its beginning, its end, or all of it — while the exit code says success: a missing marker is how
// the driver notices.
// Before anything, it waits for one line on standard input, which the driver sends as soon as the
// stream is attached: Podman drops what a command writes before the stream is attached.
const EXEC_WRAPPER = 'm=$1; shift; read -r _; printf %s "$m"; echo "$$" >&2; "$@"; s=$?; printf %s "$m"; exit $s';
/** The container engine provider's config: the engine's endpoint. */
export const DockerConfig = Type.Object(
  { endpoint: Type.String({ pattern: '^(unix://|https?://|tcp://)' }) },
  { additionalProperties: false },
);
/** Its credential: the TLS material of an engine reached over TLS. */
export const DockerCredential = Type.Object(
  {
    tls_ca: Type.Optional(Type.String()),
    tls_cert: Type.Optional(Type.String()),
    tls_key: Type.Optional(Type.String({ writeOnly: true })),
  },
  { additionalProperties: false },
);
// The container engine's template config.
export const DockerTemplate = imageTemplateSchema(
  {
    image: 'the image the container starts from (pulled when the engine does not have it), e.g. alpine:3.20',
    workingDirectory: 'an absolute path inside the container where commands start (default /workspace; created by the engine)',
    env: 'environment variables of the container and every command',
  },
  {
    cpu: Type.Optional(Type.Number({ description: 'CPUs the container may use (e.g. 1.5)', exclusiveMinimum: 0, maximum: 256 })),
    memory_mb: Type.Optional(Type.Integer({ description: 'memory limit in MiB', minimum: 6, maximum: 1048576 })),
  },
);
const documents = environmentDocuments({ configuration: DockerConfig, credential: DockerCredential, template: DockerTemplate });

/** How the engine is reached: the provider's endpoint with its TLS material, through the outbound policy (shared with the provider test). */
export function engineEndpoint(
  config: { endpoint: string },
  credential: { tls_ca?: string; tls_cert?: string; tls_key?: string } | null,
  outbound: OutboundPolicy,
): EngineEndpoint {
  return { endpoint: config.endpoint, tls: { ca: credential?.tls_ca, cert: credential?.tls_cert, key: credential?.tls_key }, outbound };
}

function endpointOf(ctx: EnvironmentDriverContext): EngineEndpoint {
  return engineEndpoint(documents.config(ctx), documents.credential(ctx), ctx.outbound);
}

/**
 * An engine problem during work as a state the caller can act on (the service answers it with
 * `failed_precondition`), not the service's failure: a vanished or stopped container, an engine
 * that cannot be reached or refuses.
 */
function engineProblem(error: unknown): never {
  if (error instanceof EnvironmentDriverError) throw error;
  if (error instanceof EngineError && error.status === 404)
    throw new EnvironmentDriverError('unavailable', 'the environment has no container (removed outside the service?)');
  throw new EnvironmentDriverError('unavailable', (error as Error).message);
}

/**
 * The container an instance names: its id, or — for an environment whose provisioning failed before
 * the container's id was recorded (the service then passes the environment's id) — its name.
 */
function containerRef(instance: EnvironmentInstance): string {
  return /^[0-9a-f]{12,64}$/.test(instance.instanceId) ? instance.instanceId : `wsa-${instance.instanceId}`;
}

interface RawExec {
  exitCode: number | null;
  /** Whether the command's wrapper ran (it reported its process id): false when the engine could not start it at all. */
  started: boolean;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
  /** Whether standard output began and ended with the marker: false when the engine lost (part of) it, or the command was killed. */
  complete: boolean;
}

/** Creates an exec, starts it on a hijacked connection and reads its frames to the end. */
async function runInContainer(target: EngineEndpoint, containerId: string, req: ShellCommand): Promise<RawExec> {
  // Random per exec, so no command's own output ends with it by chance.
  const marker = `<wsa-end-${randomBytes(12).toString('hex')}>`;
  const created = await engineCall<{ Id: string }>(target, {
    method: 'POST',
    path: `/containers/${encodeURIComponent(containerId)}/exec`,
    body: {
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      Cmd: ['/bin/sh', '-c', EXEC_WRAPPER, 'wsa-exec', marker, ...req.argv],
      Env: Object.entries(req.env ?? {}).map(([key, value]) => `${key}=${value}`),
      WorkingDir: req.cwd,
    },
    timeoutMs: ENGINE_TIMEOUT_MS,
  }).catch(engineProblem);
  const execId = created.body.Id;
  const socket = await engineUpgrade(target, {
    method: 'POST',
    path: `/exec/${encodeURIComponent(execId)}/start`,
    body: { Detach: false, Tty: false },
  }).catch(engineProblem);
  const stdout = new OutputBuffer(req.maxOutputBytes);
  const stderr = new OutputBuffer(req.maxOutputBytes);
  const markerBytes = Buffer.from(marker);
  // Standard output's first bytes until they can be compared with the marker (null once they were).
  let head: Buffer | null = Buffer.alloc(0);
  let startSeen = false;
  const stdoutFilter = new EndMarkerFilter(markerBytes, (payload) => {
    stdout.push(payload);
    req.onOutput?.('stdout', payload);
  });
  // Standard error's first line: the wrapper's process id, or — when the engine could not start the
  // wrapper at all — the engine's own error sentence (Podman sends the runtime's error there).
  const reported = new ReportedProcessId((pid) => void runInContainer(target, containerId, killTreeCommand(pid)).catch(() => undefined));
  const demux = new StreamDemultiplexer((stream, payload) => {
    if (stream === 'stderr') {
      payload = reported.stderr(payload);
      if (!payload.length) return;
    }
    if (stream === 'stdout') {
      if (head) {
        head = Buffer.concat([head, payload]);
        if (head.length < markerBytes.length) return;
        startSeen = head.subarray(0, markerBytes.length).equals(markerBytes);
        payload = startSeen ? head.subarray(markerBytes.length) : head;
        head = null;
        if (!payload.length) return;
      }
      return stdoutFilter.push(payload);
    }
    stderr.push(payload);
    req.onOutput?.(stream, payload);
  });
  const watch = watchForKill({
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    graceMs: KILL_GRACE_MS,
    // The process id may not have arrived yet (its stream and standard output are separate).
    kill: () => reported.kill(),
    giveUp: () => socket.destroy(),
  });
  try {
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => demux.push(chunk));
      socket.once('close', () => resolve());
      socket.once('error', () => resolve());
      socket.once('end', () => {
        socket.destroy();
        resolve();
      });
      // Standard input goes out whole, then is closed (the engine closes the command's stdin).
      // The wrapper's go-ahead line first (see EXEC_WRAPPER); without standard input, it is closed at once.
      socket.write('\n');
      socket.end(req.stdin ?? '');
    });
  } finally {
    watch.dispose();
  }
  const { timedOut, aborted } = watch;
  // Output shorter than the marker: the start marker's beginning is dropped (the output is incomplete anyway).
  if (head?.length && !markerBytes.subarray(0, head.length).equals(head)) stdoutFilter.push(head);
  const complete = stdoutFilter.end() && startSeen;
  // An engine sentence without a line end is still standard error.
  const unended = reported.end();
  if (unended.length) {
    stderr.push(unended);
    req.onOutput?.('stderr', unended);
  }
  let exitCode: number | null = null;
  // The engine may close the stream a moment before it records the exit code: ask again briefly.
  for (let attempt = 0; !timedOut && !aborted && attempt < EXIT_CODE_ATTEMPTS; attempt++) {
    const inspected = await engineCall<{ ExitCode: number | null; Running: boolean }>(target, {
      method: 'GET',
      path: `/exec/${encodeURIComponent(execId)}/json`,
      timeoutMs: ENGINE_TIMEOUT_MS,
    }).catch(engineProblem);
    if (!inspected.body.Running) {
      exitCode = inspected.body.ExitCode;
      break;
    }
    await delay(100);
  }
  return { exitCode, started: reported.pid !== null, stdout, stderr, timedOut, aborted, complete };
}

const exec: EnvironmentDriver['exec'] = async (ctx, instance, request) => {
  const started = Date.now();
  const target = endpointOf(ctx);
  const command = shellCommandOf(request, instance.workingDirectory);
  const raw = await runInContainer(target, containerRef(instance), command);
  const killed = raw.timedOut || raw.aborted;
  if (!raw.started && !killed && raw.exitCode !== 0) await requireDirectory(target, instance, command.cwd, request.cwd ?? '.');
  // The command ran (its process id arrived, or it exited 0) but a marker did not arrive: the engine
  // lost output. A command may have side effects, so it is not run again; the result says so.
  const lost = !killed && !raw.complete && raw.exitCode !== null && (raw.started || raw.exitCode === 0);
  if (lost) {
    const note = Buffer.from(
      `${raw.stderr.kept && !raw.stderr.text().endsWith('\n') ? '\n' : ''}[${LOST_OUTPUT}: what it wrote may be incomplete]\n`,
    );
    raw.stderr.push(note);
    request.onOutput?.('stderr', note);
  }
  // The engine reports a signal's end as 128 + the signal's number (137: SIGKILL); a kill of the
  // driver's own is answered as SIGKILL whatever the engine reported.
  return execResultOf(raw, started, lost);
};

/**
 * After an exec the engine could not start: whether its working directory was the reason. Engines
 * say so differently (Docker: the runtime's `chdir … no such file or directory` and exit code 126;
 * Podman's compatible service: exit code 127 and a broken attach stream), so the driver asks the
 * container itself, and a missing directory is the caller's `not_a_directory` as with every type.
 */
async function requireDirectory(target: EngineEndpoint, instance: EnvironmentInstance, directory: string, named: string) {
  const check = await runInContainer(target, containerRef(instance), {
    argv: ['/bin/sh', '-c', '[ -d "$1" ]', 'wsa-cwd', fromRoot(directory)],
    cwd: '/',
    timeoutMs: ENGINE_TIMEOUT_MS,
    maxOutputBytes: 1024,
  });
  if (check.started && check.exitCode === 1) throw new EnvironmentDriverError('not_a_directory', `${named} is not a directory`);
}

/**
 * The container's file scripts for the shell-file adapter. A read-only script (its output is the
 * answer) whose output the engine lost runs again, a few times; if the output is still lost the
 * operation fails as `unavailable`, never answering with partial data. A write's answer is its exit
 * code alone.
 */
function fileScripts(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): FileScriptRunner {
  return async (run) => {
    for (let attempt = 1; ; attempt++) {
      const raw = await runInContainer(endpointOf(ctx), containerRef(instance), {
        argv: run.argv,
        cwd: '/',
        stdin: run.stdin,
        timeoutMs: run.timeoutMs,
        maxOutputBytes: run.maxOutputBytes,
      });
      if (!run.readOnly || raw.complete || raw.timedOut || raw.exitCode !== 0) return raw;
      if (attempt >= LOST_OUTPUT_ATTEMPTS)
        throw new EnvironmentDriverError('unavailable', `${LOST_OUTPUT} (${attempt} attempts) for ${run.path}; try again`);
    }
  };
}

/** The id of the container with this name, or null when there is none. */
async function containerByName(target: EngineEndpoint, name: string): Promise<string | null> {
  try {
    const existing = await engineCall<{ Id: string }>(target, {
      method: 'GET',
      path: `/containers/${encodeURIComponent(name)}/json`,
      timeoutMs: ENGINE_TIMEOUT_MS,
    });
    return existing.body.Id;
  } catch (error) {
    if (error instanceof EngineError && error.status === 404) return null;
    throw error;
  }
}

export const dockerEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const target = endpointOf(ctx);
    const image = imageOf(request.config);
    const workingDirectory = workingDirectoryOf(request.config, DEFAULT_CONTAINER_WORKING_DIRECTORY, 'container');
    const name = `wsa-${request.environmentId}`;
    const { cpu, memory_mb: memoryMb, env = {} } = documents.template(request.config);
    const spec = {
      Image: image,
      Cmd: IDLE_PROCESS,
      WorkingDir: workingDirectory,
      Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      Tty: false,
      OpenStdin: false,
      Labels: { 'workspace-agent-service.environment-id': request.environmentId },
      HostConfig: {
        Init: true,
        ...(cpu !== undefined ? { NanoCpus: Math.round(cpu * 1e9) } : {}),
        ...(memoryMb !== undefined ? { Memory: memoryMb * 1024 * 1024 } : {}),
      },
    };
    const create = () =>
      engineCall<{ Id: string }>(target, {
        method: 'POST',
        path: '/containers/create',
        query: { name },
        body: spec,
        timeoutMs: ENGINE_TIMEOUT_MS,
        signal: request.signal,
      });
    let containerId: string;
    try {
      containerId = (await create()).body.Id;
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      if (error.status === 404) {
        await pullImage(target, image, request.signal);
        containerId = (await create()).body.Id;
      } else {
        // Provisioned before (idempotent per environment id): the container already has the name.
        // Docker answers that with 409, Podman's compatible service with 500, so any refusal other
        // than a missing image looks the name up before it counts as the engine's refusal.
        const existing = await containerByName(target, name);
        if (!existing) throw new Error(`the container engine refused the container: ${error.message}`, { cause: error });
        containerId = existing;
      }
    }
    // 204 started, 304 already running.
    await engineCall(target, {
      method: 'POST',
      path: `/containers/${encodeURIComponent(containerId)}/start`,
      timeoutMs: ENGINE_TIMEOUT_MS,
      signal: request.signal,
    });
    return { instanceId: containerId, workingDirectory };
  },
  exec,
  ...shellFiles({ runnerOf: fileScripts, place: 'container', content: 'bytes' }),
  async stop(ctx, instance) {
    await engineCall(endpointOf(ctx), {
      method: 'POST',
      path: `/containers/${encodeURIComponent(containerRef(instance))}/stop`,
      query: { t: '10' },
      timeoutMs: ENGINE_TIMEOUT_MS,
    }).catch((error: unknown) => {
      // Gone already: nothing runs in it.
      if (!(error instanceof EngineError && error.status === 404)) engineProblem(error);
    });
  },
  // Starts the stopped container again: its idle first process comes back, its files are as they
  // were. 304 (already running) is a success too; a container removed outside the service is a
  // state the caller can act on (destroy the environment), not the service's failure.
  async start(ctx, instance) {
    await engineCall(endpointOf(ctx), {
      method: 'POST',
      path: `/containers/${encodeURIComponent(containerRef(instance))}/start`,
      timeoutMs: ENGINE_TIMEOUT_MS,
    }).catch(engineProblem);
    return instance;
  },
  async destroy(ctx, instance) {
    await engineCall(endpointOf(ctx), {
      method: 'DELETE',
      path: `/containers/${encodeURIComponent(containerRef(instance))}`,
      query: { force: 'true', v: 'true' },
      timeoutMs: ENGINE_TIMEOUT_MS,
    }).catch((error: unknown) => {
      if (!(error instanceof EngineError && error.status === 404)) engineProblem(error);
    });
  },
};
