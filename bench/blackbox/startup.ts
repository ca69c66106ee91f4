// Start-up cost, measured from outside: the service is started again and again on one embedded
// database (a restart, as an operator restarts it: no initdb, no pending migration), alternately as
// `npm start` runs it (compiled JavaScript in dist/) and as it ran before there was a build (TypeScript
// through the tsx loader). Alternating cancels the drift of a shared machine's load between the two.
// Per start: the wall time from spawn to the first ready /readyz answer, the CPU the service's node
// process used until then (its own utime + stime from /proc, not PostgreSQL's), and its memory at ready.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Memory } from './proc.js';
import { startService, type Runtime } from './service.js';
import { percentile } from './stats.js';

export interface StartupFigures {
  starts: number;
  readyMs: number;
  nodeCpuMs: number;
  memory: Memory;
}

export type StartupResult = Record<Runtime, StartupFigures>;

async function startOnce(runtime: Runtime, dataDir: string) {
  const service = await startService({ databaseUrl: null, runtime, dataDir, readyPollMs: 20 });
  try {
    return { ...service.startup, memory: service.processes.memory().node };
  } finally {
    await service.stop();
  }
}

/** `starts` measured starts of each runtime, after one unmeasured start of each (database creation, tsx's cache). */
export async function measureStartup(starts: number, log: (step: string) => void): Promise<StartupResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wsa-startup-'));
  try {
    log('first starts (not measured): the database, then tsx’s transpile cache');
    await startOnce('compiled', dataDir);
    await startOnce('tsx', dataDir);
    const samples: Record<Runtime, Awaited<ReturnType<typeof startOnce>>[]> = { compiled: [], tsx: [] };
    for (let i = 0; i < starts; i++) {
      const order: Runtime[] = i % 2 === 0 ? ['tsx', 'compiled'] : ['compiled', 'tsx'];
      for (const runtime of order) {
        log(`start ${i + 1}/${starts}: ${runtime}`);
        samples[runtime].push(await startOnce(runtime, dataDir));
      }
    }
    const figures = (runtime: Runtime): StartupFigures => {
      const list = samples[runtime];
      const median = (values: number[]) => percentile(values, 50);
      return {
        starts: list.length,
        readyMs: median(list.map((s) => s.readyMs)),
        nodeCpuMs: median(list.map((s) => s.nodeCpuMs)),
        memory: { pssMb: median(list.map((s) => s.memory.pssMb)), rssMb: median(list.map((s) => s.memory.rssMb)) },
      };
    };
    return { compiled: figures('compiled'), tsx: figures('tsx') };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
