// Commands and files in a remote instance whose platform offers only "run this argument vector"
// (Fly Machines' exec endpoint, the Kubernetes pod `exec` subresource): everything else the driver
// contract asks for — a working directory, extra environment variables, killing a command at its
// timeout or on abort — is built here from small POSIX shell scripts run through that one
// primitive, and files through the shell-file adapter (./shell-files.ts) over the same primitive,
// so every such type behaves the same way.
//
// Killing: neither platform can kill an exec, so every command starts by writing its shell's process
// id to a file under /tmp; a timeout or an abort runs a second command that kills that process and
// everything it started (walking /proc, so no `pkill` is needed in the image).
// Files travel as base64 (`base64` is in every Debian, Ubuntu and Alpine image): a JSON API such as
// Fly's carries text only, and one encoding keeps both types identical.
import { randomBytes } from 'node:crypto';
import {
  EnvironmentDriverError,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
  type ExecRequest,
  type ExecResult,
} from '../environment-driver.js';
import { OutputBuffer } from '../../lib/output-buffer.js';
import { watchForKill } from './kill-watch.js';
import { ENV_NAME, execResultOf, KILL_TREE, shellCommandOf, type ShellCommand } from './shell-commands.js';
import { shellFiles } from './shell-files.js';

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

interface RawResult {
  exitCode: number | null;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
  timedOut: boolean;
  aborted: boolean;
}

async function runRaw(transport: RemoteTransport, req: ShellCommand): Promise<RawResult> {
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
  let killSent = false;
  const watch = watchForKill({
    timeoutMs: req.timeoutMs,
    signal: req.signal,
    graceMs: KILL_GRACE_MS,
    // One kill command: the record names the whole process tree. Whatever it reaches, the caller's
    // wait ends after the grace period.
    kill: () => {
      if (killSent) return;
      killSent = true;
      void transport({
        argv: ['/bin/sh', '-c', KILL_FROM_RECORD, 'wsa-kill', record],
        timeoutMs: KILL_GRACE_MS,
        signal: AbortSignal.timeout(KILL_GRACE_MS * 2),
        onChunk: () => undefined,
      }).catch(() => undefined);
    },
    giveUp: () => giveUp.abort(),
  });
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
    return { exitCode, stdout, stderr, timedOut: watch.timedOut, aborted: watch.aborted };
  } finally {
    watch.dispose();
  }
}

/** The driver's `exec` over a transport. */
export async function remoteExec(transport: RemoteTransport, workingDirectory: string, request: ExecRequest): Promise<ExecResult> {
  const started = Date.now();
  const raw = await runRaw(transport, shellCommandOf(request, workingDirectory));
  return execResultOf(raw, started);
}

/**
 * The file operations of a type over its transport (`transportOf` gives an instance's): scripts run
 * from `/` through the same wrapper as commands, so a file operation that hangs is killed at its
 * timeout too; content travels base64.
 */
export function remoteFiles(transportOf: (ctx: EnvironmentDriverContext, instance: EnvironmentInstance) => RemoteTransport) {
  return shellFiles({
    runnerOf: (ctx, instance) => (run) =>
      runRaw(transportOf(ctx, instance), {
        argv: run.argv,
        cwd: '/',
        stdin: run.stdin,
        timeoutMs: run.timeoutMs,
        maxOutputBytes: run.maxOutputBytes,
      }),
    place: 'instance',
    content: 'base64',
  });
}
