// Files of the checkout (package.json, migrations, built-in skills, the console bundle) are found from
// the repository's root, which a module finds from its own place: the same answer under tsx (src/) and
// compiled (dist/src/, one level deeper), so neither layout depends on a count of `../`.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPOSITORY_ROOT, fromRepositoryRoot } from '../../src/lib/repository-root.js';
import { MIGRATIONS_DIR } from '../../src/storage/migrate.js';
import { CONSOLE_DIST } from '../../src/console-bundle/serve.js';
// @ts-expect-error a plain ES module script without types
import { DIST, buildService } from '../../scripts/build.mjs';

describe('the repository root', () => {
  it('is the directory of the service’s package.json, whatever the module’s depth', () => {
    expect(REPOSITORY_ROOT).toBe(resolve(import.meta.dirname, '../..'));
    expect(existsSync(fromRepositoryRoot('package.json'))).toBe(true);
  });

  it('places the migrations and the console bundle in the checkout, not beside the modules', () => {
    expect(MIGRATIONS_DIR).toBe(resolve(import.meta.dirname, '../../prisma/migrations'));
    expect(existsSync(MIGRATIONS_DIR)).toBe(true);
    expect(CONSOLE_DIST).toBe(resolve(import.meta.dirname, '../../console/dist'));
  });

  it('is the same from the compiled build in dist/ (what npm start runs)', { timeout: 120_000 }, async () => {
    await buildService({ quiet: true }); // a no-op when dist/ is current, as for npm start
    const compiled = (module: string) => import(pathToFileURL(resolve(DIST as string, module)).href);
    expect((await compiled('src/lib/repository-root.js')).REPOSITORY_ROOT).toBe(REPOSITORY_ROOT);
    expect((await compiled('src/storage/migrate.js')).MIGRATIONS_DIR).toBe(MIGRATIONS_DIR);
  });
});
