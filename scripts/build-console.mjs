// Builds the operator console (console/ → console/dist) when its sources changed since the last
// build, and does nothing otherwise: `npm start` and the test suite call it, so the page the service
// serves is always the one the sources describe, without a separate step to remember.
// `--force` builds whatever the digest says.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, sourceDigest, stampMatches } from './source-digest.mjs';

const consoleDir = join(root, 'console');
const dist = join(consoleDir, 'dist');
const stamp = join(dist, '.source-digest');
// What the bundle is made of: the console's own sources, the client package it imports, and the lock
// file (library versions).
const inputs = ['console/src', 'console/public', 'console/index.html', 'console/vite.config.ts', 'client/src', 'package-lock.json'];

export async function buildConsole({ force = false, quiet = false } = {}) {
  const digest = sourceDigest(inputs);
  if (!force && stampMatches(stamp, digest, join(dist, 'index.html'))) return false;
  const { build } = await import('vite');
  const started = Date.now();
  // Always the production bundle, whoever builds: Vite picks React's development build (and the
  // development export conditions) from NODE_ENV, which the test runner sets to `test`, and the same
  // files are then served by `npm start`.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: join(consoleDir, 'vite.config.ts'), mode: 'production', logLevel: quiet ? 'error' : 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  writeFileSync(stamp, `${digest}\n`);
  if (!quiet) console.log(`console built in ${((Date.now() - started) / 1000).toFixed(1)} s → ${relative(process.cwd(), dist) || '.'}`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildConsole({ force: process.argv.includes('--force') });
}
