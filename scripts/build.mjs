// Builds what `npm start` runs: the service's TypeScript (src/, the REST shim, the generated Prisma
// client) compiled to plain JavaScript in dist/, and the operator console (scripts/build-console.mjs).
// Each part is rebuilt only when its sources changed since its last build (a digest of their contents
// is kept beside the output), so `npm start` can call it every time: on an unchanged tree it only
// hashes the sources. `--force` rebuilds both; `--service` leaves the console out (the worker and the
// command-line tools do not serve it).
//
// dist/ mirrors the repository's layout (dist/src/server.js for src/server.ts), files that are not
// TypeScript (.graphql operations, .proto files, the API reference page) are copied beside the compiled
// modules, and every module gets a source map pointing back at its .ts file. Files the service reads
// from the repository itself (package.json, prisma/migrations, builtin-skills, console/dist) are not
// copied: src/lib/repository-root.ts finds them from either layout.
//
// Each file is compiled on its own (TypeScript's transpileModule, what `isolatedModules` in
// tsconfig.json already guarantees is enough): no type checking here, that is `npm run typecheck`'s job,
// so a build takes seconds, and it never refuses to start a service over a type error.
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildConsole } from './build-console.mjs';
import { files, root, sourceDigest, stampMatches } from './source-digest.mjs';

export const DIST = join(root, 'dist');
const stamp = join(DIST, '.source-digest');
/** The folders compiled into dist/ (src/ holds the generated Prisma client too). */
const SOURCE_DIRS = ['src', 'rest-shim'];
/** What else decides the output: this script (its options) and the lock file (the TypeScript version). */
const BUILD_INPUTS = ['scripts/build.mjs', 'package-lock.json'];

/** A digest of every input's path and contents. */
export const serviceSourceDigest = () => sourceDigest([...SOURCE_DIRS, ...BUILD_INPUTS]);

/** Whether dist/ was built from the sources as they are now. */
export const serviceBuildIsCurrent = (digest = serviceSourceDigest()) => stampMatches(stamp, digest, join(DIST, 'src', 'server.js'));

function compile(ts, source, target) {
  const { outputText, sourceMapText } = ts.transpileModule(readFileSync(source, 'utf8'), {
    fileName: source,
    compilerOptions: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      // `./client.ts` in the generated Prisma client becomes `./client.js`; our own `.js` specifiers stay.
      rewriteRelativeImportExtensions: true,
      sourceMap: true,
      isolatedModules: true,
      esModuleInterop: true,
      resolveJsonModule: true,
    },
  });
  mkdirSync(dirname(target), { recursive: true });
  const map = JSON.parse(sourceMapText);
  // The map names the .ts file as it sits in the repository, relative to the compiled module.
  map.sources = [relative(dirname(target), source)];
  map.file = target.slice(dirname(target).length + 1);
  writeFileSync(target, outputText);
  writeFileSync(`${target}.map`, JSON.stringify(map));
}

/**
 * Compiles src/ and rest-shim/ into dist/ when they changed (or always with `force`). The new tree is
 * written beside dist/ and then put in its place, so a service starting meanwhile never sees half of it.
 * Returns whether it built.
 */
export async function buildService({ force = false, quiet = false } = {}) {
  const digest = serviceSourceDigest();
  if (!force && serviceBuildIsCurrent(digest)) return false;
  const started = Date.now();
  const ts = (await import('typescript')).default;
  const staging = `${DIST}.building-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  let compiled = 0;
  try {
    for (const dir of SOURCE_DIRS)
      for (const source of files(join(root, dir))) {
        const target = join(staging, relative(root, source));
        if (source.endsWith('.d.ts')) continue;
        if (source.endsWith('.ts')) {
          compile(ts, source, target.replace(/\.ts$/, '.js'));
          compiled += 1;
        } else {
          mkdirSync(dirname(target), { recursive: true });
          copyFileSync(source, target);
        }
      }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  writeFileSync(join(staging, '.source-digest'), `${digest}\n`);
  // Two builds at once (`npm start` beside a benchmark, say): the one that finishes second keeps the
  // first one's tree when it was built from the same sources, instead of pulling it from under a
  // process that is starting on it.
  if (!force && serviceBuildIsCurrent(digest)) {
    rmSync(staging, { recursive: true, force: true });
    return false;
  }
  // The old tree is moved aside (a rename is atomic) rather than deleted in place: a removal racing
  // another build's rename into dist/ would fail half-way (ENOTEMPTY) or delete part of the new tree.
  const old = `${DIST}.old-${process.pid}`;
  try {
    renameSync(DIST, old);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(staging, DIST);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!serviceBuildIsCurrent(digest)) throw error;
    return false;
  } finally {
    rmSync(old, { recursive: true, force: true });
  }
  // On stderr: `npm run cli -- … --json` builds first, and its stdout is the command's answer.
  if (!quiet) console.error(`service built in ${((Date.now() - started) / 1000).toFixed(1)} s: ${compiled} modules → dist/`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const force = process.argv.includes('--force');
  await buildService({ force });
  if (!process.argv.includes('--service')) await buildConsole({ force });
}
