// The daemon's environment host (src/envd/environments.ts) directly: the opt-in, confinement to the
// roots and to the environment's directory (symbolic links included), removal that never takes a
// root, and a clean environment for commands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvironmentHost, type Frame } from '../../src/envd/environments.js';

let work: string;
let root: string;
let scope: string;
let host: EnvironmentHost;
const frames: Frame[] = [];
const call = (method: string, params: Record<string, unknown>) => host.handle('req-1', method, params, (frame) => frames.push(frame));

beforeAll(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'wsa-envd-host-')));
  root = join(work, 'root');
  scope = join(root, '.wsa-environments', 'env_1');
  mkdirSync(scope, { recursive: true });
  mkdirSync(join(work, 'outside'));
  writeFileSync(join(work, 'outside', 'secret'), 'secret');
  symlinkSync(join(work, 'outside'), join(scope, 'out'));
  symlinkSync(join(work, 'outside', 'missing'), join(scope, 'dangling'));
  host = new EnvironmentHost([root], true);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('envd environment host', () => {
  it('refuses every environment method without the opt-in', async () => {
    const closed = new EnvironmentHost([root], false);
    for (const method of ['exec', 'read_file', 'write_file', 'list_files', 'stop', 'make_directory', 'remove_directory', 'abort'])
      await expect(
        closed.handle('r', method, {}, () => undefined),
        method,
      ).rejects.toMatchObject({ code: 'environments_disabled' });
  });

  it('confines paths to the environment and the roots, links included', async () => {
    await expect(call('read_file', { scope, path: join(scope, 'out', 'secret'), max_bytes: 10 })).rejects.toMatchObject({
      code: 'outside_roots',
      message: expect.stringMatching(/leads outside the environment/),
    });
    await expect(call('read_file', { scope, path: join(scope, '..', '..', '..', 'outside', 'secret') })).rejects.toMatchObject({
      code: 'outside_roots',
    });
    await expect(call('write_file', { scope, path: join(scope, 'dangling'), content_base64: 'eA==' })).rejects.toMatchObject({
      code: 'not_a_file',
    });
    expect(existsSync(join(work, 'outside', 'missing'))).toBe(false);
    await expect(call('list_files', { scope: join(work, 'outside'), path: join(work, 'outside') })).rejects.toMatchObject({
      code: 'outside_roots',
    });
    await expect(call('read_file', { scope, path: 'relative.txt' })).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(call('make_directory', { scope: root, path: join(root, '..', 'elsewhere') })).rejects.toMatchObject({
      code: 'outside_roots',
    });
    await expect(call('exec', { environment_id: 'env_1', scope, cwd: join(scope, 'out'), command: 'pwd' })).rejects.toMatchObject({
      code: 'outside_roots',
    });
  });

  it('writes in parts, reads in chunks, and never removes a root', async () => {
    expect(
      await call('write_file', { scope, path: join(scope, 'a', 'b.txt'), content_base64: Buffer.from('one').toString('base64') }),
    ).toEqual({
      size_bytes: 3,
    });
    await call('write_file', {
      scope,
      path: join(scope, 'a', 'b.txt'),
      content_base64: Buffer.from('two').toString('base64'),
      append: true,
    });
    frames.length = 0;
    expect(await call('read_file', { scope, path: join(scope, 'a', 'b.txt'), max_bytes: 4 })).toEqual({
      size_bytes: 6,
      read_bytes: 4,
      truncated: true,
    });
    expect(Buffer.from((frames[0] as { data: string }).data, 'base64').toString()).toBe('onet');
    await expect(call('remove_directory', { environment_id: 'env_1', path: root })).rejects.toMatchObject({ code: 'outside_roots' });
    await expect(call('remove_directory', { environment_id: 'env_1', path: join(scope, 'out') })).rejects.toMatchObject({
      code: 'outside_roots',
    });
    expect(existsSync(join(work, 'outside', 'secret'))).toBe(true);
  });

  it('gives commands a clean environment', async () => {
    process.env.ENVD_HOST_TEST_SECRET = 'hunter2';
    const result = (await call('exec', {
      environment_id: 'env_1',
      scope,
      cwd: scope,
      command: 'echo "[$ENVD_HOST_TEST_SECRET][$EXTRA][$HOME]"',
      env: { EXTRA: 'x' },
      timeout_ms: 10_000,
    })) as { exit_code: number; stdout_base64: string };
    delete process.env.ENVD_HOST_TEST_SECRET;
    expect(result.exit_code).toBe(0);
    expect(Buffer.from(result.stdout_base64, 'base64').toString()).toBe(`[][x][${scope}]\n`);
  });
});
