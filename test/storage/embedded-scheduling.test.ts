// The embedded PostgreSQL under SCHED_BATCH (opt-in): the postmaster and the backends it forks for the
// service's connections run under the batch policy where `chrt` can set it (this machine, Linux with
// util-linux), and under the ordinary policy by default. Read from /proc, as the kernel sees them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/storage/embedded.js';
import { batchLauncher, SCHED_BATCH, schedulingPolicy } from '../../src/storage/embedded-scheduling.js';
import { createLogger } from '../../src/lib/logger.js';

const logger = createLogger('silent');
const policyOf = (pid: number) => schedulingPolicy(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/** The policies of the postmaster of `root` and of a backend serving a new connection of `url`. */
async function policies(root: string, url: string): Promise<{ postmaster: number; backend: number }> {
  const postmasterPid = Number(readFileSync(join(root, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return { postmaster: policyOf(postmasterPid), backend: policyOf(rows[0]!.pid) };
  } finally {
    await client.end();
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsa-sched-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('the embedded PostgreSQL scheduling policy', () => {
  it('reads the policy field of /proc/<pid>/stat past a command name with spaces and parentheses', () => {
    const fields = Array.from({ length: 50 }, (_, index) => String(index + 3)); // field numbers from 3 (state)
    fields[41 - 3] = '3';
    expect(schedulingPolicy(`42 (post (gres) x) ${fields.join(' ')}`)).toBe(3);
  });

  it.runIf(batchLauncher() !== null)('runs the postmaster and its backends under SCHED_BATCH', async () => {
    const root = join(dir, 'batch');
    const database = await startEmbeddedPostgres(root, logger, { fastUnsafe: true, batchScheduling: true });
    try {
      expect(await policies(root, database.url)).toEqual({ postmaster: SCHED_BATCH, backend: SCHED_BATCH });
    } finally {
      await database.stop();
    }
  });

  it('keeps the ordinary policy by default', async () => {
    const root = join(dir, 'normal');
    const database = await startEmbeddedPostgres(root, logger, { fastUnsafe: true });
    try {
      expect(await policies(root, database.url)).toEqual({ postmaster: 0, backend: 0 });
    } finally {
      await database.stop();
    }
  });
});
