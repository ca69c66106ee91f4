// Memory search benchmark: one memory with 10k and 100k records (deterministic 256-dimension
// embeddings from the development model). Reports, per size:
//   - hybrid and vector-only search latency through the service (p50/p95, warm index),
//   - hybrid search latency right after a write (the index catches up incrementally),
//   - topK alone (the in-process exact scan),
//   - write throughput through the service (writeRecord: validation, embedding, upsert),
//   - recall@10 of the vector path against an exact sort of every cosine (1.0: the path is exact), and
//     of hybrid search against an exhaustive fusion over every record (lexical score of every record
//     from SQL, cosine of every record): what the bounded candidate sets cost, if anything.
// Target: p50 ≤ 20 ms at 100k records, recall@10 ≥ 0.95.
//
// Env: BENCH_MEMORY_SIZES (10000,100000), BENCH_MEMORY_QUERIES (50), BENCH_MEMORY_RECALL_QUERIES (10).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
import { hashEmbedding } from '../src/engine/hash-embeddings.js';
import { createMemory, searchRecords, vectorIndexFor, writeRecord } from '../src/services/memories.js';
import type { Actor } from '../src/services/deps.js';

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 50);
const RECALL_QUERIES = Number(process.env.BENCH_MEMORY_RECALL_QUERIES ?? 10);
const WORDS = ['postgres', 'backup', 'deploy', 'kubernetes', 'cache', 'latency', 'invoice', 'customer', 'refund', 'incident', 'runbook', 'alert', 'queue', 'worker', 'lease', 'token', 'budget', 'quota', 'search', 'memory'];

function sentence(i: number): string {
  const words: string[] = [];
  // A 32-bit LCG in integer arithmetic, words from its high bits: each word in about a third of the
  // records. (Plain `x * 1103515245` loses the low bits in doubles, and the low bits of an LCG cycle
  // fast: the first version of this bench drew only 5 of the 20 words for almost every record.)
  let x = Math.imul(i + 1, 2654435761) >>> 0;
  for (let w = 0; w < 8; w++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    words.push(WORDS[(x >>> 16) % WORDS.length]!);
  }
  return `record ${i}: ${words.join(' ')}`;
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;
const ms = (value: number, width = 8) => value.toFixed(1).padStart(width);
async function timed<T>(run: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await run();
  return [performance.now() - started, result];
}

const dataDir = mkdtempSync(join(tmpdir(), 'wsa-bench-mem-'));
const app = await buildApp(loadConfig({ NODE_ENV: 'production' }, { dataDir, port: 0, logLevel: 'silent', runWorkers: 0, secretKey: 'bench' }), { logger: createLogger('silent') });
const db = app.deps.db;
const workspaceId = app.bootstrap!.workspaceId;
const actor: Actor = { principalId: 'bench', principalKind: 'api_key', workspaceId, organizationId: '', permissions: new Set(['read', 'write', 'admin', 'run']), loginSessionId: null };
const provider = await db.provider.create({ data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'bench', updatedById: 'bench' } });
await db.model.create({ data: { workspaceId, key: 'embedder', providerId: provider.id, providerModel: 'hash-256', createdById: 'bench', updatedById: 'bench' } });

const rows: string[] = [];
for (const size of SIZES) {
  const memory = await createMemory(app.deps, actor, { name: `bench ${size}`, embeddingModel: 'embedder' });
  // Seed in bulk with plain SQL (what is measured is search); writes through the service are timed below.
  const [seedMs] = await timed(async () => {
    for (let start = 0; start < size; start += 5000) {
      const batch = Array.from({ length: Math.min(5000, size - start) }, (_, k) => start + k);
      await db.$executeRaw`
        INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, embedding)
        SELECT ${memory.providerId}, ${memory.namespace}, r.id, ${workspaceId}, r.text, (SELECT array_agg(v::real) FROM jsonb_array_elements_text(r.embedding) v)
        FROM jsonb_to_recordset(${JSON.stringify(batch.map((i) => ({ id: `r${i}`, text: sentence(i), embedding: hashEmbedding(sentence(i)) })))}::jsonb) AS r(id text, text text, embedding jsonb)`;
    }
  });
  await db.$executeRawUnsafe('VACUUM ANALYZE memory_records'); // as autovacuum would after a bulk load
  const writes = 200;
  const [writeMs] = await timed(async () => {
    for (let i = 0; i < writes; i++) await writeRecord(app.deps, actor, memory.id, null, sentence(size + i));
  });
  const writesPerSecond = writes / (writeMs / 1000);
  const queries = Array.from({ length: QUERIES }, (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`);
  const [buildMs] = await timed(() => searchRecords(app.deps, actor, memory.id, { query: queries[0] })); // loads the index
  for (const query of queries.slice(0, 5)) await searchRecords(app.deps, actor, memory.id, { query }); // warm-up
  const hybrid: number[] = [];
  for (const query of queries) hybrid.push((await timed(() => searchRecords(app.deps, actor, memory.id, { query, limit: 10 })))[0]);
  const vectorOnly: number[] = [];
  for (const query of queries) vectorOnly.push((await timed(() => searchRecords(app.deps, actor, memory.id, { query, limit: 10, vectorOnly: true })))[0]);
  // A write, then a search: the search first loads what changed since its index's version.
  const afterWrite: number[] = [];
  for (const [i, query] of queries.slice(0, 20).entries()) {
    await writeRecord(app.deps, actor, memory.id, `r${i * 37}`, `${sentence(i * 37)} rewritten`);
    afterWrite.push((await timed(() => searchRecords(app.deps, actor, memory.id, { query, limit: 10 })))[0]);
  }
  // topK alone, and recall@10 of the vector path against a plain exact sort (in doubles).
  const index = await vectorIndexFor(app.deps, memory);
  const all = await db.memoryRecord.findMany({ where: { providerId: memory.providerId, namespace: memory.namespace }, select: { id: true, embedding: true } });
  const topKOnly: number[] = [];
  let vectorHits = 0;
  let hybridHits = 0;
  const recallQueries = queries.slice(0, RECALL_QUERIES);
  for (const query of recallQueries) {
    const q = hashEmbedding(query);
    topKOnly.push((await timed(() => index.topK(q, 40)))[0]);
    const cosine = new Map(all.map((r) => [r.id, r.embedding.reduce((s, v, d) => s + v * q[d]!, 0)]));
    const exact = [...cosine.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
    const found = (await searchRecords(app.deps, actor, memory.id, { query, limit: 10, vectorOnly: true })).items;
    vectorHits += found.filter((f) => cosine.get(f.id)! >= exact[9]![1] - 1e-5).length;
    // Exhaustive hybrid: the same fusion over every record.
    const lexical = await db.$queryRaw<{ id: string; score: number }[]>`
      SELECT id, CASE WHEN tsv @@ plainto_tsquery('simple', ${query}) OR ${query} <% text
        THEN greatest(ts_rank_cd(tsv, plainto_tsquery('simple', ${query}), 32), word_similarity(${query}, text)) ELSE 0 END AS score
      FROM memory_records WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`;
    const fused = new Map(lexical.map((r) => [r.id, (Number(r.score) + Math.max(0, cosine.get(r.id) ?? 0)) / 2]));
    const exactHybrid = [...fused.entries()].filter(([, s]) => s >= 0.05).sort((a, b) => b[1] - a[1]).slice(0, 10);
    const foundHybrid = (await searchRecords(app.deps, actor, memory.id, { query, limit: 10 })).items;
    hybridHits += foundHybrid.filter((f) => fused.get(f.id)! >= exactHybrid[exactHybrid.length - 1]![1] - 1e-5).length / Math.max(1, exactHybrid.length) * 10;
  }
  rows.push([
    String(size).padStart(8), ms(hybrid.length ? percentile(hybrid, 50) : NaN, 7), ms(percentile(hybrid, 95), 7), ms(percentile(vectorOnly, 50), 7), ms(percentile(vectorOnly, 95), 7),
    ms(percentile(afterWrite, 50), 11), ms(percentile(topKOnly, 50), 9), writesPerSecond.toFixed(0).padStart(8), ms(buildMs, 9), ms(seedMs / 1000, 7),
    (vectorHits / (10 * recallQueries.length)).toFixed(2).padStart(10), (hybridHits / (10 * recallQueries.length)).toFixed(2).padStart(10),
  ].join(' |'));
}
console.log('\nmemory search benchmark (one memory, 256-dimension development embeddings; latencies in ms)\n');
console.log(' records | hyb p50 | hyb p95 | vec p50 | vec p95 | hyb p50 after write | topK p50 | writes/s | 1st search | seed s | vec recall | hyb recall');
console.log('---------|---------|---------|---------|---------|---------------------|----------|----------|------------|--------|------------|-----------');
for (const row of rows) console.log(row);
await app.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
