// npm run faults: the fault suite at full size (the slow tier runs each fault once at its smallest,
// test/engine/faults.test.ts). A PostgreSQL server of the suite's own (test/helpers/own-postgres.ts,
// on a free loopback port, which the restart faults really stop and start), a Redis server of its
// own, two API-only instances and two worker processes, each behind a TCP relay to PostgreSQL; every
// fault with clients streaming throughout. Prints a table of figures (and each problem seen); exits 1
// when any fault lost, repeated or refused something wrongly.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Cluster, startFaultDatabase } from '../test/helpers/fault-cluster.js';
import {
  clientToolOnTakeover,
  environmentCommandKind,
  subagentKind,
  gatewayKilled,
  httpRequestKind,
  mcpKind,
  postgresRestart,
  postgresUnreachable,
  redisDown,
  rollingDeploy,
  sideEffectsOnTakeover,
  workerPartitioned,
  type Figures,
} from '../test/helpers/fault-scenarios.js';

const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

function table(all: Figures[]): string {
  const lines = [
    row([
      'fault',
      'runs started',
      'runs completed',
      'items checked',
      'gaps',
      'duplicates',
      'repeated side effects',
      'bad 5xx',
      '503 + Retry-After',
      'max reconnects',
      'recovery (s)',
    ]),
    row(Array.from({ length: 11 }, () => '---')),
  ];
  for (const f of all)
    lines.push(
      row([
        f.fault,
        f.runsStarted,
        f.runsCompleted,
        f.itemsChecked,
        f.gaps,
        f.duplicates,
        f.repeatedSideEffects,
        f.bad5xx,
        f.refused,
        f.maxReconnects,
        (f.recoveryMs / 1000).toFixed(1),
      ]),
    );
  return lines.join('\n');
}

async function main() {
  const database = await startFaultDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'wsa-faults-'));
  const cluster = await Cluster.start({
    ...database,
    dataDir,
    apiKey: `wsk_${randomBytes(16).toString('hex')}`,
    leaseMs: 3_000,
    // Room for the rolling deploy's 100 runs on the one worker left while the other restarts.
    workersPerProcess: 110,
  });
  const all: Figures[] = [];
  const step = async (run: () => Promise<Figures>) => {
    const started = Date.now();
    const f = await run();
    all.push(f);
    console.error(`${f.fault}: ${((Date.now() - started) / 1000).toFixed(0)} s, ${f.problems.length} problem(s)`);
  };
  try {
    await step(() => gatewayKilled(cluster, { runs: 20 }));
    await step(() => postgresRestart(cluster, { runs: 10, outageMs: 5_000, mode: 'fast' }));
    await step(() => postgresRestart(cluster, { runs: 10, outageMs: 30_000, mode: 'fast' }));
    await step(() => postgresRestart(cluster, { runs: 10, outageMs: 30_000, mode: 'immediate' }));
    await step(() => postgresUnreachable(cluster, { runs: 10, outageMs: 30_000 }));
    await step(() => redisDown(cluster, { runs: 10, outageMs: 30_000 }));
    await step(() => workerPartitioned(cluster, { runs: 10 }));
    await step(() => rollingDeploy(cluster, { runs: 100 }));
    await step(() => sideEffectsOnTakeover(cluster, [httpRequestKind, mcpKind, environmentCommandKind(), subagentKind()]));
    await step(() => clientToolOnTakeover(cluster));
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database.postgres.destroy();
  }
  console.log(table(all));
  console.log(
    `load average at the end (1, 5, 15 min): ${loadavg()
      .map((n) => n.toFixed(2))
      .join(', ')}`,
  );
  const problems = all.flatMap((f) => f.problems.map((p) => `${f.fault}: ${p}`));
  for (const problem of problems.slice(0, 50)) console.log(`- ${problem}`);
  if (problems.length > 50) console.log(`- … and ${problems.length - 50} more`);
  process.exitCode = problems.length ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
