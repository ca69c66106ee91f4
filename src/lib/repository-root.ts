// The repository's root directory, for the files the service reads from the checkout itself
// (package.json, prisma/migrations, builtin-skills, console/dist). A module cannot name them by a fixed
// number of `../` steps: it runs from src/ under tsx in development and from dist/src/ once compiled
// (`npm start`), one level deeper. The root is the nearest directory above this module holding the
// service's package.json; dist/ has none of its own, so both layouts find the same one.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_NAME = 'workspace-agent-service';

function findRepositoryRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json of ${PACKAGE_NAME} above ${start}`);
  }
}

export const REPOSITORY_ROOT = findRepositoryRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the repository, from its root (`fromRepositoryRoot('prisma', 'migrations')`). */
export function fromRepositoryRoot(...segments: string[]): string {
  return join(REPOSITORY_ROOT, ...segments);
}
