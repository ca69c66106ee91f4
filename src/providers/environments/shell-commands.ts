// What the types that run commands through a shell inside a remote instance share (the container
// engine, Modal sandboxes, Fly machines, Kubernetes pods): none of their platforms can kill a
// command it started, so a command reports its process id and the driver kills the process tree
// itself; each keeps its instance alive with an idle first process; and each answers a command the
// same way once it has its exit code and output.
import { EnvironmentDriverError, type ExecRequest, type ExecResult } from '../environment-driver.js';
import type { OutputBuffer } from '../../lib/output-buffer.js';
import { instancePath } from './instance-files.js';

/** Kills a process and everything it started, walking /proc (no `pkill` needed in the image): `sh -c KILL_TREE _ <pid>`. */
export const KILL_TREE = [
  'tree() {',
  '  kill -STOP "$1" 2>/dev/null',
  '  for f in /proc/[0-9]*/stat; do',
  '    s=$(cat "$f" 2>/dev/null) || continue; s=${s##*) }; set -- "$1" $s',
  '    c=${f#/proc/}; [ "$3" = "$1" ] && tree "${c%/stat}"',
  '  done',
  '  kill -KILL "$1" 2>/dev/null',
  '}',
  'tree "${1}"',
].join('\n');

/** The command that kills a process tree: from `/`, given a few seconds, its own output unread. */
export function killTreeCommand(pid: string): ShellCommand {
  return { argv: ['/bin/sh', '-c', KILL_TREE, 'wsa-kill', pid], cwd: '/', timeoutMs: 5_000, maxOutputBytes: 1024 };
}

const IDLE_LOOP = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done';

/** The instance's first process: idles until the instance is stopped (TERM ends it at once). */
export const IDLE_PROCESS = ['/bin/sh', '-c', IDLE_LOOP];

/** The same for platforms that do not make the working directory: it makes it first. */
export function idleProcess(workingDirectory: string): string[] {
  return ['/bin/sh', '-c', `mkdir -p -- "$1"; ${IDLE_LOOP}`, 'wsa-idle', workingDirectory];
}

/** Environment variable names a command can be given. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A request's command as an argument vector: a command line runs through `/bin/sh -c`. */
export function commandArgv(command: ExecRequest['command']): string[] {
  const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : [...command];
  if (!argv[0]) throw new EnvironmentDriverError('invalid_path', 'the command is empty');
  return argv;
}

/** A command as a driver's primitive runs it: an argument vector from an absolute directory. */
export interface ShellCommand {
  argv: readonly string[];
  cwd: string;
  env?: Record<string, string>;
  stdin?: Buffer | string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onOutput?: ExecRequest['onOutput'];
}

/** A caller's request as the command to run in an instance whose commands start in `workingDirectory`. */
export function shellCommandOf(request: ExecRequest, workingDirectory: string): ShellCommand {
  return {
    argv: commandArgv(request.command),
    cwd: instancePath(workingDirectory, request.cwd),
    env: request.env,
    stdin: request.stdin,
    timeoutMs: request.timeoutMs,
    maxOutputBytes: request.maxOutputBytes,
    signal: request.signal,
    onOutput: request.onOutput,
  };
}

/** A command's run as the driver saw it: the exit code the platform reported and the output it kept. */
export interface ShellRun {
  exitCode: number | null;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
}

/**
 * The driver's answer for a command that started at `startedAt`. A command the driver killed (its
 * timeout, the caller's abort) ended by SIGKILL, whatever code the platform reported for it.
 * `incomplete`: the platform lost output, so the answer says it is truncated.
 */
export function execResultOf(run: ShellRun, startedAt: number, incomplete = false): ExecResult {
  const killed = run.timedOut || run.aborted;
  return {
    exitCode: killed ? null : run.exitCode,
    signal: killed ? 'SIGKILL' : null,
    stdout: run.stdout.text(),
    stderr: run.stderr.text(),
    stdoutBytes: run.stdout.total,
    stderrBytes: run.stderr.total,
    truncated: run.stdout.truncated || run.stderr.truncated || incomplete,
    timedOut: run.timedOut,
    aborted: run.aborted,
    durationMs: Date.now() - startedAt,
  };
}

/**
 * The first line of a command's standard error, where the driver's wrapper reports the command's
 * process id (`echo "$$" >&2`) so that a timeout or an abort can kill it, as the platforms these
 * types use cannot. A kill asked for before the id arrived goes out as soon as it does. A first line
 * that is not a process id — the platform could not start the wrapper and said why there — stays
 * standard error, as does a first line the stream ended in the middle of.
 */
export class ReportedProcessId {
  private held: Buffer = Buffer.alloc(0);
  private lineRead = false;
  private killRequested = false;
  /** The command's process id, once reported (null: not yet, or never — the wrapper did not run). */
  pid: string | null = null;

  /** `killTree` kills a process id and what it started (a second command in the instance). */
  constructor(private readonly killTree: (pid: string) => void) {}

  /** Takes standard error's next chunk; answers what of it is the command's own output (empty while the first line is incomplete). */
  stderr(chunk: Buffer): Buffer {
    if (this.lineRead) return chunk;
    this.held = Buffer.concat([this.held, chunk]);
    const newline = this.held.indexOf(10);
    if (newline < 0) return Buffer.alloc(0);
    const all = this.held;
    this.held = Buffer.alloc(0);
    this.lineRead = true;
    const line = all.subarray(0, newline).toString('utf8').trim();
    if (!/^\d+$/.test(line)) return all;
    this.pid = line;
    if (this.killRequested) this.killTree(line);
    return all.subarray(newline + 1);
  }

  /** At the stream's end: what is still held back (a first line without its line end) is the command's output. */
  end(): Buffer {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    this.lineRead = true;
    return rest;
  }

  /** Kills the command, now or as soon as its process id arrives. */
  kill(): void {
    this.killRequested = true;
    if (this.pid) this.killTree(this.pid);
  }
}
