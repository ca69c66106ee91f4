// The `fly` environment type: an instance is a Fly Machine in the provider's app, made through the
// Fly Machines API from the template's image. Its first process makes the working directory and
// idles; commands run through the machine's exec endpoint (an argument vector, a timeout, standard
// input; the answer carries the exit code and both outputs whole), and files through small shell
// commands run the same way (remote-shell.ts). Stop stops the machine (its root file system is kept
// while stopped), start starts it again, destroy deletes it (forced).
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
} from '../environment-driver.js';
import Type from 'typebox';
import { defineProviderType, jsonSchemaOf, registerProviderType } from '../registry.js';
import { uriMember } from '../common-schemas.js';
import { FLY_DEFAULT_BASE_URL, flyCall, FlyError, type FlyExecResponse, type FlyMachine, type FlyTarget } from './fly-machines.js';
import { provisioningProblem, workProblem } from './control-plane.js';
import { vendorIdOf, workingDirectoryOf } from './instance-files.js';
import { remoteExec, remoteFiles, type RemoteTransport } from './remote-shell.js';
import { idleProcess } from './shell-commands.js';
import { environmentDocuments, imageTemplateSchema } from './template-schema.js';

export const FLY_DEFAULT_WORKING_DIRECTORY = '/workspace';
/** API calls other than a command's exec give up after this long. */
const API_TIMEOUT_MS = 60_000;
/** Provisioning (and start) wait at most this long for the machine to be started. */
const START_TIMEOUT_MS = 5 * 60_000;
/** The longest wait one `/wait` call may ask for (the API's limit is 60 seconds). */
const WAIT_SECONDS = 60;
/** Files travel inside JSON (base64 on the exec's standard input and output): larger ones are refused. */
export const FLY_MAX_FILE_BYTES = 8 * 1024 * 1024;
/** The metadata member that names the environment a machine was made for. */
const METADATA_KEY = 'workspace_agent_environment_id';

/** The Fly provider's config: the app machines are made in, the API and the default region. */
const FlyConfig = Type.Object(
  {
    app_name: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$', description: 'the Fly app the machines are made in (create it first)' }),
    base_url: Type.Optional(uriMember('default https://api.machines.dev')),
    region: Type.Optional(Type.String({ pattern: '^[a-z]{3}$', description: 'the default region of new machines' })),
  },
  { additionalProperties: false },
);
const FlyCredential = Type.Object({ api_token: Type.String({ minLength: 1, writeOnly: true }) }, { additionalProperties: false });
// The template's config. Unknown members are refused.
const FlyTemplate = imageTemplateSchema(
  {
    image: 'the image the machine boots from, e.g. registry-1.docker.io/library/alpine:3.20 or registry.fly.io/<app>:<tag>',
    workingDirectory: 'an absolute path inside the machine where commands start (default /workspace; made when the machine boots)',
    env: 'environment variables of the machine and every command',
  },
  {
    cpu_kind: Type.Optional(Type.Enum(['shared', 'performance'], { description: 'shared (default) or performance' })),
    cpus: Type.Optional(Type.Integer({ description: 'CPUs of the machine (default 1)', minimum: 1, maximum: 16 })),
    memory_mb: Type.Optional(Type.Integer({ description: 'memory of the machine in MiB (default 256)', minimum: 256, maximum: 131072 })),
    region: Type.Optional(
      Type.String({ description: "the region the machine runs in (default: the provider's, else Fly's choice)", pattern: '^[a-z]{3}$' }),
    ),
  },
);
const documents = environmentDocuments({ configuration: FlyConfig, credential: FlyCredential, template: FlyTemplate });

function targetOf(ctx: EnvironmentDriverContext): FlyTarget {
  const config = documents.config(ctx);
  return {
    // With or without the version: the client adds `/v1` itself.
    baseUrl: (config.base_url || FLY_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, ''),
    app: config.app_name,
    token: documents.credential(ctx)?.api_token ?? '',
    fetch: ctx.fetch,
  };
}

/** Machine names are lower-case: the environment's id, readable in `fly machines list`. */
const machineName = (environmentId: string) => `wsa-${environmentId.toLowerCase().replace(/_/g, '-')}`;

/** A problem during work: a 404 means the machine is gone. */
function apiProblem(error: unknown): never {
  return workProblem(error, 'machine');
}

/**
 * The machine an instance names: its id, or — for an environment whose provisioning failed before
 * the machine's id was recorded (the service then passes the environment's id) — the one named for it.
 */
async function machineIdOf(target: FlyTarget, instance: EnvironmentInstance): Promise<string | null> {
  return vendorIdOf(instance.instanceId, async (environmentId) => {
    const machines = await flyCall<FlyMachine[]>(target, 'GET', '/machines', { timeoutMs: API_TIMEOUT_MS });
    return (machines ?? []).find((m) => m.name === machineName(environmentId))?.id ?? null;
  });
}

/** Waits (in calls of at most a minute: the API answers 408 when the state did not come) until the machine is in `state`. */
async function waitFor(target: FlyTarget, machine: FlyMachine, state: 'started' | 'stopped', signal?: AbortSignal) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      await flyCall(target, 'GET', `/machines/${encodeURIComponent(machine.id)}/wait`, {
        query: { state, timeout: String(WAIT_SECONDS), ...(machine.instance_id ? { instance_id: machine.instance_id } : {}) },
        timeoutMs: (WAIT_SECONDS + 15) * 1000,
        signal,
      });
      return;
    } catch (error) {
      if (!(error instanceof FlyError && error.status === 408) || Date.now() > deadline) throw error;
    }
  }
}

function transportOf(target: FlyTarget, machineId: string): RemoteTransport {
  return async (run) => {
    let answer: FlyExecResponse | null;
    try {
      answer = await flyCall<FlyExecResponse>(target, 'POST', `/machines/${encodeURIComponent(machineId)}/exec`, {
        body: {
          command: run.argv,
          timeout: Math.ceil(run.timeoutMs / 1000),
          ...(run.stdin !== undefined ? { stdin: run.stdin.toString('utf8') } : {}),
        },
        timeoutMs: run.timeoutMs + API_TIMEOUT_MS,
        signal: run.signal,
      });
    } catch (error) {
      // The driver gave up waiting (a kill that did not end the command): no answer to report.
      if (run.signal.aborted) return { exitCode: null };
      apiProblem(error);
    }
    // The endpoint answers the whole output at once.
    if (answer?.stdout) run.onChunk('stdout', Buffer.from(answer.stdout, 'utf8'));
    if (answer?.stderr) run.onChunk('stderr', Buffer.from(answer.stderr, 'utf8'));
    if (answer?.exit_signal) return { exitCode: null };
    // `exit_code` is left out when it is 0.
    return { exitCode: answer?.exit_code ?? 0 };
  };
}

const transport = (ctx: EnvironmentDriverContext, instance: EnvironmentInstance) => transportOf(targetOf(ctx), instance.instanceId);
const files = remoteFiles(transport);

export const flyEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const target = targetOf(ctx);
    const config = documents.template(request.config);
    const image = config.image;
    const workingDirectory = workingDirectoryOf(config, FLY_DEFAULT_WORKING_DIRECTORY);
    const name = machineName(request.environmentId);
    const region = config.region ?? documents.config(ctx).region;
    try {
      // Provisioned before (idempotent per environment id): the machine has the environment's name.
      const existing = (
        await flyCall<FlyMachine[]>(target, 'GET', '/machines', { timeoutMs: API_TIMEOUT_MS, signal: request.signal })
      )?.find((m) => m.name === name);
      let machine: FlyMachine;
      if (existing) {
        machine = existing;
        if (existing.state === 'stopped' || existing.state === 'suspended')
          await flyCall(target, 'POST', `/machines/${encodeURIComponent(existing.id)}/start`, {
            timeoutMs: API_TIMEOUT_MS,
            signal: request.signal,
          });
      } else {
        machine = await flyCall<FlyMachine>(target, 'POST', '/machines', {
          body: {
            name,
            ...(region ? { region } : {}),
            config: {
              image,
              env: config.env ?? {},
              guest: { cpu_kind: config.cpu_kind ?? 'shared', cpus: config.cpus ?? 1, memory_mb: config.memory_mb ?? 256 },
              // The image's own entrypoint is replaced: the machine only idles and runs what is exec'd.
              init: { exec: idleProcess(workingDirectory) },
              restart: { policy: 'no' },
              auto_destroy: false,
              metadata: { [METADATA_KEY]: request.environmentId },
            },
          },
          timeoutMs: API_TIMEOUT_MS,
          signal: request.signal,
        });
      }
      await waitFor(target, machine, 'started', request.signal);
      return { instanceId: machine.id, workingDirectory };
    } catch (error) {
      provisioningProblem(error);
    }
  },
  exec: (ctx, instance, request) => remoteExec(transport(ctx, instance), instance.workingDirectory, request),
  readFile: (ctx, instance, path, options) =>
    files.readFile(ctx, instance, path, { maxBytes: Math.min(options.maxBytes, FLY_MAX_FILE_BYTES) }),
  async writeFile(ctx, instance, path, content) {
    if (Buffer.byteLength(content) > FLY_MAX_FILE_BYTES)
      throw new EnvironmentDriverError(
        'invalid_path',
        `${path}: files over ${FLY_MAX_FILE_BYTES} bytes cannot be written to a Fly machine`,
      );
    return files.writeFile(ctx, instance, path, content);
  },
  listFiles: files.listFiles,
  async stop(ctx, instance) {
    const target = targetOf(ctx);
    try {
      const id = await machineIdOf(target, instance);
      if (!id) return;
      const machine = await flyCall<FlyMachine>(target, 'GET', `/machines/${encodeURIComponent(id)}`, { timeoutMs: API_TIMEOUT_MS });
      await flyCall(target, 'POST', `/machines/${encodeURIComponent(id)}/stop`, { timeoutMs: API_TIMEOUT_MS });
      await waitFor(target, machine, 'stopped');
    } catch (error) {
      // Gone already: nothing runs in it.
      if (!(error instanceof FlyError && error.status === 404)) apiProblem(error);
    }
  },
  async start(ctx, instance) {
    const target = targetOf(ctx);
    try {
      const id = await machineIdOf(target, instance);
      if (!id) throw new EnvironmentDriverError('unavailable', 'the environment has no machine (deleted outside the service?)');
      const machine = await flyCall<FlyMachine>(target, 'GET', `/machines/${encodeURIComponent(id)}`, { timeoutMs: API_TIMEOUT_MS });
      if (machine.state !== 'started')
        await flyCall(target, 'POST', `/machines/${encodeURIComponent(id)}/start`, { timeoutMs: API_TIMEOUT_MS });
      await waitFor(target, machine, 'started');
      return { instanceId: id, workingDirectory: instance.workingDirectory };
    } catch (error) {
      apiProblem(error);
    }
  },
  async destroy(ctx, instance) {
    const target = targetOf(ctx);
    try {
      const id = await machineIdOf(target, instance);
      if (!id) return;
      await flyCall(target, 'DELETE', `/machines/${encodeURIComponent(id)}`, { query: { force: 'true' }, timeoutMs: API_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof FlyError && error.status === 404)) apiProblem(error);
    }
  },
};

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'fly',
    title: 'Fly Machines',
    configuration: FlyConfig,
    credential: FlyCredential,
    credentialRequired: true,
    setupUrl: 'https://fly.io/dashboard',
    endpointFields: ['base_url'],
    environment: {
      environmentSchema: jsonSchemaOf(FlyTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: flyEnvironmentDriver,
    },
  }),
);
