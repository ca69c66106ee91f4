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
for (let i = 0; i < 3000; i++) { const r = await fetch(`${url}/api/v1/sessions/${session.id}`, { headers: h }); await r.text(); }
await app.stop(); process.exit(0);
