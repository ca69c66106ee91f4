// The daemon's environment side: what the service asks of a device that runs environments — run
// commands, read, write and list files, stop what it started, make and remove an environment's
// directory. Everything stays inside the roots the daemon was started with (symbolic links are
// resolved), and nothing here answers unless the operator started the daemon with
// --allow-environments, because it lets the service run commands on this machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { lstat, mkdir, open, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EnvdError } from './fs.js';
import { OutputBuffer } from '../lib/output-buffer.js';

/** Bytes kept of each output stream at most: two base64-encoded streams stay well inside a 4 MiB frame. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Raw bytes per streamed frame (file content, output): base64 makes 1.33 MiB of it. */
export const CHUNK_BYTES = 1024 * 1024;
const MAX_READ_BYTES = 64 * 1024 * 1024;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const MAX_LIST_LIMIT = 10_000;
const MAX_LIST_DEPTH = 32;

/** A frame sent before the answer to the request it belongs to (streamed output, file content). */
export type Frame = { type: 'output'; stream: 'stdout' | 'stderr'; data: string } | { type: 'chunk'; data: string };

export const ENVIRONMENT_METHODS = new Set([
  'exec',
  'abort',
  'read_file',
  'write_file',
  'list_files',
  'stop',
  'make_directory',
  'remove_directory',
]);

const inside = (root: string, candidate: string) => {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

function absolute(value: unknown, name: string): string {
  if (typeof value !== 'string' || !isAbsolute(value) || value.includes('\u0000') || value.length > 4096)
    throw new EnvdError('invalid_path', `${name} must be an absolute path`);
  return resolve(value);
}

function text(value: unknown, name: string, max = 200): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) throw new EnvdError('invalid_request', `${name} is required`);
  return value;
}

function bounded(value: unknown, fallback: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.min(Math.floor(value), max) : fallback;
}

/** Ends a command and everything it started (it leads its own process group). */
function killGroup(child: ChildProcess) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

interface Running {
  child: ChildProcess;
  environmentId: string;
  abort(): void;
}

export class EnvironmentHost {
  /** Commands running, by the id of the request that started them. */
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly roots: string[],
    private readonly allowed: boolean,
  ) {}

  /**
   * The path `requested` confined to `scope` (an environment's directory) and to the roots: both
   * lexically and — for the nearest part of it that exists — by its real path, so a symbolic link
   * cannot lead out. Answers the lexical path.
   */
  private async confine(scopeValue: unknown, requested: unknown, name = 'path'): Promise<string> {
    const scope = absolute(scopeValue, 'scope');
    const target = absolute(requested, name);
    if (!this.roots.some((root) => inside(root, scope)))
      throw new EnvdError('outside_roots', `${scope} is outside the roots this device serves`);
    if (!inside(scope, target)) throw new EnvdError('outside_roots', `${String(requested)} is outside the environment`);
    let realScope: string;
    try {
      realScope = await realpath(scope);
    } catch {
      throw new EnvdError('not_found', "the environment's directory does not exist on the device (destroyed?)");
    }
    if (!this.roots.some((root) => inside(root, realScope)))
      throw new EnvdError('outside_roots', `${scope} resolves outside the roots this device serves`);
    for (let existing = target; ; existing = dirname(existing)) {
      const real = await realpath(existing).catch(() => null);
      if (real === null) {
        if (existing === scope) return target;
        continue;
      }
      if (!inside(realScope, real)) throw new EnvdError('outside_roots', `${String(requested)} leads outside the environment`);
      return target;
    }
  }

  async handle(requestId: string, method: string, params: Record<string, unknown>, send: (frame: Frame) => void): Promise<unknown> {
    if (!this.allowed)
      throw new EnvdError(
        'environments_disabled',
        'this device does not run environments: its daemon was started without --allow-environments',
      );
    switch (method) {
      case 'exec':
        return this.exec(requestId, params, send);
      case 'abort': {
        const running = this.running.get(text(params.request_id, 'request_id'));
        running?.abort();
        return { aborted: Boolean(running) };
      }
      case 'stop':
        return { stopped: this.stop(text(params.environment_id, 'environment_id')) };
      case 'read_file':
        return this.readFile(params, send);
      case 'write_file':
        return this.writeFile(params);
      case 'list_files':
        return this.listFiles(params);
      case 'make_directory':
        return this.makeDirectory(params);
      case 'remove_directory':
        return this.removeDirectory(params);
      default:
        throw new EnvdError('unknown_method', `unknown method ${method}`);
    }
  }

  /** Kills every command started for the environment; answers how many. */
  stop(environmentId: string): number {
    let count = 0;
    for (const running of this.running.values())
      if (running.environmentId === environmentId) {
        running.abort();
        count += 1;
      }
    return count;
  }

  /** Kills everything this daemon started (the connection is gone, or the daemon exits). */
  stopAll() {
    for (const running of this.running.values()) running.abort();
  }

  private async exec(requestId: string, params: Record<string, unknown>, send: (frame: Frame) => void) {
    const environmentId = text(params.environment_id, 'environment_id');
    const cwd = await this.confine(params.scope, params.cwd, 'cwd');
    const cwdStat = await stat(cwd).catch(() => null);
    if (!cwdStat?.isDirectory()) throw new EnvdError('not_a_directory', `${cwd} is not a directory`);
    const command = params.command;
    let file: string;
    let args: string[];
    if (typeof command === 'string' && command.length > 0) [file, args] = ['/bin/sh', ['-c', command]];
    else if (Array.isArray(command) && command.length > 0 && command.every((part) => typeof part === 'string'))
      [file, args] = [command[0] as string, command.slice(1) as string[]];
    else throw new EnvdError('invalid_request', 'command must be a command line or a non-empty argument vector');
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries((params.env as Record<string, unknown> | undefined) ?? {}))
      if (typeof value === 'string') env[key] = value;
    const limit = bounded(params.max_output_bytes, MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES);
    const timeoutMs = Math.max(1, bounded(params.timeout_ms, 60_000, MAX_TIMEOUT_MS));
    const stream = params.stream === true;
    const started = Date.now();
    const output = { stdout: new OutputBuffer(limit), stderr: new OutputBuffer(limit) };
    // A clean environment: the daemon's own variables (its credential path, tokens in its shell) stay out.
    const child = spawn(file, args, {
      cwd,
      detached: true,
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: resolve(String(params.scope)),
        LANG: 'C.UTF-8',
        ...env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let aborted = false;
    const running: Running = {
      child,
      environmentId,
      abort: () => {
        aborted = true;
        killGroup(child);
      },
    };
    this.running.set(requestId, running);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, timeoutMs);
    for (const name of ['stdout', 'stderr'] as const)
      child[name]!.on('data', (chunk: Buffer) => {
        output[name].push(chunk);
        if (stream) send({ type: 'output', stream: name, data: chunk.toString('base64') });
      });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(typeof params.stdin === 'string' ? params.stdin : '');
    try {
      const [exitCode, signal] = await new Promise<[number | null, string | null]>((done, fail) => {
        child.once('error', fail);
        child.once('close', (code, sig) => done([code, sig]));
      }).catch((error: NodeJS.ErrnoException) => {
        // A program that does not exist is the command's failure, not the daemon's.
        output.stderr.push(Buffer.from(`${file}: ${error.code === 'ENOENT' ? 'command not found' : error.message}\n`));
        return [127, null] as [number | null, string | null];
      });
      return {
        exit_code: exitCode,
        signal,
        stdout_base64: output.stdout.bytes().toString('base64'),
        stderr_base64: output.stderr.bytes().toString('base64'),
        stdout_bytes: output.stdout.total,
        stderr_bytes: output.stderr.total,
        truncated: output.stdout.total > output.stdout.kept || output.stderr.total > output.stderr.kept,
        timed_out: timedOut,
        aborted: aborted && !timedOut,
        duration_ms: Date.now() - started,
      };
    } finally {
      clearTimeout(timer);
      this.running.delete(requestId);
    }
  }

  private async readFile(params: Record<string, unknown>, send: (frame: Frame) => void) {
    const file = await this.confine(params.scope, params.path);
    const info = await stat(file).catch(() => {
      throw new EnvdError('not_found', `${file} does not exist`);
    });
    if (!info.isFile()) throw new EnvdError('not_a_file', `${file} is not a file`);
    const length = Math.min(info.size, bounded(params.max_bytes, MAX_READ_BYTES, MAX_READ_BYTES));
    const handle = await open(file, 'r');
    let read = 0;
    try {
      // The content travels as `chunk` frames before the answer, each within the frame limit.
      while (read < length) {
        const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, length - read));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, read);
        if (bytesRead === 0) break;
        send({ type: 'chunk', data: buffer.subarray(0, bytesRead).toString('base64') });
        read += bytesRead;
      }
    } finally {
      await handle.close();
    }
    return { size_bytes: info.size, read_bytes: read, truncated: info.size > read };
  }

  private async writeFile(params: Record<string, unknown>) {
    const file = await this.confine(params.scope, params.path);
    if (typeof params.content_base64 !== 'string') throw new EnvdError('invalid_request', 'content_base64 is required');
    const content = Buffer.from(params.content_base64, 'base64');
    const existing = await lstat(file).catch(() => null);
    if (existing && !existing.isFile()) throw new EnvdError('not_a_file', `${file} is not a file`);
    await mkdir(dirname(file), { recursive: true });
    // Large content comes in several requests: the first replaces the file, the rest append.
    await writeFile(file, content, { flag: params.append === true ? 'a' : 'w' });
    return { size_bytes: (await stat(file)).size };
  }

  private async listFiles(params: Record<string, unknown>) {
    const directory = await this.confine(params.scope, params.path);
    const info = await stat(directory).catch(() => {
      throw new EnvdError('not_found', `${directory} does not exist`);
    });
    if (!info.isDirectory()) throw new EnvdError('not_a_directory', `${directory} is not a directory`);
    const depthLimit = Math.max(1, bounded(params.depth, 1, MAX_LIST_DEPTH));
    const limit = Math.max(1, bounded(params.limit, 500, MAX_LIST_LIMIT));
    const entries: { path: string; kind: string; size_bytes: number; modified_at: string }[] = [];
    let truncated = false;
    // Breadth first, sorted per directory, so a limited listing shows the top levels first.
    let level: string[] = [''];
    for (let depth = 0; depth < depthLimit && level.length && !truncated; depth++) {
      const next: string[] = [];
      for (const prefix of level) {
        const names = (await readdir(join(directory, prefix), { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
        for (const dirent of names) {
          if (entries.length >= limit) {
            truncated = true;
            break;
          }
          const rel = prefix ? `${prefix}${sep}${dirent.name}` : dirent.name;
          const entryStat = await lstat(join(directory, rel));
          const kind = dirent.isSymbolicLink() ? 'symlink' : dirent.isDirectory() ? 'directory' : dirent.isFile() ? 'file' : 'other';
          entries.push({ path: rel, kind, size_bytes: kind === 'file' ? entryStat.size : 0, modified_at: entryStat.mtime.toISOString() });
          if (kind === 'directory') next.push(rel);
        }
        if (truncated) break;
      }
      level = next;
    }
    return { entries, truncated };
  }

  /** Creates an environment's directory (and its parents) inside a root; answers its real path. */
  private async makeDirectory(params: Record<string, unknown>) {
    const path = await this.confine(params.scope, params.path);
    await mkdir(path, { recursive: true, mode: 0o700 });
    const real = await realpath(path);
    if (!this.roots.some((root) => inside(root, real))) throw new EnvdError('outside_roots', `${path} resolves outside the roots`);
    return { path: real };
  }

  /** Removes an environment's directory after killing its commands; a root itself is never removed. */
  private async removeDirectory(params: Record<string, unknown>) {
    const environmentId = text(params.environment_id, 'environment_id');
    this.stop(environmentId);
    const path = absolute(params.path, 'path');
    if (!this.roots.some((root) => inside(root, path) && root !== path))
      throw new EnvdError('outside_roots', `${path} is not inside a root this device serves`);
    const real = await realpath(path).catch(() => null);
    if (real === null) return { removed: false }; // already gone
    if (!this.roots.some((root) => inside(root, real) && root !== real))
      throw new EnvdError('outside_roots', `${path} resolves outside the roots this device serves`);
    await rm(real, { recursive: true, force: true });
    return { removed: true };
  }
}
