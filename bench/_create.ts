import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
const dataDir = mkdtempSync(join(tmpdir(), 'wsa-prof-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { databaseUrl: process.env.DB ?? null, dataDir, port: 0, logLevel: 'silent', runWorkers: 0, secretKey: 'bench' }), { logger: createLogger('silent') });
const url = await app.start();
const key = app.bootstrap!.apiKey; const workspaceId = app.bootstrap!.workspaceId;
const provider = await app.deps.db.provider.create({ data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'b', updatedById: 'b' } });
await app.deps.db.model.create({ data: { workspaceId, key: 'dev', providerId: provider.id, providerModel: 'echo', createdById: 'b', updatedById: 'b' } });
const h = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const agent = await (await fetch(`${url}/api/v1/agents`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'b', config: { model: 'dev' } }) })).json() as any;
const body = JSON.stringify({ agent_id: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } });
async function bench(label: string, fn: () => Promise<unknown>, n = 500) {
  for (let i = 0; i < 50; i++) await fn();
  const t0 = performance.now(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(label.padEnd(30), 'ms', ((performance.now() - t0) / n).toFixed(2), 'cpu', ((c.user + c.system) / 1000 / n).toFixed(2));
}
const { Session } = await import('node:inspector/promises');
const session = new Session(); session.connect();
await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 200 }); await session.post('Profiler.start');
await bench('GraphQL startRun x', async () => { const r = await fetch(`${url}/graphql`, { method: 'POST', headers: h, body: JSON.stringify({ query: 'mutation($i: StartRunInput!) { startRun(input: $i) { id status } }', variables: { i: { agentId: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } } } }) }); await r.text(); });
{ const { profile } = await session.post('Profiler.stop'); const fs = await import('node:fs'); fs.mkdirSync('/tmp/prof/c', { recursive: true }); fs.writeFileSync('/tmp/prof/c/p.cpuprofile', JSON.stringify(profile)); }
await bench('REST POST /runs', async () => { const r = await fetch(`${url}/api/v1/runs`, { method: 'POST', headers: h, body }); await r.text(); });
const q = JSON.stringify({ query: 'mutation($i: StartRunInput!) { startRun(input: $i) { id status } }', variables: { i: { agentId: agent.id, input: { content: [{ type: 'text', text: 'hi' }] } } } });
await bench('GraphQL startRun', async () => { const r = await fetch(`${url}/graphql`, { method: 'POST', headers: h, body: q }); await r.text(); });
await bench('fetch /healthz', async () => { const r = await fetch(`${url}/healthz`); await r.text(); });
await app.stop(); process.exit(0);
