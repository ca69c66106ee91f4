// The `envd` environment type: an instance is a directory on a paired device — a user's own machine
// running the envd daemon with --allow-environments — and commands run there as the daemon's
// subprocesses. The driver reaches the device only through the DeviceBridge in its context
// (../device-bridge.ts), which relays each operation over the device's websocket; the daemon
// confines every path to its roots and to the environment's directory (symbolic links included).
//
// Layout on the device: the template's `root` (a directory inside the daemon's roots) holds
// `.wsa-environments/<environment id>`, the instance; `instance_id` is that directory's real path
// on the device, and commands start in its `working_directory` subdirectory.
import { posix } from 'node:path';
import { AppError } from '../../lib/errors.js';
import { DeviceBridgeError, type DeviceBridge, type DeviceRequestOptions } from '../device-bridge.js';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
} from '../environment-driver.js';
import { fileKindOf, subdirectoryOf } from './instance-files.js';
import Type from 'typebox';
import { NoConfiguration, NoCredential } from '../common-schemas.js';
import { environmentDocuments, relativeWorkingDirectoryMember, stringMapMember } from './template-schema.js';

/** An envd template's config: the device, the directory on it that holds the instances, where commands start, their variables. */
export const EnvdTemplate = Type.Object(
  {
    device_id: Type.String({
      description: 'a paired device of the workspace (dev_…) whose daemon runs with --allow-environments',
      pattern: '^dev_[A-Za-z0-9]{1,64}$',
    }),
    root: Type.String({
      description:
        "an absolute directory on the device inside the daemon's roots; each environment gets its own directory .wsa-environments/<environment id> under it",
      maxLength: 4096,
      pattern: '^/',
    }),
    working_directory: relativeWorkingDirectoryMember(),
    env: Type.Optional(stringMapMember("environment variables of every command (the daemon's own are never passed on)", 100)),
  },
  { additionalProperties: false },
);
const documents = environmentDocuments({ configuration: NoConfiguration, credential: NoCredential, template: EnvdTemplate });

export const ENVIRONMENTS_DIRECTORY = '.wsa-environments';
/** Raw bytes per write request: base64 keeps each request well inside the 4 MiB frame limit. */
const WRITE_CHUNK_BYTES = 1024 * 1024;
/** The daemon kills a command at its timeout; its answer may take this much longer to arrive. */
const EXEC_ANSWER_GRACE_MS = 30_000;

const inside = (root: string, path: string) => {
  const rel = posix.relative(root, path);
  return rel === '' || (!rel.startsWith('../') && rel !== '..' && !posix.isAbsolute(rel));
};

/** A daemon's or the bridge's refusal as what the caller can act on. */
function problem(error: unknown): never {
  if (!(error instanceof DeviceBridgeError)) throw error;
  switch (error.code) {
    case 'outside_roots':
    case 'invalid_path':
      throw new EnvironmentDriverError('invalid_path', error.message);
    case 'not_found':
      throw new EnvironmentDriverError('not_found', error.message);
    case 'not_a_file':
      throw new EnvironmentDriverError('not_a_file', error.message);
    case 'not_a_directory':
      throw new EnvironmentDriverError('not_a_directory', error.message);
    case 'unknown_method':
    case 'invalid_request':
      throw new EnvironmentDriverError('unavailable', `the device's daemon cannot run environments (update envd): ${error.message}`);
    default:
      // unknown_device, revoked, offline, no_answer, environments_disabled, the daemon's failures
      throw new EnvironmentDriverError('unavailable', error.message);
  }
}

function deviceOf(ctx: EnvironmentDriverContext): { bridge: DeviceBridge; workspaceId: string; deviceId: string } {
  if (!ctx.devices || !ctx.workspaceId)
    throw new EnvironmentDriverError(
      'unavailable',
      'this process cannot reach paired devices (only the service instance that holds their connection can)',
    );
  return { bridge: ctx.devices, workspaceId: ctx.workspaceId, deviceId: documents.template(ctx.environmentConfig).device_id };
}

async function call(
  ctx: EnvironmentDriverContext,
  method: string,
  params: Record<string, unknown>,
  options?: DeviceRequestOptions,
): Promise<Record<string, unknown>> {
  const { bridge, workspaceId, deviceId } = deviceOf(ctx);
  try {
    return ((await bridge.request(workspaceId, deviceId, method, params, options)) ?? {}) as Record<string, unknown>;
  } catch (error) {
    problem(error);
  }
}

/** The instance's directory on the device: its id once provisioned, else where provisioning puts it. */
function scopeOf(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): string {
  if (posix.isAbsolute(instance.instanceId)) return instance.instanceId;
  return posix.join(documents.template(ctx.environmentConfig).root, ENVIRONMENTS_DIRECTORY, instance.instanceId);
}

/** A caller's path on the device: relative to the working directory, never leaving the instance (lexically; the daemon checks links). */
function confine(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, path: string): { scope: string; path: string } {
  const scope = scopeOf(ctx, instance);
  const target = posix.resolve(instance.workingDirectory || scope, path || '.');
  if (!inside(scope, target)) throw new EnvironmentDriverError('invalid_path', `${path} is outside the environment`);
  return { scope, path: target };
}

const environmentIdOf = (ctx: EnvironmentDriverContext, instance: EnvironmentInstance) => posix.basename(scopeOf(ctx, instance));

/** Whether the device can no longer be reached at all (revoked, or not the workspace's): nothing of the instance can be touched. */
async function deviceGone(ctx: EnvironmentDriverContext): Promise<boolean> {
  const { bridge, workspaceId, deviceId } = deviceOf(ctx);
  const device = await bridge.find(workspaceId, deviceId);
  return !device || device.status !== 'active';
}

export const envdEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const root = String(request.config.root);
    const sub = subdirectoryOf(request.config);
    const made = await call(ctx, 'make_directory', {
      environment_id: request.environmentId,
      scope: root,
      path: posix.join(root, ENVIRONMENTS_DIRECTORY, request.environmentId),
    });
    const instanceRoot = String(made.path);
    if (!sub) return { instanceId: instanceRoot, workingDirectory: instanceRoot };
    const working = await call(ctx, 'make_directory', {
      environment_id: request.environmentId,
      scope: instanceRoot,
      path: posix.join(instanceRoot, sub),
    });
    return { instanceId: instanceRoot, workingDirectory: String(working.path) };
  },

  async exec(ctx, instance, request) {
    const { scope, path: cwd } = confine(ctx, instance, request.cwd ?? '.');
    const onOutput = request.onOutput;
    const result = await call(
      ctx,
      'exec',
      {
        environment_id: environmentIdOf(ctx, instance),
        scope,
        cwd,
        command: request.command,
        env: { ...documents.template(ctx.environmentConfig).env, ...(request.env ?? {}) },
        stdin: request.stdin ?? '',
        timeout_ms: request.timeoutMs,
        max_output_bytes: request.maxOutputBytes,
        stream: Boolean(onOutput),
      },
      {
        timeoutMs: request.timeoutMs + EXEC_ANSWER_GRACE_MS,
        signal: request.signal,
        onFrame: onOutput
          ? (frame) => {
              if (frame.type === 'output' && (frame.stream === 'stdout' || frame.stream === 'stderr') && typeof frame.data === 'string')
                onOutput(frame.stream, Buffer.from(frame.data, 'base64'));
            }
          : undefined,
      },
    );
    const decode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : '', 'base64').toString('utf8');
    return {
      exitCode: typeof result.exit_code === 'number' ? result.exit_code : null,
      signal: typeof result.signal === 'string' ? result.signal : null,
      stdout: decode(result.stdout_base64),
      stderr: decode(result.stderr_base64),
      stdoutBytes: Number(result.stdout_bytes) || 0,
      stderrBytes: Number(result.stderr_bytes) || 0,
      truncated: result.truncated === true,
      timedOut: result.timed_out === true,
      aborted: result.aborted === true,
      durationMs: Number(result.duration_ms) || 0,
    };
  },

  async readFile(ctx, instance, path, options) {
    const chunks: Buffer[] = [];
    const answer = await call(
      ctx,
      'read_file',
      { ...confine(ctx, instance, path), max_bytes: options.maxBytes },
      {
        // The content arrives in `chunk` frames before the answer.
        onFrame: (frame) => {
          if (frame.type === 'chunk' && typeof frame.data === 'string') chunks.push(Buffer.from(frame.data, 'base64'));
        },
      },
    );
    const content = Buffer.concat(chunks);
    return { content, sizeBytes: Number(answer.size_bytes) || 0, truncated: answer.truncated === true };
  },

  async writeFile(ctx, instance, path, content) {
    const bytes = typeof content === 'string' ? Buffer.from(content) : content;
    const target = confine(ctx, instance, path);
    // The first request replaces the file, later ones append: each stays within the frame limit.
    for (let offset = 0; offset === 0 || offset < bytes.length; offset += WRITE_CHUNK_BYTES) {
      await call(ctx, 'write_file', {
        ...target,
        content_base64: bytes.subarray(offset, offset + WRITE_CHUNK_BYTES).toString('base64'),
        append: offset > 0,
      });
    }
    return { sizeBytes: bytes.length };
  },

  async listFiles(ctx, instance, path, options) {
    const answer = await call(ctx, 'list_files', { ...confine(ctx, instance, path), depth: options.depth, limit: options.limit });
    const entries = (Array.isArray(answer.entries) ? answer.entries : []).map((entry: Record<string, unknown>) => ({
      path: String(entry.path),
      kind: fileKindOf(entry.kind),
      sizeBytes: Number(entry.size_bytes) || 0,
      modifiedAt: String(entry.modified_at),
    }));
    return { entries, truncated: answer.truncated === true };
  },

  async stop(ctx, instance) {
    // A revoked device's daemon was disconnected, and a daemon kills its commands when its connection ends.
    if (await deviceGone(ctx)) return;
    await call(ctx, 'stop', { environment_id: environmentIdOf(ctx, instance) });
  },

  /** Nothing keeps running between commands: a stopped environment starts again once its directory is still there. */
  async start(ctx, instance) {
    await call(ctx, 'list_files', { ...confine(ctx, instance, '.'), depth: 1, limit: 1 });
    return instance;
  },

  async destroy(ctx, instance) {
    // A revoked device can never be reached again: the environment is destroyed as far as the
    // service is concerned, and its directory stays on the device for its owner to remove.
    if (await deviceGone(ctx)) return;
    await call(ctx, 'remove_directory', { environment_id: environmentIdOf(ctx, instance), path: scopeOf(ctx, instance) });
  },
};

/** A template's device must be a paired device of the workspace (404 naming `config.device_id` otherwise). */
export async function checkEnvdConfig(
  ctx: { workspaceId: string; devices: DeviceBridge | null },
  config: Record<string, unknown>,
): Promise<void> {
  const deviceId = String(config.device_id);
  const device = ctx.devices ? await ctx.devices.find(ctx.workspaceId, deviceId) : null;
  if (!device) throw new AppError('not_found', `device ${deviceId} not found`, { field: 'config.device_id' });
  if (device.status !== 'active') throw new AppError('failed_precondition', `device ${deviceId} is revoked`, { field: 'config.device_id' });
}
