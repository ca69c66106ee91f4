// Commands and files in a remote instance whose platform offers only "run this argument vector"
// (Fly Machines' exec endpoint, the Kubernetes pod `exec` subresource): everything else the driver
// contract asks for — a working directory, extra environment variables, killing a command at its
// timeout or on abort, reading, writing and listing files — is built here from small POSIX shell
// scripts run through that one primitive, so every such type behaves the same way.
//
// Killing: neither platform can kill an exec, so every command starts by writing its shell's process
// id to a file under /tmp; a timeout or an abort runs a second command that kills that process and
// everything it started (walking /proc, so no `pkill` is needed in the image).
// Files travel as base64 (`base64` is in every Debian, Ubuntu and Alpine image): a JSON API such as
// Fly's carries text only, and one encoding keeps both types identical.
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { EnvironmentDriverError, type ExecRequest, type ExecResult, type FileEntry } from '../environment-driver.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { KILL_TREE } from './docker.js';

/** One run of an argument vector in the instance, as the platform offers it. */
export interface RemoteRun {
  argv: readonly string[];
  /** Written to standard input, then closed. */
  stdin?: Buffer;
  /** How long the platform may let it run (a backstop: the driver kills it itself at its timeout). */
  timeoutMs: number;
  /** Aborted when the driver gives up waiting (after a kill that did not end the run). */
  signal: AbortSignal;
  /** Output as it arrives (once at the end for a platform that answers the whole output at once). */
  onChunk: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

/**
 * Runs an argument vector: answers the exit code (null when the signal ended the wait first). A
 * platform that cannot be reached throws EnvironmentDriverError('unavailable').
 */
export type RemoteTransport = (run: RemoteRun) => Promise<{ exitCode: number | null }>;

/** How long a kill may take before the driver stops waiting for the killed command. */
const KILL_GRACE_MS = 5_000;
/** File operations are bounded too: an instance that does not answer in time is unavailable. */
const FILE_TIMEOUT_MS = 60_000;
/** What a listing keeps of its output. */
const LISTING_MAX_BYTES = 8 * 1024 * 1024;

// Every command starts through this: it records its shell's process id (so a timeout or an abort
// can kill it), enters the working directory, runs the command and removes the record.
const WRAPPER = [
  '{ echo "$$" > "$1"; } 2>/dev/null',
  'cd -- "$2" || exit 126',
  'p=$1; shift 2',
  '"$@"; s=$?',
  'rm -f -- "$p"; exit $s',
].join('\n');
// Waits briefly for the record (a kill can come before the command wrote it), then kills the tree.
const KILL_FROM_RECORD = [
  KILL_TREE.replace(/\ntree "\$\{1\}"$/, ''),
  'f=$1; i=0',
  'while [ ! -s "$f" ] && [ "$i" -lt 50 ]; do sleep 0.1 2>/dev/null || sleep 1; i=$((i + 1)); done',
  '[ -s "$f" ] || exit 0',
  'p=$(cat "$f"); rm -f -- "$f"',
  'tree "$p"',
].join('\n');

/** Environment variable names a command line can carry (`env NAME=value …`). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A path inside the instance: relative to `base`, or absolute (the whole instance is the environment). */
export function instancePath(base: string, path: string | undefined): string {
  const value = path ?? '.';
  if (value.includes('\0')) throw new EnvironmentDriverError('invalid_path', 'a path cannot contain NUL');
  return posix.resolve(base || '/', value || '.');
}

/** An absolute working directory from a template's config (default `fallback`). */
export function workingDirectoryOf(config: Record<string, unknown>, fallback: string): string {
  const value = config.working_directory;
  if (value === undefined || value === null || value === '') return fallback;
  const path = String(value);
  if (!path.startsWith('/'))
    throw new EnvironmentDriverError('invalid_path', 'working_directory must be an absolute path inside the instance');
  return posix.normalize(path);
}

interface RawRequest {
  argv: readonly string[];
  cwd: string;
  env?: Record<string, string>;
  stdin?: Buffer | string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onOutput?: ExecRequest['onOutput'];
}

interface RawResult {
  exitCode: number | null;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
}

async function runRaw(transport: RemoteTransport, req: RawRequest): Promise<RawResult> {
  const env = Object.entries(req.env ?? {});
  for (const [name] of env)
    if (!ENV_NAME.test(name))
      throw new EnvironmentDriverError('invalid_path', `${JSON.stringify(name)} is not an environment variable name`);
  const record = `/tmp/.wsa-exec-${randomBytes(8).toString('hex')}`;
  const argv = [
    '/bin/sh',
    '-c',
    WRAPPER,
    'wsa-exec',
    record,
    req.cwd,
    ...(env.length ? ['env', ...env.map(([name, value]) => `${name}=${value}`)] : []),
    ...req.argv,
  ];
  const stdout = new OutputBuffer(req.maxOutputBytes);
  const stderr = new OutputBuffer(req.maxOutputBytes);
  const giveUp = new AbortController();
  let timedOut = false;
  let aborted = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const kill = () => {
    if (graceTimer) return;
    void transport({
      argv: ['/bin/sh', '-c', KILL_FROM_RECORD, 'wsa-kill', record],
      timeoutMs: KILL_GRACE_MS,
      signal: AbortSignal.timeout(KILL_GRACE_MS * 2),
      onChunk: () => undefined,
    }).catch(() => undefined);
    // Whatever the kill reaches, the caller's wait ends soon.
    graceTimer = setTimeout(() => giveUp.abort(), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, req.timeoutMs);
  const onAbort = () => {
    aborted = true;
    kill();
  };
  if (req.signal?.aborted) onAbort();
  else req.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const { exitCode } = await transport({
      argv,
      stdin: req.stdin === undefined ? undefined : Buffer.from(req.stdin),
      // The platform's own limit only backs the driver's up.
      timeoutMs: req.timeoutMs + KILL_GRACE_MS * 2,
      signal: giveUp.signal,
      onChunk: (stream, chunk) => {
        (stream === 'stdout' ? stdout : stderr).push(chunk);
        req.onOutput?.(stream, chunk);
      },
    });
    return { exitCode, stdout, stderr, timedOut, aborted };
  } finally {
    clearTimeout(timer);
    clearTimeout(graceTimer);
    req.signal?.removeEventListener('abort', onAbort);
  }
}

/** The driver's `exec` over a transport. */
export async function remoteExec(transport: RemoteTransport, workingDirectory: string, request: ExecRequest): Promise<ExecResult> {
  const argv = typeof request.command === 'string' ? ['/bin/sh', '-c', request.command] : [...request.command];
  if (!argv[0]) throw new EnvironmentDriverError('invalid_path', 'the command is empty');
  const started = Date.now();
  const raw = await runRaw(transport, {
    argv,
    cwd: instancePath(workingDirectory, request.cwd),
    env: request.env,
    stdin: request.stdin,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    signal: request.signal,
    onOutput: request.onOutput,
  });
  const killed = raw.timedOut || raw.aborted;
  return {
    exitCode: killed ? null : raw.exitCode,
    signal: killed ? 'SIGKILL' : null,
    stdout: raw.stdout.text(),
    stderr: raw.stderr.text(),
    stdoutBytes: raw.stdout.total,
    stderrBytes: raw.stderr.total,
    truncated: raw.stdout.truncated || raw.stderr.truncated,
    timedOut: raw.timedOut,
    aborted: raw.aborted,
    durationMs: Date.now() - started,
  };
}

/** A file operation's script; its exit code says what was wrong with the path. */
async function fileCommand(
  transport: RemoteTransport,
  script: string,
  args: string[],
  options: { stdin?: Buffer | string; maxOutputBytes: number; path: string },
): Promise<RawResult> {
  const raw = await runRaw(transport, {
    argv: ['/bin/sh', '-c', script, 'wsa-files', ...args],
    cwd: '/',
    stdin: options.stdin,
    timeoutMs: FILE_TIMEOUT_MS,
    maxOutputBytes: options.maxOutputBytes,
  });
  const problems: Record<number, EnvironmentDriverError> = {
    3: new EnvironmentDriverError('not_found', `${options.path} does not exist`),
    4: new EnvironmentDriverError('not_a_file', `${options.path} is not a file`),
    5: new EnvironmentDriverError('not_a_directory', `${options.path} is not a directory`),
  };
  if (raw.exitCode !== null && problems[raw.exitCode]) throw problems[raw.exitCode];
  if (raw.timedOut)
    throw new EnvironmentDriverError('unavailable', `the instance did not finish the file operation on ${options.path} in time`);
  // Anything else (permission denied, a read-only file system, no base64) is about the path the caller named.
  if (raw.exitCode !== 0)
    throw new EnvironmentDriverError(
      'invalid_path',
      `${options.path}: ${raw.stderr.text().trim().slice(0, 500) || `exit code ${raw.exitCode}`}`,
    );
  return raw;
}

/** The driver's `readFile`: the size on standard error, at most maxBytes of content in base64 on standard output. */
export async function remoteReadFile(transport: RemoteTransport, workingDirectory: string, path: string, maxBytes: number) {
  const file = instancePath(workingDirectory, path);
  const raw = await fileCommand(
    transport,
    '[ -e "$1" ] || exit 3; [ -f "$1" ] || exit 4; wc -c < "$1" >&2 && head -c "$2" "$1" | base64',
    [file, String(maxBytes)],
    // base64 is 4 bytes per 3, plus a line break every 76 characters.
    { maxOutputBytes: Math.ceil(maxBytes / 3) * 4 * 1.05 + 1024, path },
  );
  const content = Buffer.from(raw.stdout.text().replace(/\s+/g, ''), 'base64');
  const sizeBytes = Number(raw.stderr.text().trim()) || content.length;
  return { content, sizeBytes, truncated: sizeBytes > content.length };
}

/** The driver's `writeFile`: the content in base64 on standard input; parent directories are made. */
export async function remoteWriteFile(transport: RemoteTransport, workingDirectory: string, path: string, content: Buffer | string) {
  const file = instancePath(workingDirectory, path);
  if (file === '/') throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
  const bytes = Buffer.from(content);
  await fileCommand(
    transport,
    'if [ -e "$1" ] && [ ! -f "$1" ]; then exit 4; fi; mkdir -p -- "$(dirname -- "$1")" && base64 -d > "$1"',
    [file],
    { stdin: bytes.toString('base64'), maxOutputBytes: 4096, path },
  );
  return { sizeBytes: bytes.length };
}

const KIND_OF_STAT: Record<string, FileEntry['kind']> = {
  'regular file': 'file',
  'regular empty file': 'file',
  directory: 'directory',
  'symbolic link': 'symlink',
};

/** The driver's `listFiles`: `find` and `stat`, one line per entry, sorted breadth first. */
export async function remoteListFiles(
  transport: RemoteTransport,
  workingDirectory: string,
  path: string,
  options: { depth: number; limit: number },
) {
  const directory = instancePath(workingDirectory, path);
  const raw = await fileCommand(
    transport,
    '[ -e "$1" ] || exit 3; [ -d "$1" ] || exit 5; cd -- "$1" && find . -mindepth 1 -maxdepth "$2" -exec stat -c "%F|%s|%Y|%n" {} +',
    [directory, String(Math.max(1, options.depth))],
    { maxOutputBytes: LISTING_MAX_BYTES, path },
  );
  const all: FileEntry[] = [];
  for (const line of raw.stdout.text().split('\n')) {
    const match = /^([^|]+)\|(\d+)\|(\d+)\|\.\/(.+)$/.exec(line);
    if (!match) continue;
    const kind = KIND_OF_STAT[match[1]!] ?? 'other';
    all.push({
      path: match[4]!,
      kind,
      sizeBytes: kind === 'file' ? Number(match[2]) : 0,
      modifiedAt: new Date(Number(match[3]) * 1000).toISOString(),
    });
  }
  const depthOf = (entry: FileEntry) => entry.path.split('/').length;
  all.sort((a, b) => depthOf(a) - depthOf(b) || a.path.localeCompare(b.path));
  return { entries: all.slice(0, options.limit), truncated: all.length > options.limit || raw.stdout.truncated };
}

/** The instance's first process for types that need one: makes the working directory, then idles until stopped. */
export function idleProcess(workingDirectory: string): string[] {
  return [
    '/bin/sh',
    '-c',
    'mkdir -p -- "$1"; trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done',
    'wsa-idle',
    workingDirectory,
  ];
}
