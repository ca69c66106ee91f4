// The fault suite's slow tier: one of each fault, at its smallest, on a loopback cluster of two
// API-only instances and two worker processes (test/helpers/fault-cluster.ts) on a PostgreSQL server
// of the suite's own, which the restart faults really stop and start, with clients streaming
// throughout. The same scenarios run bigger with `npm run faults` (bench/faults.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Cluster, startFaultDatabase } from '../helpers/fault-cluster.js';
import {
  clientToolOnTakeover,
  environmentCommandKind,
  subagentKind,
  gatewayKilled,
  httpRequestKind,
  mcpKind,
  postgresRestart,
  redisDown,
  rollingDeploy,
  sideEffectsOnTakeover,
  workerPartitioned,
  type Figures,
} from '../helpers/fault-scenarios.js';

let cluster: Cluster;
let dataDir: string;
let database: Awaited<ReturnType<typeof startFaultDatabase>>;

beforeAll(async () => {
  database = await startFaultDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'wsa-faults-'));
  cluster = await Cluster.start({
    ...database,
    dataDir,
    apiKey: `wsk_${randomBytes(16).toString('hex')}`,
    // Short, so that a partitioned or killed worker's runs are taken over within seconds.
    leaseMs: 3_000,
    workersPerProcess: 8,
  });
}, 240_000);
afterAll(async () => {
  await cluster?.stop();
  await database?.postgres.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Nothing lost, repeated or refused wrongly; every run completed. */
function expectClean(f: Figures) {
  console.log(JSON.stringify({ ...f, problems: f.problems.length }));
  expect(f.problems).toEqual([]);
  expect(f).toMatchObject({ gaps: 0, duplicates: 0, repeatedSideEffects: 0, bad5xx: 0 });
  expect(f.runsCompleted).toBe(f.runsStarted);
  expect(f.itemsChecked).toBeGreaterThan(0);
}

describe('a cluster under faults', { tags: ['slow'] }, () => {
  it('an API instance SIGKILLed mid-stream: its clients resume on the other from their position', { timeout: 180_000 }, async () => {
    const f = await gatewayKilled(cluster, { runs: 4 });
    expectClean(f);
    expect(f.maxReconnects).toBe(1);
  });

  it(
    'PostgreSQL stopped (pg_ctl -m fast) for 5 s and started again: 503 unavailable with Retry-After, never 500; every run completes',
    { timeout: 240_000 },
    async () => {
      const f = await postgresRestart(cluster, { runs: 3, outageMs: 5_000, mode: 'fast' });
      expectClean(f);
      expect(f.refused).toBeGreaterThan(0);
    },
  );

  it('PostgreSQL crashed (pg_ctl -m immediate) for 5 s, then crash recovery: the same', { timeout: 240_000 }, async () => {
    const f = await postgresRestart(cluster, { runs: 3, outageMs: 5_000, mode: 'immediate' });
    expectClean(f);
    expect(f.refused).toBeGreaterThan(0);
  });

  it('Redis away 10 s: no instance exits, clients miss nothing', { timeout: 240_000 }, async () => {
    expectClean(await redisDown(cluster, { runs: 3, outageMs: 10_000 }));
  });

  it('a worker cut from PostgreSQL past its lease: taken over, and it writes nothing more', { timeout: 240_000 }, async () => {
    expectClean(await workerPartitioned(cluster, { runs: 4 }));
  });

  it('a rolling deploy (SIGTERM an API instance, then a worker): one reconnect at most, no run fails', { timeout: 300_000 }, async () => {
    const f = await rollingDeploy(cluster, { runs: 6 });
    expectClean(f);
    expect(f.maxReconnects).toBeLessThanOrEqual(1);
  });

  it('a completed http_request call is not executed again by the worker that takes over', { timeout: 180_000 }, async () => {
    expectClean(await sideEffectsOnTakeover(cluster, [httpRequestKind]));
  });

  it('a completed MCP tool call is not executed again by the worker that takes over', { timeout: 180_000 }, async () => {
    expectClean(await sideEffectsOnTakeover(cluster, [mcpKind]));
  });

  it('a completed environment command is not run again by the worker that takes over', { timeout: 180_000 }, async () => {
    expectClean(await sideEffectsOnTakeover(cluster, [environmentCommandKind()]));
  });

  it('a completed subagent call does not start its child run again when the parent is taken over', { timeout: 180_000 }, async () => {
    expectClean(await sideEffectsOnTakeover(cluster, [subagentKind()]));
  });

  it('a client tool’s result is not asked of the client again when the successor is taken over', { timeout: 180_000 }, async () => {
    expectClean(await clientToolOnTakeover(cluster));
  });
});
