import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
const dataDir = mkdtempSync(join(tmpdir(), 'wsa-prof-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { databaseUrl: process.env.DB ?? null, dataDir, port: 0, logLevel: 'silent', runWorkers: 1, secretKey: 'bench' }), { logger: createLogger('silent') });
const url = await app.start();
const key = app.bootstrap!.apiKey;
const h = { authorization: `Bearer ${key}` };
const session = await (await fetch(`${url}/api/v1/sessions`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{}' })).json() as any;
async function bench(label: string, fn: () => Promise<unknown>, n = 500) {
  for (let i = 0; i < 50; i++) await fn();
  const ops0 = app.database.operationCount();
  const t0 = performance.now(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  console.log(label.padEnd(30), 'ms', ((performance.now() - t0) / n).toFixed(2), 'cpu', ((c.user + c.system) / 1000 / n).toFixed(2), 'ops', ((app.database.operationCount() - ops0) / n).toFixed(1));
}
await bench('GET /api/v1/sessions/{id}', async () => { const r = await fetch(`${url}/api/v1/sessions/${session.id}`, { headers: h }); await r.text(); });
await bench('GET /healthz', async () => { const r = await fetch(`${url}/healthz`); await r.text(); });
await bench('graphql {__typename}', async () => { const r = await fetch(`${url}/graphql`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' }); await r.text(); });
await bench('prisma session.findUnique', () => app.deps.db.session.findUnique({ where: { id: session.id } }));
await bench('prisma $queryRaw select 1', () => app.deps.db.$queryRaw`SELECT 1`);
await bench('prisma $queryRaw session', () => app.deps.db.$queryRaw`SELECT * FROM sessions WHERE id = ${session.id}`);
await bench('prisma tx empty', () => app.deps.db.$transaction(async () => undefined));
await app.stop(); process.exit(0);
