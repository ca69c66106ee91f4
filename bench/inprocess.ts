// npm run bench:inprocess — a profiling aid, not the benchmark (that is `npm run bench`, bench/blackbox.ts,
// which drives a separate service process as clients do). It builds the app inside this process and
// watches runs through the service's own event bus, which no client can do: the figures show the cost of
// the service's own path without the client protocols, and the process can be profiled (--cpu-prof).
// The runs benchmark on the scripted development model, on the embedded PostgreSQL
// and (when reachable) a PostgreSQL server — round trip, throughput, chunk-to-subscriber latency,
// CPU per run. Prints a table. Targets (same machine): round trip p50 ≤ 10 ms, ≥ 240 runs/s at
// concurrency 50, chunk-to-subscriber p50 ≤ 5 ms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const BURST = Number(process.env.BENCH_BURST ?? 500);
const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 200);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function setup(databaseUrl: string | null) {
  const dataDir = mkdtempSync(join(tmpdir(), 'wsa-bench-'));
  const config = loadConfig(
    { NODE_ENV: 'production', RATE_LIMIT_PER_KEY: '0' },
    { databaseUrl, dataDir, port: 0, logLevel: 'silent', runWorkers: 64, secretKey: 'bench' },
  );
  const app = await buildApp(config, { logger: createLogger('silent') });
  const url = await app.start();
  const key = app.bootstrap!.apiKey;
  const workspaceId = app.bootstrap!.workspaceId;
  const provider = await app.deps.db.provider.create({
    data: {
      id: newId('provider'),
      workspaceId,
      kind: 'model',
      type: 'development',
      name: 'dev',
      createdById: 'bench',
      updatedById: 'bench',
    },
  });
  await app.deps.db.model.create({
    data: { workspaceId, key: 'dev', providerId: provider.id, providerModel: 'echo', createdById: 'bench', updatedById: 'bench' },
  });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const agent = await post('/api/v1/agents', { name: 'bench', config: { model: 'dev' } });
  const watcher = watchRuns(app);
  return {
    app,
    url,
    key,
    post,
    watcher,
    agentId: agent.id as string,
    close: async () => {
      watcher.stop();
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Watches every run from its acceptance (the app's own event bus, no polling, no database reads):
 * `settled(runId)` resolves when the run settles. The watcher attaches on the `runAccepted` event,
 * which fires before any worker can claim the run.
 */
function watchRuns(app: App) {
  const settledRuns = new Map<string, Promise<void>>();
  const accepted = app.deps.events.subscribe('runAccepted')[Symbol.asyncIterator]();
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const next = await accepted.next();
      if (next.done) break;
      const runId = next.value.runId;
      const changes = app.deps.events.subscribe('runChanged', runId)[Symbol.asyncIterator]();
      settledRuns.set(
        runId,
        (async () => {
          for (;;) {
            const change = await changes.next();
            if (change.done || ['completed', 'failed', 'cancelled', 'waiting'].includes(change.value.status)) break;
          }
          await changes.return?.();
        })(),
      );
    }
  })();
  return {
    settled: async (runId: string) => {
      await settledRuns.get(runId);
      settledRuns.delete(runId);
    },
    stop: () => {
      stopped = true;
      void accepted.return?.();
    },
  };
}

async function oneRun(env: Awaited<ReturnType<typeof setup>>) {
  const started = performance.now();
  const run = await env.post('/api/v1/runs', { agent_id: env.agentId, input: { content: [{ type: 'text', text: 'hi' }] } });
  await env.watcher.settled(run.id);
  return performance.now() - started;
}

async function measure(label: string, databaseUrl: string | null) {
  const env = await setup(databaseUrl);
  try {
    for (let i = 0; i < 20; i++) await oneRun(env); // warm-up
    const cpu0 = process.cpuUsage();
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) times.push(await oneRun(env));
    const cpu = process.cpuUsage(cpu0);
    const cpuPerRun = (cpu.user + cpu.system) / 1000 / SEQUENTIAL;
    const throughput: Record<number, number> = {};
    for (const concurrency of [10, 50]) {
      let next = 0;
      const startedAt = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < BURST) {
            next++;
            await oneRun(env);
          }
        }),
      );
      throughput[concurrency] = BURST / ((performance.now() - startedAt) / 1000);
    }
    // Chunk to subscriber: each chunk carries the time the model emitted it (the model waits 300 ms first,
    // so the subscriber is attached before the first chunk).
    const chunkAgent = await env.post('/api/v1/agents', {
      name: 'chunks',
      config: {
        model: 'dev',
        model_settings: {
          script: [[{ delay_ms: 300 }, ...Array.from({ length: CHUNKS }, () => [{ timestamp: true }, { delay_ms: 2 }]).flat()]],
        },
      },
    });
    const run = await env.post('/api/v1/runs', { agent_id: chunkAgent.id, input: { content: [{ type: 'text', text: 'go' }] } });
    const ws = createClient({
      url: `${env.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${env.key}` },
    });
    const latencies: number[] = [];
    let seenStamps = 0;
    await new Promise<void>((resolve, reject) => {
      ws.subscribe(
        { query: 'subscription($id: ID!) { runItems(runId: $id) { kind state content } }', variables: { id: run.id } },
        {
          next: (value) => {
            const now = Date.now();
            const item = (value.data as any).runItems;
            if (item.kind !== 'text_message' || item.state !== 'in_progress') return;
            const stamps = [...String(item.content.text).matchAll(/@(\d+)@/g)].map((m) => Number(m[1]));
            for (const stamp of stamps.slice(seenStamps)) latencies.push(now - stamp);
            seenStamps = stamps.length;
          },
          error: reject,
          complete: resolve,
        },
      );
    });
    await ws.dispose();
    return {
      label,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      c10: throughput[10]!,
      c50: throughput[50]!,
      chunkP50: percentile(latencies, 50),
      chunkP95: percentile(latencies, 95),
      cpuPerRun,
    };
  } finally {
    await env.close();
  }
}

async function serverUrl(): Promise<string | null> {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    const name = `wsa_bench_${process.pid}`;
    await client.query(`DROP DATABASE IF EXISTS ${name}`);
    await client.query(`CREATE DATABASE ${name}`);
    const parsed = new URL(url);
    parsed.pathname = `/${name}`;
    return parsed.toString();
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

// Unreported passes first: V8 takes a few thousand runs to optimise the service's hot code, and a
// long-running service is measured warm (the first pass after start is ~20-30 % slower).
for (let pass = 0; pass < Number(process.env.BENCH_WARM_PASSES ?? 2); pass++) await measure('warm-up', null);
const rows = [await measure('embedded PostgreSQL', null)];
const server = await serverUrl();
if (server) rows.push(await measure('PostgreSQL server', server));
const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(9);
console.log(
  `\nruns benchmark (scripted model; ${SEQUENTIAL} sequential runs, ${BURST} runs per concurrency level, ${CHUNKS} chunks; the HTTP client runs in the same process, so CPU ms/run counts service and client)\n`,
);
console.log('database              | p50 ms    | p95 ms    | runs/s c10 | runs/s c50 | chunk→sub p50 ms | chunk→sub p95 ms | CPU ms/run');
console.log('----------------------|-----------|-----------|------------|------------|------------------|------------------|-----------');
for (const r of rows) {
  console.log(
    `${r.label.padEnd(22)}|${fmt(r.p50, 2)}  |${fmt(r.p95, 2)}  |${fmt(r.c10)}   |${fmt(r.c50)}   |${fmt(r.chunkP50, 2)}         |${fmt(r.chunkP95, 2)}         |${fmt(r.cpuPerRun, 2)}`,
  );
}
process.exit(0);
