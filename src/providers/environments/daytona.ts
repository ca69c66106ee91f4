// The `daytona` environment type: an instance is a Daytona sandbox, made from a snapshot or an
// image through Daytona's API and worked in through its toolbox (the daemon inside the sandbox).
// Commands run through the toolbox's `process/execute`, which runs a shell script and answers its
// merged output and exit code when it ends: the driver sends a small script that keeps standard
// error apart (in a temporary file, appended base64-encoded after a marker line), feeds standard
// input, and records the script's process group so a timeout or an abort can kill it with a second
// `execute`. Files go through the toolbox's file endpoints. Stop stops the sandbox (its files stay),
// start starts it again, destroy deletes it.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
  type ExecRequest,
  type FileEntry,
} from '../environment-driver.js';
import Type, { type Static } from 'typebox';
import { defineProviderType, jsonSchemaOf, registerProviderType } from '../registry.js';
import { apiKeyCredentialOf, uriMember } from '../common-schemas.js';
import {
  daytonaApi,
  daytonaHeaders,
  forgetToolbox,
  getSandbox,
  toolboxUrl,
  toolboxUrlOf,
  waitForState,
  type DaytonaSandbox,
} from './daytona-api.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { watchForKill } from './kill-watch.js';
import { execResultOf } from './shell-commands.js';
import { breadthFirst, fileToWrite, instancePath, vendorIdOf, workingDirectoryOf } from './instance-files.js';
import {
  boundedFileRead,
  controlPlaneWork,
  messageOfBody,
  SandboxApiError,
  sandboxFetch,
  sandboxJson,
  uploadFile,
  vendorProblem,
} from './sandbox-http.js';
import { environmentDocuments, stringMapMember } from './template-schema.js';

/** The label that names the environment a sandbox belongs to; the sandbox's name is `wsa-<environment id>` too. */
export const DAYTONA_ENVIRONMENT_LABEL = 'workspace-agent-service.environment-id';
const TOOLBOX_SERVICE = 'the Daytona sandbox';
/** How long a killed command's answer may take before the driver stops waiting. */
const KILL_GRACE_MS = 5_000;
/** Extra seconds the toolbox's own timeout gives a command beyond the driver's (a backstop, not the limit). */
const TOOLBOX_TIMEOUT_SLACK_SECONDS = 5;

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;
const nameOf = (environmentId: string) => `wsa-${environmentId}`;

/** The toolbox request a command becomes, and how to read its answer back. */
export interface ExecScript {
  script: string;
  /** The line that separates the command's standard output from the script's trailer. */
  marker: string;
  /** Where the script records its process group (a kill reads it). */
  pidFile: string;
}

/**
 * The shell script the toolbox runs for one command: records its process group, runs the command
 * with standard input (or none) and standard error in a temporary file, then prints the marker, the
 * exit code and standard error in base64. Needs `/bin/sh`, `mktemp`, `base64` and `tr` in the image.
 */
export function execScript(request: Pick<ExecRequest, 'command' | 'env' | 'stdin'>): ExecScript {
  const token = randomBytes(12).toString('hex');
  const marker = `__wsa_exec_${token}__`;
  const pidFile = `/tmp/wsa-exec-${token}.pid`;
  const command = typeof request.command === 'string' ? `/bin/sh -c ${quote(request.command)}` : request.command.map(quote).join(' ');
  const exports = Object.entries(request.env ?? {})
    .map(([key, value]) => `export ${key}=${quote(value)}`)
    .join('; ');
  const body = `( ${exports ? `${exports}; ` : ''}exec ${command} ) 2>"$wsa_err"`;
  // Standard input through a pipe from its base64 (any bytes survive the JSON of the request), or none.
  const run =
    request.stdin === undefined || request.stdin === ''
      ? `${body} < /dev/null`
      : `printf %s ${quote(Buffer.from(request.stdin).toString('base64'))} | base64 -d | ${body}`;
  const script = [
    `echo $$ > ${pidFile}`,
    `wsa_err=$(mktemp) || exit 125`,
    run,
    `wsa_code=$?`,
    `printf '\\n%s:%s:' ${quote(marker)} "$wsa_code"`,
    `base64 < "$wsa_err" | tr -d '\\n'`,
    `rm -f "$wsa_err" ${pidFile}`,
  ].join('\n');
  return { script, marker, pidFile };
}

/** Splits the toolbox's merged output back into the command's standard output, standard error and exit code (null: the trailer is missing, the script was killed). */
export function parseExecOutput(result: string, marker: string): { stdout: Buffer; stderr: Buffer; exitCode: number | null } {
  const at = result.lastIndexOf(`\n${marker}:`);
  if (at < 0) return { stdout: Buffer.from(result), stderr: Buffer.alloc(0), exitCode: null };
  const trailer = result.slice(at + marker.length + 2);
  const colon = trailer.indexOf(':');
  return {
    stdout: Buffer.from(result.slice(0, at)),
    stderr: Buffer.from(trailer.slice(colon + 1).trim(), 'base64'),
    exitCode: Number(trailer.slice(0, colon)),
  };
}

// Kills the process group a pid file names; waits briefly for the file (the kill may come as the command starts).
const killScript = (pidFile: string) =>
  [
    `i=0; while [ ! -s ${pidFile} ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done`,
    `[ -s ${pidFile} ] && kill -KILL -"$(cat ${pidFile})" 2>/dev/null`,
    `rm -f ${pidFile}`,
  ].join('\n');

const pathIn = (instance: EnvironmentInstance, path: string | undefined) => instancePath(instance.workingDirectory, path);

/** A toolbox problem during work as a driver error; the toolbox address is asked for again next time. */
function toolboxProblem(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, error: unknown): EnvironmentDriverError {
  forgetToolbox(ctx, instance.instanceId);
  return vendorProblem('the Daytona sandbox', error);
}

/** One toolbox call answering JSON. */
async function toolbox<T>(
  ctx: EnvironmentDriverContext,
  base: string,
  method: string,
  path: string,
  ok: number[],
  options: { json?: unknown; body?: BodyInit; signal?: AbortSignal; timeoutMs?: number } = {},
) {
  return sandboxJson<T>(
    { method, url: `${base}${path}`, headers: daytonaHeaders(ctx), service: TOOLBOX_SERVICE, fetch: ctx.fetch, ...options },
    ok,
  );
}

interface DaytonaFileInfo {
  name: string;
  size: number;
  mode?: string;
  isDir: boolean;
  modTime?: string;
  modifiedAt?: string;
}

/** A path's file info, or null when nothing is there. */
async function info(ctx: EnvironmentDriverContext, base: string, path: string): Promise<DaytonaFileInfo | null> {
  try {
    return (await toolbox<DaytonaFileInfo>(ctx, base, 'GET', `/files/info?${new URLSearchParams({ path })}`, [200])).body;
  } catch (error) {
    if (error instanceof SandboxApiError && error.status === 404) return null;
    throw error;
  }
}

const exec: EnvironmentDriver['exec'] = async (ctx, instance, request) => {
  if (typeof request.command !== 'string' && !request.command[0]) throw new EnvironmentDriverError('invalid_path', 'the command is empty');
  const started = Date.now();
  const { script, marker, pidFile } = execScript(request);
  let base: string;
  try {
    base = await toolboxUrl(ctx, instance.instanceId);
  } catch (error) {
    throw toolboxProblem(ctx, instance, error);
  }
  const call = new AbortController();
  const watch = watchForKill({
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    graceMs: KILL_GRACE_MS,
    kill: () =>
      void toolbox(ctx, base, 'POST', '/process/execute', [200], { json: { command: killScript(pidFile), timeout: 10 } }).catch(
        () => undefined,
      ),
    giveUp: () => call.abort(),
  });
  /** The toolbox's own timeout (the backstop) killed the command: its output is lost then. */
  let toolboxTimedOut = false;
  let result = '';
  let toolboxExit: number | null = null;
  try {
    const answer = await toolbox<{ exitCode?: number; result?: string }>(ctx, base, 'POST', '/process/execute', [200, 408], {
      json: {
        command: script,
        cwd: pathIn(instance, request.cwd),
        timeout: Math.ceil(request.timeoutMs / 1000) + TOOLBOX_TIMEOUT_SLACK_SECONDS,
      },
      signal: call.signal,
      timeoutMs: request.timeoutMs + (TOOLBOX_TIMEOUT_SLACK_SECONDS + 10) * 1000,
    });
    if (answer.status === 408) toolboxTimedOut = true;
    else {
      result = answer.body?.result ?? '';
      toolboxExit = answer.body?.exitCode ?? null;
    }
  } catch (error) {
    if (!(call.signal.aborted && (watch.timedOut || watch.aborted))) {
      if (error instanceof SandboxApiError && error.status === 400)
        throw new EnvironmentDriverError('invalid_path', `the Daytona sandbox refused the command: ${error.message}`);
      throw toolboxProblem(ctx, instance, error);
    }
  } finally {
    watch.dispose();
  }
  const parsed = parseExecOutput(result, marker);
  const stdout = new OutputBuffer(request.maxOutputBytes);
  const stderr = new OutputBuffer(request.maxOutputBytes);
  stdout.push(parsed.stdout);
  stderr.push(parsed.stderr);
  // The toolbox answers the whole output at the end: it reaches `onOutput` in one piece per stream.
  if (parsed.stdout.length) request.onOutput?.('stdout', parsed.stdout);
  if (parsed.stderr.length) request.onOutput?.('stderr', parsed.stderr);
  const exitCode = parsed.exitCode ?? toolboxExit;
  return execResultOf({ exitCode, stdout, stderr, timedOut: watch.timedOut || toolboxTimedOut, aborted: watch.aborted }, started);
};

/** A file endpoint's failure as the driver error for `path`. */
async function fileProblem(response: Response, path: string, action: string): Promise<never> {
  const message = messageOfBody(response.status, await response.text().catch(() => ''));
  if (response.status === 404) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
  if (response.status === 400 || response.status === 403) throw new EnvironmentDriverError('invalid_path', `${path}: ${message}`);
  throw new EnvironmentDriverError('unavailable', `the Daytona sandbox answered ${response.status} ${action} ${path}: ${message}`);
}

/** Stop, start or destroy work through Daytona's API (the toolbox address is asked for again next time). */
const controlPlane = <T>(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, work: () => Promise<T>) =>
  controlPlaneWork('the Daytona API', () => forgetToolbox(ctx, instance.instanceId), work);

/** The create request for a template's config. */
function createBody(environmentId: string, config: Static<typeof DaytonaTemplate>, providerConfig: Static<typeof DaytonaConfig>) {
  const image = config.image;
  return {
    name: nameOf(environmentId),
    ...(config.snapshot !== undefined ? { snapshot: config.snapshot } : {}),
    // An image becomes a one-line build (what Daytona's SDKs send for `Image.base(…)`).
    ...(image ? { buildInfo: { dockerfileContent: `FROM ${image}\n` } } : {}),
    ...(config.user !== undefined ? { user: config.user } : {}),
    env: config.env ?? {},
    labels: { ...config.labels, [DAYTONA_ENVIRONMENT_LABEL]: environmentId },
    ...(config.cpu !== undefined ? { cpu: config.cpu } : {}),
    ...(config.memory_gb !== undefined ? { memory: config.memory_gb } : {}),
    ...(config.disk_gb !== undefined ? { disk: config.disk_gb } : {}),
    // The service stops and deletes its environments itself: Daytona's idle auto-stop is off unless asked for.
    autoStopInterval: config.auto_stop_minutes ?? 0,
    ...(providerConfig.target !== undefined ? { target: providerConfig.target } : {}),
  };
}

export const daytonaEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const configured = workingDirectoryOf(request.config, null, 'sandbox');
    let sandbox: DaytonaSandbox;
    try {
      try {
        sandbox = (
          await daytonaApi<DaytonaSandbox>(
            ctx,
            'POST',
            '/sandbox',
            [200, 201],
            createBody(request.environmentId, documents.template(request.config), documents.config(ctx)),
            request.signal,
          )
        ).body;
      } catch (error) {
        // Provisioned before (idempotent per environment id): the sandbox already has the name.
        if (!(error instanceof SandboxApiError && error.status === 409)) throw error;
        const existing = await getSandbox(ctx, nameOf(request.environmentId), request.signal);
        if (!existing) throw error;
        sandbox = existing;
        if (sandbox.state === 'stopped' || sandbox.state === 'archived')
          await daytonaApi(ctx, 'POST', `/sandbox/${encodeURIComponent(sandbox.id)}/start`, [200, 201], undefined, request.signal);
      }
      if (typeof sandbox?.id !== 'string') throw new Error('Daytona answered without a sandbox id');
      if (sandbox.state !== 'started') sandbox = await waitForState(ctx, sandbox.id, ['started'], request.signal);
    } catch (error) {
      if (error instanceof SandboxApiError)
        throw new Error(`Daytona refused the sandbox (${error.status}): ${error.message}`, { cause: error });
      throw error;
    }
    const base = toolboxUrlOf(ctx, sandbox);
    let workingDirectory = configured;
    if (workingDirectory) {
      await toolbox(ctx, base, 'POST', `/files/folder?${new URLSearchParams({ path: workingDirectory, mode: '755' })}`, [200, 201]);
    } else {
      const answer = await toolbox<{ dir?: string }>(ctx, base, 'GET', '/work-dir', [200]);
      workingDirectory = answer.body?.dir || '/home/daytona';
    }
    return { instanceId: sandbox.id, workingDirectory };
  },
  exec,
  async readFile(ctx, instance, path, options) {
    const file = pathIn(instance, path);
    try {
      const base = await toolboxUrl(ctx, instance.instanceId);
      const found = await info(ctx, base, file);
      if (!found) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
      if (found.isDir) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
      const response = await sandboxFetch({
        method: 'GET',
        url: `${base}/files/download?${new URLSearchParams({ path: file })}`,
        headers: { ...daytonaHeaders(ctx), accept: 'application/octet-stream' },
        service: TOOLBOX_SERVICE,
        fetch: ctx.fetch,
      });
      if (response.status !== 200) await fileProblem(response, path, 'reading');
      return await boundedFileRead(response, options.maxBytes, found.size, TOOLBOX_SERVICE);
    } catch (error) {
      throw toolboxProblem(ctx, instance, error);
    }
  },
  async writeFile(ctx, instance, path, content) {
    const file = fileToWrite(instance.workingDirectory, path);
    try {
      const base = await toolboxUrl(ctx, instance.instanceId);
      if ((await info(ctx, base, file))?.isDir) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
      const parent = posix.dirname(file);
      const folder = await sandboxFetch({
        method: 'POST',
        url: `${base}/files/folder?${new URLSearchParams({ path: parent, mode: '755' })}`,
        headers: daytonaHeaders(ctx),
        service: TOOLBOX_SERVICE,
        fetch: ctx.fetch,
      });
      if (folder.status !== 200 && folder.status !== 201) await fileProblem(folder, posix.dirname(path), 'creating');
      const { bytes, response } = await uploadFile(
        {
          url: `${base}/files/upload?${new URLSearchParams({ path: file })}`,
          headers: daytonaHeaders(ctx),
          service: TOOLBOX_SERVICE,
          fetch: ctx.fetch,
        },
        file,
        content,
      );
      if (response.status !== 200 && response.status !== 201) await fileProblem(response, path, 'writing');
      return { sizeBytes: bytes.length };
    } catch (error) {
      throw toolboxProblem(ctx, instance, error);
    }
  },
  async listFiles(ctx, instance, path, options) {
    const directory = pathIn(instance, path);
    const all: FileEntry[] = [];
    let truncated = false;
    try {
      const base = await toolboxUrl(ctx, instance.instanceId);
      const found = await info(ctx, base, directory);
      if (!found) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
      if (!found.isDir) throw new EnvironmentDriverError('not_a_directory', `${path} is not a directory`);
      // The toolbox lists one directory per call: breadth first, level by level, until the limit.
      let level: string[] = [''];
      for (let depth = 1; depth <= Math.max(1, options.depth) && level.length && !truncated; depth++) {
        const next: string[] = [];
        for (const relative of level) {
          const listed = await toolbox<DaytonaFileInfo[]>(
            ctx,
            base,
            'GET',
            `/files?${new URLSearchParams({ path: relative ? posix.join(directory, relative) : directory })}`,
            [200],
          );
          const entries = [...(listed.body ?? [])].sort((a, b) => a.name.localeCompare(b.name));
          for (const entry of entries) {
            const entryPath = relative ? `${relative}/${entry.name}` : entry.name;
            // Go's file mode string starts with L for a symbolic link.
            const kind: FileEntry['kind'] = entry.mode?.startsWith('L') ? 'symlink' : entry.isDir ? 'directory' : 'file';
            const modified = new Date(entry.modifiedAt ?? entry.modTime ?? 0);
            all.push({
              path: entryPath,
              kind,
              sizeBytes: kind === 'file' ? Number(entry.size ?? 0) : 0,
              modifiedAt: Number.isNaN(modified.getTime()) ? new Date(0).toISOString() : modified.toISOString(),
            });
            if (kind === 'directory') next.push(entryPath);
          }
          if (all.length > options.limit) {
            truncated = true;
            break;
          }
        }
        level = next;
      }
    } catch (error) {
      throw toolboxProblem(ctx, instance, error);
    }
    return breadthFirst(all, options.limit, truncated);
  },
  async stop(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      const sandbox = await getSandbox(ctx, instance.instanceId);
      // Gone, or stopped already: nothing runs in it.
      if (!sandbox || ['stopped', 'archived', 'destroyed', 'destroying'].includes(sandbox.state ?? '')) return;
      await daytonaApi(ctx, 'POST', `/sandbox/${encodeURIComponent(sandbox.id)}/stop`, [200, 201]);
      await waitForState(ctx, sandbox.id, ['stopped', 'archived', 'destroyed']);
    });
  },
  async start(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      const sandbox = await getSandbox(ctx, instance.instanceId);
      if (!sandbox) throw new EnvironmentDriverError('unavailable', `the Daytona sandbox ${instance.instanceId} no longer exists`);
      if (sandbox.state !== 'started') {
        await daytonaApi(ctx, 'POST', `/sandbox/${encodeURIComponent(sandbox.id)}/start`, [200, 201]);
        await waitForState(ctx, sandbox.id, ['started']);
      }
    });
    return instance;
  },
  async destroy(ctx, instance) {
    await controlPlane(ctx, instance, async () => {
      // The sandbox Daytona may have made for an environment not yet recorded carries the name `wsa-<environment id>`.
      const sandboxId = await vendorIdOf(instance.instanceId, async (id) => (await getSandbox(ctx, nameOf(id)))?.id ?? null);
      if (!sandboxId) return;
      await daytonaApi(ctx, 'DELETE', `/sandbox/${encodeURIComponent(sandboxId)}`, [200, 204, 404]);
    });
  },
};

// ── registration ──

/** The Daytona provider's config: the API, the organization and the region sandboxes are made in. */
const DaytonaConfig = Type.Object(
  {
    api_url: Type.Optional(uriMember(`the Daytona API (default ${'https://app.daytona.io/api'})`)),
    organization_id: Type.Optional(Type.String({ maxLength: 128, description: 'sent as X-Daytona-Organization-ID' })),
    target: Type.Optional(Type.String({ maxLength: 64, description: 'the region sandboxes are made in (default: the organization’s)' })),
  },
  { additionalProperties: false },
);
const DaytonaCredential = apiKeyCredentialOf('a Daytona API key (sent as a bearer token)');
const DaytonaTemplate = Type.Object(
  {
    snapshot: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'the Daytona snapshot the sandbox starts from (default: Daytona’s default snapshot)',
      }),
    ),
    image: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'an image to build the sandbox from instead, e.g. python:3.12-slim (not with snapshot)',
      }),
    ),
    working_directory: Type.Optional(
      Type.String({
        maxLength: 1024,
        pattern: '^/',
        description:
          'an absolute path inside the sandbox where commands start (default: the sandbox’s working directory; created on provisioning)',
      }),
    ),
    env: Type.Optional(stringMapMember('environment variables of the sandbox and so of every command', 100)),
    labels: Type.Optional(stringMapMember('labels of the sandbox in Daytona', 50)),
    user: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the sandbox user (default: the snapshot’s)' })),
    cpu: Type.Optional(Type.Integer({ minimum: 1, maximum: 64, description: 'CPUs (with image only)' })),
    memory_gb: Type.Optional(Type.Integer({ minimum: 1, maximum: 256, description: 'memory in GiB (with image only)' })),
    disk_gb: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024, description: 'disk in GiB (with image only)' })),
    auto_stop_minutes: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 43200,
        description: 'Daytona stops the sandbox after this many idle minutes (default 0: never; the service stops it)',
      }),
    ),
  },
  { additionalProperties: false, not: { required: ['snapshot', 'image'] } },
);
const documents = environmentDocuments({ configuration: DaytonaConfig, credential: DaytonaCredential, template: DaytonaTemplate });

registerProviderType(
  defineProviderType({
    kind: 'environment',
    type: 'daytona',
    title: 'Daytona sandboxes',
    configuration: DaytonaConfig,
    credential: DaytonaCredential,
    credentialRequired: true,
    setupUrl: 'https://app.daytona.io/dashboard/keys',
    endpointFields: ['api_url'],
    environment: {
      environmentSchema: jsonSchemaOf(DaytonaTemplate),
      managedInstances: true,
      stop: true,
      destroy: true,
      driver: daytonaEnvironmentDriver,
    },
  }),
);
