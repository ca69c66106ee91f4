// Memory search benchmark: one memory with 10k and 100k records (deterministic 256-dimension
// embeddings from the development model), p50/p95 search latency (hybrid and vector-only), write
// throughput through the service, and recall@10 of the search path against exact search (the path is
// exact, so 1.0 is expected). Target: p50 ≤ 20 ms at 100k records.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
import { hashEmbedding } from '../src/engine/hash-embeddings.js';
import { createMemory, searchRecords, writeRecord } from '../src/services/memories.js';
import { VectorIndexCache, topK } from '../src/lib/vector-index.js';
import type { Actor } from '../src/services/deps.js';

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 50);
const WORDS = ['postgres', 'backup', 'deploy', 'kubernetes', 'cache', 'latency', 'invoice', 'customer', 'refund', 'incident', 'runbook', 'alert', 'queue', 'worker', 'lease', 'token', 'budget', 'quota', 'search', 'memory'];

function sentence(i: number): string {
  const words: string[] = [];
  let x = i * 2654435761;
  for (let w = 0; w < 8; w++) {
    x = (x * 1103515245 + 12345) >>> 0;
    words.push(WORDS[x % WORDS.length]!);
  }
  return `record ${i}: ${words.join(' ')}`;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;

const dataDir = mkdtempSync(join(tmpdir(), 'wsa-bench-mem-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { dataDir, port: 0, logLevel: 'silent', runWorkers: 0, secretKey: 'bench' }), { logger: createLogger('silent') });
const workspaceId = app.bootstrap!.workspaceId;
const actor: Actor = { principalId: 'bench', principalKind: 'api_key', workspaceId, organizationId: '', permissions: new Set(['read', 'write', 'admin', 'run']), loginSessionId: null };
const provider = await app.deps.db.provider.create({ data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'bench', updatedById: 'bench' } });
await app.deps.db.model.create({ data: { workspaceId, key: 'embedder', providerId: provider.id, providerModel: 'hash-256', createdById: 'bench', updatedById: 'bench' } });

const rows: string[] = [];
for (const size of SIZES) {
  const memory = await createMemory(app.deps, actor, { name: `bench ${size}`, embeddingModel: 'embedder' });
  // Seed in bulk (what is measured is search); writes through the service are timed separately.
  for (let start = 0; start < size; start += 5000) {
    const batch = Array.from({ length: Math.min(5000, size - start) }, (_, k) => start + k);
    await app.deps.db.memoryRecord.createMany({
      data: batch.map((i) => ({ providerId: memory.providerId, namespace: memory.namespace, id: `r${i}`, workspaceId, text: sentence(i), embedding: hashEmbedding(sentence(i)), provenance: {} })),
    });
  }
  const writes = 200;
  const writeStart = performance.now();
  for (let i = 0; i < writes; i++) await writeRecord(app.deps, actor, memory.id, null, sentence(size + i));
  const writesPerSecond = writes / ((performance.now() - writeStart) / 1000);
  const queries = Array.from({ length: QUERIES }, (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`);
  await searchRecords(app.deps, actor, memory.id, { query: queries[0] }); // builds the index
  const hybrid: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await searchRecords(app.deps, actor, memory.id, { query, limit: 10 });
    hybrid.push(performance.now() - started);
  }
  // Vector-only: the in-process index alone, and recall@10 against a plain exact sort.
  const all = await app.deps.db.memoryRecord.findMany({ where: { namespace: memory.namespace }, select: { id: true, embedding: true } });
  const index = await new VectorIndexCache().get('bench', 'x', async () => all);
  const vectorOnly: number[] = [];
  let recallHits = 0;
  for (const query of queries.slice(0, 20)) {
    const q = hashEmbedding(query);
    const started = performance.now();
    const found = topK(index, q, 10);
    vectorOnly.push(performance.now() - started);
    const exact = all.map((r) => ({ id: r.id, c: r.embedding.reduce((s, v, d) => s + v * q[d]!, 0) })).sort((a, b) => b.c - a.c).slice(0, 10);
    const threshold = exact[9]!.c - 1e-5;
    recallHits += found.filter((f) => f.cosine >= threshold).length;
  }
  rows.push(`${String(size).padStart(8)} | ${percentile(hybrid, 50).toFixed(1).padStart(10)} | ${percentile(hybrid, 95).toFixed(1).padStart(10)} | ${percentile(vectorOnly, 50).toFixed(1).padStart(12)} | ${percentile(vectorOnly, 95).toFixed(1).padStart(12)} | ${writesPerSecond.toFixed(0).padStart(9)} | ${(recallHits / 200).toFixed(2).padStart(9)}`);
}
console.log('\nmemory search benchmark (one memory, 256-dimension development embeddings)\n');
console.log(' records | hybrid p50 | hybrid p95 | vector p50 ms | vector p95 ms | writes/s | recall@10');
console.log('---------|------------|------------|--------------|--------------|----------|----------');
for (const row of rows) console.log(row);
await app.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
