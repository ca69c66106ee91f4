// File operations done by small POSIX shell scripts inside an instance (the container engine, Modal
// sandboxes): the scripts' shared conventions — exit codes for the caller's mistakes, paths passed
// from `/`, and the listing format — read in one place so every type answers them alike.
import { EnvironmentDriverError, type FileEntry } from '../environment-driver.js';
import type { OutputBuffer } from '../../lib/output-buffer.js';

/** `/a/b` as `./a/b`: file scripts run from `/`, so the path is the same and never looks like an option. */
export const fromRoot = (absolute: string) => `.${absolute}`;

/**
 * Lists `$1` to depth `$2`, one line per entry: kind|size|modified (seconds)|path relative to the
 * directory. Exit 3: missing; 5: not a directory.
 */
export const LIST_SCRIPT =
  '[ -e "$1" ] || exit 3; [ -d "$1" ] || exit 5; cd -- "$1" && find . -mindepth 1 -maxdepth "$2" -exec stat -c "%F|%s|%Y|%n" {} +';

const KIND_OF_STAT: Record<string, FileEntry['kind']> = {
  'regular file': 'file',
  'regular empty file': 'file',
  directory: 'directory',
  'symbolic link': 'symlink',
};

/** The entries of a LIST_SCRIPT answer, breadth first and sorted per level (as the local type lists), at most `limit`. */
export function parseListing(text: string, limit: number, outputTruncated: boolean): { entries: FileEntry[]; truncated: boolean } {
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
  // A limited listing shows the top levels first.
  const depthOf = (entry: FileEntry) => entry.path.split('/').length;
  all.sort((a, b) => depthOf(a) - depthOf(b) || a.path.localeCompare(b.path));
  return { entries: all.slice(0, limit), truncated: all.length > limit || outputTruncated };
}

/**
 * Throws what a file script's ending means for the caller: exit 3 missing, 4 not a file, 5 not a
 * directory, a time-out the instance's fault, any other failure (permission denied, a read-only file
 * system) a problem with the path the caller named. `place` names the instance in messages.
 */
export function checkFileScript(
  raw: { exitCode: number | null; timedOut: boolean; stderr: OutputBuffer },
  path: string,
  place: 'container' | 'sandbox',
): void {
  if (raw.exitCode === 3) throw new EnvironmentDriverError('not_found', `${path} does not exist`);
  if (raw.exitCode === 4) throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
  if (raw.exitCode === 5) throw new EnvironmentDriverError('not_a_directory', `${path} is not a directory`);
  if (raw.timedOut) throw new EnvironmentDriverError('unavailable', `the ${place} did not finish the file operation on ${path} in time`);
  if (raw.exitCode !== 0)
    throw new EnvironmentDriverError('invalid_path', `${path}: ${raw.stderr.text().trim().slice(0, 500) || `exit code ${raw.exitCode}`}`);
}
