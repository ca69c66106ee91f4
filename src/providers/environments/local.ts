// The `local` environment type: an instance is a directory under DATA_DIR/environments/<environment
// id> on the service's own machine, and commands are real subprocesses started there. Nothing is
// isolated beyond that — a command can do whatever the service's user can — so the type exists only
// where the deployment sets ALLOW_LOCAL_ENVIRONMENTS (development). Commands get a small environment
// of their own (PATH, HOME = the instance, LANG, and the template's `env`), never the service's, so
// the database URL and keys in the service's environment do not leak into a command.
import { spawn, type ChildProcess } from 'node:child_process';
import { lstat, mkdir, open, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import {
  EnvironmentDriverError,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
  type FileEntry,
} from '../environment-driver.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { subdirectoryOf } from './instance-files.js';
import Type from 'typebox';
import { NoConfiguration, NoCredential } from '../common-schemas.js';
import { environmentDocuments, relativeWorkingDirectoryMember, stringMapMember } from './template-schema.js';

/** A local template's config: where commands start inside the instance's directory, and their environment variables. */
export const LocalTemplate = Type.Object(
  {
    working_directory: relativeWorkingDirectoryMember(),
    env: Type.Optional(stringMapMember("environment variables of every command (the service's own are never passed on)", 100)),
  },
  { additionalProperties: false },
);
const documents = environmentDocuments({ configuration: NoConfiguration, credential: NoCredential, template: LocalTemplate });

/** Commands still running, by instance: `stop` and `destroy` end them. Per process: a stop reaches the commands this process started. */
const running = new Map<string, Set<ChildProcess>>();

const instanceRoot = (ctx: EnvironmentDriverContext, environmentId: string) => join(ctx.dataDir, 'environments', environmentId);

/** The instance's root: the directory the instance id names (ids are the environment's own). */
function rootOf(ctx: EnvironmentDriverContext, instance: EnvironmentInstance): string {
  return instanceRoot(ctx, instance.instanceId);
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * A caller's path as an absolute path inside the instance: relative paths start at the working
 * directory; absolute ones must already be inside the instance. The nearest existing ancestor's real
 * path must stay inside too, so a symbolic link cannot lead out.
 */
async function confine(ctx: EnvironmentDriverContext, instance: EnvironmentInstance, path: string): Promise<string> {
  const root = rootOf(ctx, instance);
  const target = resolve(instance.workingDirectory, path || '.');
  if (!inside(root, target)) throw new EnvironmentDriverError('invalid_path', `${path} is outside the environment`);
  const realRoot = await realpath(root).catch(() => {
    throw new EnvironmentDriverError('unavailable', 'the environment has no instance (destroyed?)');
  });
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!inside(realRoot, real)) throw new EnvironmentDriverError('invalid_path', `${path} leads outside the environment`);
      return target;
    } catch (error) {
      if (error instanceof EnvironmentDriverError) throw error;
      if (existing === root) return target;
      existing = dirname(existing);
    }
  }
}

/** Ends a command and everything it started (it leads its own process group). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

const exec: EnvironmentDriver['exec'] = async (ctx, instance, request) => {
  const cwd = await confine(ctx, instance, request.cwd ?? '.');
  const cwdStat = await stat(cwd).catch(() => null);
  if (!cwdStat?.isDirectory()) throw new EnvironmentDriverError('not_a_directory', `${request.cwd ?? '.'} is not a directory`);
  const [file, args] =
    typeof request.command === 'string' ? ['/bin/sh', ['-c', request.command]] : [request.command[0]!, request.command.slice(1)];
  if (!file) throw new EnvironmentDriverError('invalid_path', 'the command is empty');
  const root = rootOf(ctx, instance);
  const started = Date.now();
  const stdout = new OutputBuffer(request.maxOutputBytes);
  const stderr = new OutputBuffer(request.maxOutputBytes);
  const child = spawn(file, args, {
    cwd,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
      HOME: root,
      LANG: 'C.UTF-8',
      ...documents.template(ctx.environmentConfig).env,
      ...(request.env ?? {}),
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const mine = running.get(instance.instanceId) ?? new Set<ChildProcess>();
  running.set(instance.instanceId, mine);
  mine.add(child);
  let timedOut = false;
  let aborted = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, 'SIGKILL');
  }, request.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup(child, 'SIGKILL');
  };
  if (request.signal?.aborted) onAbort();
  else request.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    request.onOutput?.('stdout', chunk);
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    request.onOutput?.('stderr', chunk);
  });
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(request.stdin ?? '');
  try {
    const [exitCode, signal] = await new Promise<[number | null, string | null]>((done, fail) => {
      child.once('error', fail);
      child.once('close', (code, sig) => done([code, sig]));
    }).catch((error: NodeJS.ErrnoException) => {
      // A program that does not exist is the command's failure, not the service's.
      stderr.push(Buffer.from(`${file}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`));
      return [127, null] as [number | null, string | null];
    });
    return {
      exitCode,
      signal,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutBytes: stdout.total,
      stderrBytes: stderr.total,
      truncated: stdout.total > stdout.kept || stderr.total > stderr.kept,
      timedOut,
      aborted,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
    mine.delete(child);
  }
};

function stopAll(instanceId: string) {
  for (const child of running.get(instanceId) ?? []) killGroup(child, 'SIGKILL');
}

export const localEnvironmentDriver: EnvironmentDriver = {
  async provision(ctx, request) {
    const root = instanceRoot(ctx, request.environmentId);
    const workingDirectory = join(root, subdirectoryOf(request.config));
    await mkdir(workingDirectory, { recursive: true, mode: 0o700 });
    return { instanceId: request.environmentId, workingDirectory };
  },
  exec,
  async readFile(ctx, instance, path, options) {
    const file = await confine(ctx, instance, path);
    const info = await stat(file).catch(() => {
      throw new EnvironmentDriverError('not_found', `${path} does not exist`);
    });
    if (!info.isFile()) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
    const handle = await open(file, 'r');
    try {
      const length = Math.min(info.size, options.maxBytes);
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buffer, 0, length, 0);
      return { content: buffer.subarray(0, bytesRead), sizeBytes: info.size, truncated: info.size > bytesRead };
    } finally {
      await handle.close();
    }
  },
  async writeFile(ctx, instance, path, content) {
    const file = await confine(ctx, instance, path);
    const existing = await lstat(file).catch(() => null);
    if (existing && !existing.isFile()) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    return { sizeBytes: typeof content === 'string' ? Buffer.byteLength(content) : content.length };
  },
  async listFiles(ctx, instance, path, options) {
    const directory = await confine(ctx, instance, path);
    const info = await stat(directory).catch(() => {
      throw new EnvironmentDriverError('not_found', `${path} does not exist`);
    });
    if (!info.isDirectory()) throw new EnvironmentDriverError('not_a_directory', `${path} is not a directory`);
    const entries: FileEntry[] = [];
    let truncated = false;
    // Breadth first, sorted per directory, so a limited listing shows the top levels first.
    let level: string[] = [''];
    for (let depth = 0; depth < options.depth && level.length && !truncated; depth++) {
      const next: string[] = [];
      for (const prefix of level) {
        const names = (await readdir(join(directory, prefix), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
        for (const dirent of names) {
          if (entries.length >= options.limit) {
            truncated = true;
            break;
          }
          const rel = prefix ? `${prefix}${sep}${dirent.name}` : dirent.name;
          const entryStat = await lstat(join(directory, rel));
          const kind = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'directory' : dirent.isFile() ? 'file' : 'other';
          entries.push({ path: rel, kind, sizeBytes: kind === 'file' ? entryStat.size : 0, modifiedAt: entryStat.mtime.toISOString() });
          if (kind === 'directory') next.push(rel);
        }
        if (truncated) break;
      }
      level = next;
    }
    return { entries, truncated };
  },
  async stop(_ctx, instance) {
    stopAll(instance.instanceId);
  },
  // A stopped local instance is its directory with nothing running in it: starting it again only
  // checks the directory is still there (a directory removed outside the service is not recreated
  // empty, which would hide the loss of its files).
  async start(ctx, instance) {
    const info = await stat(rootOf(ctx, instance)).catch(() => null);
    if (!info?.isDirectory())
      throw new EnvironmentDriverError('unavailable', "the environment's directory is gone (removed outside the service?)");
    await mkdir(instance.workingDirectory, { recursive: true, mode: 0o700 });
    return instance;
  },
  async destroy(ctx, instance) {
    stopAll(instance.instanceId);
    running.delete(instance.instanceId);
    await rm(rootOf(ctx, instance), { recursive: true, force: true });
  },
};
