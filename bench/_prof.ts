import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
const N = Number(process.env.N ?? 300);
const dataDir = mkdtempSync(join(tmpdir(), 'wsa-prof-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { databaseUrl: process.env.DB ?? null, dataDir, port: 0, logLevel: 'silent', runWorkers: 64, secretKey: 'bench' }), { logger: createLogger('silent') });
const url = await app.start();
const key = app.bootstrap!.apiKey; const workspaceId = app.bootstrap!.workspaceId;
const provider = await app.deps.db.provider.create({ data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'b', updatedById: 'b' } });
await app.deps.db.model.create({ data: { workspaceId, key: 'dev', providerId: provider.id, providerModel: 'echo', createdById: 'b', updatedById: 'b' } });
const post = async (path: string, body: unknown) => { const r = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }); if (!r.ok) throw new Error(await r.text()); return r.json() as any; };
const agent = await post('/api/v1/agents', { name: 'bench', config: { model: 'dev' } });
let queries = 0;
(app.deps.db as any).$on?.('query', () => queries++);
async function one() {
  const run = await post('/api/v1/runs', { agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } });
  await new Promise<void>((resolve) => {
    const it = app.deps.events.subscribe('runChanged', run.id)[Symbol.asyncIterator]();
    let done = false;
    const check = async () => { const row = await app.deps.db.run.findUnique({ where: { id: run.id }, select: { status: true } }); if (row?.status === 'completed' && !done) { done = true; resolve(); } };
    void (async () => { for (;;) { const n = await it.next(); if (n.done || n.value.status === 'completed') break; } done = true; await it.return?.(); resolve(); })();
    void check();
  });
}
for (let i = 0; i < 30; i++) await one();
const { Session } = await import('node:inspector/promises');
const session = new Session(); session.connect();
if (process.env.PROF) { await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 200 }); await session.post('Profiler.start'); }
const t0 = performance.now(); const c0 = process.cpuUsage();
for (let i = 0; i < N; i++) await one();
const c = process.cpuUsage(c0);
if (process.env.PROF) { const { profile } = await session.post('Profiler.stop'); const fs = await import('node:fs'); fs.mkdirSync(process.env.PROF, { recursive: true }); fs.writeFileSync(process.env.PROF + '/p.cpuprofile', JSON.stringify(profile)); }
console.log('ms/run', ((performance.now() - t0) / N).toFixed(2), 'cpu ms/run', ((c.user + c.system) / 1000 / N).toFixed(2));
await app.stop(); process.exit(0);
