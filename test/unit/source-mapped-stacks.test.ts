// The compiled build runs without `--enable-source-maps` (which parses and keeps every loaded module's
// map, the dependencies' too: ~70 MB of the idle process), yet its traces name the .ts files and lines:
// src/lib/source-mapped-stacks.ts maps the service's own frames when a trace is formatted. The same
// error's trace must read exactly as Node's own source-map support prints it, and each compiled entry
// point installs the mapping before anything else.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module script without types
import { DIST, buildService } from '../../scripts/build.mjs';

const ROOT = resolve(import.meta.dirname, '../..');

/** A script that makes the compiled cursor decoder throw, sync and after an await, and prints the traces. */
function probeScript(installOurs: boolean): string {
  const dist = pathToFileURL(DIST as string).href;
  return [
    `const before = Error.prepareStackTrace;`,
    installOurs ? `await import('${dist}/src/lib/source-mapped-stacks.js');` : '',
    `const { decodeCursor } = await import('${dist}/src/lib/cursor.js');`,
    `try { decodeCursor('runs', '!!!'); } catch (error) { console.log(error.stack); }`,
    `async function later() { await null; decodeCursor('runs', '$$'); }`,
    `await later().catch((error) => console.log(error.stack));`,
    `console.log('installed', Error.prepareStackTrace !== before);`,
  ].join('\n');
}

const probeDirectory = mkdtempSync(join(tmpdir(), 'wsa-stacks-'));

function run(nodeFlags: string[], installOurs: boolean): string {
  const script = join(probeDirectory, `probe-${installOurs ? 'ours' : 'plain'}.mjs`);
  writeFileSync(script, probeScript(installOurs));
  return execFileSync(process.execPath, [...nodeFlags, script], { encoding: 'utf8' });
}

describe('traces of the compiled build', () => {
  it('name the .ts files and lines exactly as --enable-source-maps does', { timeout: 120_000 }, async () => {
    await buildService({ quiet: true });
    const ours = run([], true);
    const nodes = run(['--enable-source-maps'], false);
    const throwLine =
      readFileSync(join(ROOT, 'src/lib/cursor.ts'), 'utf8')
        .split('\n')
        .findIndex((line) => line.includes("throw invalidArgument('cursor is not")) + 1;
    expect(ours).toContain(`at decodeCursor (${join(ROOT, 'src/lib/cursor.ts')}:${throwLine}:`);
    expect(ours).not.toContain('dist/src/lib/cursor.js');
    expect(ours.replace('installed true', 'installed false').replaceAll('probe-ours', 'probe-plain')).toBe(nodes);
    // Without the module the positions are the compiled file's: the mapping is what changed them.
    expect(run([], false)).toContain('dist/src/lib/cursor.js');
  });

  it('are left to Node when its own source maps are on', { timeout: 120_000 }, async () => {
    await buildService({ quiet: true });
    expect(run(['--enable-source-maps'], true)).toContain('installed false');
  });

  it('are mapped from the first import of every compiled entry point', () => {
    for (const entry of ['server', 'worker', 'cli', 'db-cli']) {
      const firstImport = readFileSync(join(ROOT, `src/${entry}.ts`), 'utf8')
        .split('\n')
        .find((line) => line.startsWith('import '));
      expect(firstImport, entry).toBe("import './lib/source-mapped-stacks.js';");
    }
  });
});
