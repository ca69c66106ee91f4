// What both builds (the service's, scripts/build.mjs, and the console's, scripts/build-console.mjs)
// use to tell whether their output is current: a digest of their inputs' paths and contents, kept
// in a stamp file beside the output.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** Every file at or below `path`, in name order (none when it does not exist). */
export function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

/** A digest of every file's path (relative to the repository) and contents, below the `inputs` named relative to it. */
export function sourceDigest(inputs) {
  const hash = createHash('sha256');
  for (const input of inputs)
    for (const file of files(join(root, input))) {
      hash.update(relative(root, file));
      hash.update('\0');
      hash.update(readFileSync(file));
      hash.update('\0');
    }
  return hash.digest('hex');
}

/** Whether the `stamp` file holds `digest` and the build's `output` file is there: the output was built from these inputs. */
export const stampMatches = (stamp, digest, output) =>
  existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest && existsSync(output);
