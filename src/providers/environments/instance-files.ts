// What every type that reaches an instance's files by path shares: where a caller's path points
// inside the instance, the working directory a template names, the order a listing answers in, and
// the vendor id of an instance whose own id was never recorded.
// (The `local` and `envd` types confine paths to a directory of a real machine instead: ./local.ts,
// ../../envd/; they share only how a template names its working directory, `subdirectoryOf`.)
import { posix } from 'node:path';
import { EnvironmentDriverError, type FileEntry } from '../environment-driver.js';

/** A path inside the instance: relative to `base`, or absolute (the whole instance is the environment). */
export function instancePath(base: string, path: string | undefined): string {
  const value = path ?? '.';
  if (value.includes('\0')) throw new EnvironmentDriverError('invalid_path', 'a path cannot contain NUL');
  return posix.resolve(base || '/', value || '.');
}

/** The file a write goes to: a path inside the instance (as instancePath); the instance's root is not a file. */
export function fileToWrite(base: string, path: string): string {
  const file = instancePath(base, path);
  if (file === '/') throw new EnvironmentDriverError('not_a_file', `${path} is not a file`);
  return file;
}

/**
 * The working directory a template's config names, for the types whose instance is a directory of a
 * real machine (`local`, `envd`): a relative path inside the instance, '' when it names none. A path
 * that would leave the instance (absolute, or with a `..` part) is refused. Both machines' paths are
 * POSIX paths (the service and the device daemon run on POSIX systems).
 */
export function subdirectoryOf(config: Record<string, unknown>): string {
  const value = config.working_directory;
  if (value === undefined || value === null || value === '') return '';
  const path = String(value);
  if (posix.isAbsolute(path) || path.split(/[\\/]/).includes('..'))
    throw new EnvironmentDriverError('invalid_path', 'working_directory must be a relative path inside the environment');
  return path;
}

const FILE_KINDS: readonly FileEntry['kind'][] = ['file', 'directory', 'symlink', 'other'];

/** A file kind a machine answered (as text), or `other` when it is none of the kinds. */
export const fileKindOf = (value: unknown): FileEntry['kind'] => FILE_KINDS.find((kind) => kind === value) ?? 'other';

/** The image a template's config names (the types that start from an image require one). */
export function imageOf(config: Record<string, unknown>): string {
  const image = typeof config.image === 'string' ? config.image : '';
  if (!image) throw new Error('the template names no image');
  return image;
}

/**
 * The absolute working directory a template's config names, normalized, or `fallback` when it names
 * none. `place` names the instance in the refusal of a relative path (the container, the sandbox).
 */
export function workingDirectoryOf<Fallback extends string | null>(
  config: Record<string, unknown>,
  fallback: Fallback,
  place = 'instance',
): string | Fallback {
  const value = config.working_directory;
  if (value === undefined || value === null || value === '') return fallback;
  const path = String(value);
  if (!path.startsWith('/'))
    throw new EnvironmentDriverError('invalid_path', `working_directory must be an absolute path inside the ${place}`);
  return posix.normalize(path);
}

/**
 * A listing as every type answers it: breadth first and sorted per level, so a listing cut at
 * `limit` entries shows the top levels first. `truncated`: the type already knows it left entries out.
 */
export function breadthFirst(all: FileEntry[], limit: number, truncated = false): { entries: FileEntry[]; truncated: boolean } {
  const depthOf = (entry: FileEntry) => entry.path.split('/').length;
  all.sort((a, b) => depthOf(a) - depthOf(b) || a.path.localeCompare(b.path));
  return { entries: all.slice(0, limit), truncated: truncated || all.length > limit };
}

/**
 * The vendor's id of what an instance names (a sandbox, a machine): its recorded id, or — for an
 * environment whose provisioning failed before that id was recorded (the service then passes the
 * environment's own id, `env_…`) — the one `find` finds made for that environment (null: none).
 */
export async function vendorIdOf(instanceId: string, find: (environmentId: string) => Promise<string | null>): Promise<string | null> {
  return instanceId.startsWith('env_') ? find(instanceId) : instanceId;
}
