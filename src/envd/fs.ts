// The daemon's file-system side: every requested path is resolved (symlinks included) and must lie
// inside one of the roots the daemon was started with.
import { realpathSync } from 'node:fs';
import { opendir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';

export const MAX_ENTRIES = 1000;

export class EnvdError extends Error {
  constructor(
    readonly code:
      | 'outside_roots'
      | 'not_found'
      | 'not_a_directory'
      | 'not_a_file'
      | 'invalid_path'
      | 'invalid_request'
      | 'unknown_method'
      | 'environments_disabled',
    message: string,
  ) {
    super(message);
  }
}

export function resolveRoots(roots: string[]): string[] {
  return roots.map((root) => {
    try {
      return realpathSync(resolve(root));
    } catch {
      throw new Error(`root ${root} does not exist`);
    }
  });
}

const inside = (root: string, candidate: string) => {
  const rel = relative(root, candidate);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** The real path of `requested` (absolute) if it lies inside a root; refuses anything else. */
export async function confineToRoots(roots: string[], requested: string): Promise<string> {
  if (!isAbsolute(requested) || requested.includes('\u0000')) throw new EnvdError('invalid_path', 'path must be an absolute path');
  const lexical = resolve(requested);
  if (!roots.some((root) => inside(root, lexical)))
    throw new EnvdError('outside_roots', `${requested} is outside the roots this device serves`);
  let real: string;
  try {
    real = await realpath(lexical);
  } catch {
    throw new EnvdError('not_found', `${requested} does not exist`);
  }
  // A symlink inside a root may point outside it.
  if (!roots.some((root) => inside(root, real)))
    throw new EnvdError('outside_roots', `${requested} resolves outside the roots this device serves`);
  if (!(await stat(real)).isDirectory()) throw new EnvdError('not_a_directory', `${requested} is not a directory`);
  return real;
}

/** The subdirectories of `directory`, sorted by name, at most MAX_ENTRIES. */
export async function listDirectories(directory: string) {
  const entries: { name: string; path: string }[] = [];
  let truncated = false;
  for await (const entry of await opendir(directory)) {
    if (!entry.isDirectory()) continue;
    if (entries.length >= MAX_ENTRIES) {
      truncated = true;
      break;
    }
    entries.push({ name: entry.name, path: join(directory, entry.name) });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { path: directory, entries, truncated };
}
