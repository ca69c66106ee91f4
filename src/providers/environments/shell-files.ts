// The shell-file adapter: a driver's readFile, writeFile and listFiles done by small POSIX shell
// scripts run inside the instance through the driver's own way of running a command (the container
// engine's exec, Modal's command router, Fly's exec endpoint, the Kubernetes exec subresource). The
// driver supplies only that primitive; the scripts, their conventions and what their answers mean
// are here, so every such type answers file operations alike.
//
// Conventions: a script runs from `/` and gets its paths as `./a/b` (the same file, and never taken
// for an option); exit codes 3, 4 and 5 say the path is missing, not a file, not a directory. A
// script's answer is on standard output alone (a file's size on the first line, then its content),
// because standard output is the stream every primitive vouches for (the container engine's end
// marker covers it, not standard error). Files need `find`, `stat`, `wc` and `head` in the image.
import { EnvironmentDriverError } from '../environment-driver.js';
import type { EnvironmentDriver, EnvironmentDriverContext, EnvironmentInstance, FileEntry } from '../environment-driver.js';
import type { OutputBuffer } from '../../lib/output-buffer.js';
import { breadthFirst, fileToWrite, instancePath } from './instance-files.js';

/** File operations are bounded: an instance that does not answer in time is unavailable. */
const FILE_TIMEOUT_MS = 60_000;
/** What a listing keeps of its output. */
const LISTING_MAX_BYTES = 8 * 1024 * 1024;

/** One file script, for the driver's primitive to run with `/` as its working directory. */
export interface FileScriptRun {
  /** `/bin/sh -c <script> wsa-files <arguments…>` */
  argv: readonly string[];
  /** Written to standard input, then closed (absent: standard input is empty). */
  stdin?: Buffer;
  timeoutMs: number;
  /** Bytes kept of standard output and of standard error each. */
  maxOutputBytes: number;
  /** The script only reads, so running it again is harmless (a primitive that can lose output may retry it). */
  readOnly: boolean;
  /** The path as the caller named it, for messages. */
  path: string;
}

/** How the script ended; the primitive throws EnvironmentDriverError('unavailable') when the instance cannot be reached. */
export interface FileScriptResult {
  exitCode: number | null;
  timedOut: boolean;
  stdout: OutputBuffer;
  stderr: OutputBuffer;
}

export type FileScriptRunner = (run: FileScriptRun) => Promise<FileScriptResult>;

export interface ShellFilesOptions {
  /** The driver's primitive for one instance. */
  runnerOf: (ctx: EnvironmentDriverContext, instance: EnvironmentInstance) => FileScriptRunner;
  /** How messages name the instance: `container`, `sandbox`, `instance`. */
  place: string;
  /**
   * How file content crosses the primitive: as bytes, or as base64 text where the platform carries
   * text only (a JSON API such as Fly's; `base64` must be in the image then).
   */
  content: 'bytes' | 'base64';
}

/** `/a/b` as `./a/b`: file scripts run from `/`, so the path is the same and never looks like an option. */
export const fromRoot = (absolute: string) => `.${absolute}`;

/**
 * Lists `$1` to depth `$2`, one line per entry: kind|size|modified (seconds)|path relative to the
 * directory. Exit 3: missing; 5: not a directory.
 */
const LIST_SCRIPT =
  '[ -e "$1" ] || exit 3; [ -d "$1" ] || exit 5; cd -- "$1" && find . -mindepth 1 -maxdepth "$2" -exec stat -c "%F|%s|%Y|%n" {} +';

/** Reads at most `$2` bytes of the file `$1`: its size on the first line, then the content. */
const readScript = (decode: string) => `[ -e "$1" ] || exit 3; [ -f "$1" ] || exit 4; wc -c < "$1" && head -c "$2" "$1"${decode}`;

/** Replaces the file `$1` with standard input, making its parent directories. */
const writeScript = (encode: string) =>
  `if [ -e "$1" ] && [ ! -f "$1" ]; then exit 4; fi; mkdir -p -- "$(dirname -- "$1")" && ${encode} > "$1"`;

const KIND_OF_STAT: Record<string, FileEntry['kind']> = {
  'regular file': 'file',
  'regular empty file': 'file',
  directory: 'directory',
  'symbolic link': 'symlink',
};

/** The entries of a LIST_SCRIPT answer, breadth first and sorted per level, at most `limit`. */
function parseListing(text: string, limit: number, outputTruncated: boolean): { entries: FileEntry[]; truncated: boolean } {
  const all: FileEntry[] = [];
  for (const line of text.split('\n')) {
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
  return breadthFirst(all, limit, outputTruncated);
}

/**
 * Throws what a file script's ending means for the caller: exit 3 missing, 4 not a file, 5 not a
 * directory, a time-out the instance's fault, any other failure (permission denied, a read-only file
 * system, a tool missing from the image) a problem with the path the caller named.
 */
function checkFileScript(raw: FileScriptResult, path: string, place: string): void {
  if (raw.exitCode === 3) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
  if (raw.exitCode === 4) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
  if (raw.exitCode === 5) throw new EnvironmentDriverError('not_a_directory', `${path} is not a directory`);
  if (raw.timedOut) throw new EnvironmentDriverError('unavailable', `the ${place} did not finish the file operation on ${path} in time`);
  if (raw.exitCode !== 0)
    throw new EnvironmentDriverError('invalid_path', `${path}: ${raw.stderr.text().trim().slice(0, 500) || `exit code ${raw.exitCode}`}`);
}

/** The file operations of a driver whose instances run shell scripts through `options.runnerOf`. */
export function shellFiles(options: ShellFilesOptions): Pick<EnvironmentDriver, 'readFile' | 'writeFile' | 'listFiles'> {
  const base64 = options.content === 'base64';
  const run = async (
    ctx: EnvironmentDriverContext,
    instance: EnvironmentInstance,
    script: string,
    args: string[],
    details: Omit<FileScriptRun, 'argv' | 'timeoutMs'>,
  ) => {
    const raw = await options.runnerOf(
      ctx,
      instance,
    )({ argv: ['/bin/sh', '-c', script, 'wsa-files', ...args], timeoutMs: FILE_TIMEOUT_MS, ...details });
    checkFileScript(raw, details.path, options.place);
    return raw;
  };
  return {
    async readFile(ctx, instance, path, { maxBytes }) {
      const file = instancePath(instance.workingDirectory, path);
      const raw = await run(ctx, instance, readScript(base64 ? ' | base64' : ''), [fromRoot(file), String(maxBytes)], {
        // The size line, then the content (base64: 4 bytes per 3, and a line break every 76 characters).
        maxOutputBytes: base64 ? Math.ceil(maxBytes / 3) * 4 * 1.05 + 1024 : maxBytes + 32,
        readOnly: true,
        path,
      });
      const output = raw.stdout.bytes();
      const newline = output.indexOf(10);
      const rest = newline < 0 ? Buffer.alloc(0) : output.subarray(newline + 1);
      const content = base64 ? Buffer.from(rest.toString('utf8').replace(/\s+/g, ''), 'base64') : rest;
      const sizeBytes = Number(output.subarray(0, Math.max(newline, 0)).toString('utf8').trim()) || content.length;
      return { content, sizeBytes, truncated: sizeBytes > content.length };
    },
    async writeFile(ctx, instance, path, content) {
      const file = fileToWrite(instance.workingDirectory, path);
      const bytes = Buffer.from(content);
      await run(ctx, instance, writeScript(base64 ? 'base64 -d' : 'cat'), [fromRoot(file)], {
        stdin: base64 ? Buffer.from(bytes.toString('base64')) : bytes,
        maxOutputBytes: 4096,
        readOnly: false,
        path,
      });
      return { sizeBytes: bytes.length };
    },
    async listFiles(ctx, instance, path, { depth, limit }) {
      const directory = instancePath(instance.workingDirectory, path);
      const raw = await run(ctx, instance, LIST_SCRIPT, [fromRoot(directory), String(Math.max(1, depth))], {
        maxOutputBytes: LISTING_MAX_BYTES,
        readOnly: true,
        path,
      });
      return parseListing(raw.stdout.text(), limit, raw.stdout.truncated);
    },
  };
}
