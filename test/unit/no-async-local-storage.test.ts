// The service keeps AsyncLocalStorage out of its own code. On Node 22 the first `run` or `enterWith`
// of any store installs promise hooks for the whole process, for good: every promise of every
// request and every streamed token then pays for a hook call and a context copy (2.3 % of node's
// own time in a profile of 300 live runs, more inside the microtask queue). A value a call needs is
// passed with the call instead (the lean chat reader's slot travels with the request's own abort
// signal, for example).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [path] : [];
  });

describe('the service source', () => {
  it('uses no AsyncLocalStorage and no async hook', () => {
    const offenders = [...sourceFiles('src'), ...sourceFiles('rest-shim')].filter((file) =>
      /\bAsyncLocalStorage\b|\bcreateHook\s*\(/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });
});
