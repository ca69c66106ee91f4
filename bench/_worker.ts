import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
import { WorkerPool } from '../src/engine/worker.js';
const N = Number(process.env.N ?? 500);
const dataDir = mkdtempSync(join(tmpdir(), 'wsa-prof-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { databaseUrl: process.env.DB ?? null, dataDir, port: 0, logLevel: 'silent', runWorkers: 0, secretKey: 'bench' }), { logger: createLogger('silent') });
const url = await app.start();
const key = app.bootstrap!.apiKey; const workspaceId = app.bootstrap!.workspaceId;
const provider = await app.deps.db.provider.create({ data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'b', updatedById: 'b' } });
await app.deps.db.model.create({ data: { workspaceId, key: 'dev', providerId: provider.id, providerModel: 'echo', createdById: 'b', updatedById: 'b' } });
const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const agent = await (await fetch(`${url}/api/v1/agents`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'b', config: { model: 'dev' } }) })).json() as any;
const body = JSON.stringify({ agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } });
async function batch(n: number) {
  for (let i = 0; i < n; i++) await (await fetch(`${url}/api/v1/runs`, { method: 'POST', headers: h, body })).text();
}
const pool = new WorkerPool(app.deps, { concurrency: Number(process.env.C ?? 1), databaseUrl: app.database.url });
async function drain() {
  for (;;) { const c = await app.deps.db.run.count({ where: { status: { in: ['accepted', 'running'] } } }); if (c === 0) return; await new Promise((r) => setTimeout(r, 20)); }
}
await batch(50); await pool.start(); await drain();
await pool.stop();
await batch(N);
const { Session } = await import('node:inspector/promises');
const session = new Session(); session.connect();
if (process.env.PROF) { await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 200 }); await session.post('Profiler.start'); }
const pool2 = new WorkerPool(app.deps, { concurrency: Number(process.env.C ?? 1), databaseUrl: app.database.url });
const t0 = performance.now(); const c0 = process.cpuUsage();
await pool2.start(); await drain();
const c = process.cpuUsage(c0);
console.log('worker: ms/run', ((performance.now() - t0) / N).toFixed(2), 'cpu ms/run', ((c.user + c.system) / 1000 / N).toFixed(2));
if (process.env.PROF) { const { profile } = await session.post('Profiler.stop'); const fs = await import('node:fs'); fs.mkdirSync(process.env.PROF, { recursive: true }); fs.writeFileSync(process.env.PROF + '/p.cpuprofile', JSON.stringify(profile)); }
await pool2.stop(); await app.stop(); process.exit(0);
