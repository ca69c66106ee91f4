// Memory search benchmark: one memory with 10k and 100k records (deterministic 256-dimension
// embeddings from the development model). Reports, per size:
//   - search latency through the service (searchRecords, warm index, p50/p95): hybrid, vector-only and
//     lexical-only (the same path ranking by one part: the service's internal `mode`), hybrid with a
//     misspelled word, and hybrid right after a write (the index catches up incrementally),
//   - topK alone (the in-process exact scan),
//   - write throughput through the service (writeRecord: validation, embedding, upsert),
//   - the first search's time (loading the whole index),
//   - recall@10 of vector, hybrid and lexical ranking against exhaustive computation over every
//     record (every cosine; every lexical score from SQL; their fusion): what the bounded candidate
//     sets cost, if anything (the vector part is exact: 1.00 expected).
// Target: p50 ≤ 20 ms at 100k records, recall@10 ≥ 0.95.
//
// Env: BENCH_MEMORY_SIZES (10000,100000), BENCH_MEMORY_QUERIES (50), BENCH_MEMORY_RECALL_QUERIES (20);
// DATABASE_URL (an empty database on a PostgreSQL server) instead of the embedded one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/lib/logger.js';
import { newId } from '../src/lib/ids.js';
import { hashEmbedding } from '../src/providers/hash-embeddings.js';
import { createMemory, searchRecords, writeRecord } from '../src/features/memories/memories.js';
import { vectorIndexFor } from '../src/memory-stores/builtin.js';
import type { Actor } from '../src/services/deps.js';
import { callContext } from '../src/services/call-context.js';

const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number);
const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 50);
const RECALL_QUERIES = Number(process.env.BENCH_MEMORY_RECALL_QUERIES ?? 20);
const WORDS = [
  'postgres',
  'backup',
  'deploy',
  'kubernetes',
  'cache',
  'latency',
  'invoice',
  'customer',
  'refund',
  'incident',
  'runbook',
  'alert',
  'queue',
  'worker',
  'lease',
  'token',
  'budget',
  'quota',
  'search',
  'memory',
];

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

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))] ?? NaN;
async function timed<T>(run: () => Promise<T> | T): Promise<[number, T]> {
  const started = performance.now();
  const result = await run();
  return [performance.now() - started, result];
}

const dataDir = mkdtempSync(join(tmpdir(), 'wsa-bench-mem-'));
const app = await buildApp(
  loadConfig(
    { NODE_ENV: 'production', DATABASE_URL: process.env.DATABASE_URL },
    { dataDir, port: 0, logLevel: 'silent', runWorkers: 0, secretKey: 'bench' },
  ),
  { logger: createLogger('silent') },
);
const db = app.deps.db;
const workspaceId = app.bootstrap!.workspaceId;
const actor: Actor = {
  principalId: 'bench',
  principalKind: 'api_key',
  workspaceId,
  organizationId: '',
  permissions: new Set(['read', 'write', 'admin', 'run']),
  loginSessionId: null,
};
const caller = callContext(app.deps, actor, null);
const provider = await db.provider.create({
  data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: 'dev', createdById: 'bench', updatedById: 'bench' },
});
await db.model.create({
  data: { workspaceId, key: 'embedder', providerId: provider.id, providerModel: 'hash-256', createdById: 'bench', updatedById: 'bench' },
});

const latencyRows: string[][] = [];
const otherRows: string[][] = [];
for (const size of SIZES) {
  const memory = await createMemory(caller, { name: `bench ${size}`, embeddingModel: 'embedder' });
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
  await db.$executeRawUnsafe('VACUUM ANALYZE memory_records, memory_record_words'); // as autovacuum would after a bulk load
  const writes = 200;
  const [writeMs] = await timed(async () => {
    for (let i = 0; i < writes; i++) await writeRecord(caller, memory.id, null, sentence(size + i));
  });
  const writesPerSecond = writes / (writeMs / 1000);
  const queries = Array.from(
    { length: QUERIES },
    (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]}`,
  );
  // Misspelled: one letter of the first word dropped, so full text finds nothing and trigrams step in.
  const typos = queries.map((query) => query.replace(/^(\w{3})\w/, '$1'));
  const [loadMs] = await timed(() => searchRecords(caller, memory.id, { query: queries[0] })); // loads the index
  for (const query of queries.slice(0, 5)) await searchRecords(caller, memory.id, { query }); // warm-up
  const latencies = async (list: string[], mode: 'hybrid' | 'lexical' | 'vector') => {
    const out: number[] = [];
    for (const query of list) out.push((await timed(() => searchRecords(caller, memory.id, { query, limit: 10, mode })))[0]);
    return out;
  };
  const hybrid = await latencies(queries, 'hybrid');
  const vectorOnly = await latencies(queries, 'vector');
  const lexicalOnly = await latencies(queries, 'lexical');
  const typo = await latencies(typos, 'hybrid');
  // A write, then a search: the search first loads what changed since its index's version.
  const afterWrite: number[] = [];
  for (const [i, query] of queries.slice(0, 20).entries()) {
    await writeRecord(caller, memory.id, `r${i * 37}`, `${sentence(i * 37)} rewritten`);
    afterWrite.push((await timed(() => searchRecords(caller, memory.id, { query, limit: 10 })))[0]);
  }
  // topK alone; recall@10 of each path against exhaustive computation over every record: cosine of
  // every record (in doubles), the lexical score of every record (the same SQL expression, no
  // candidate caps), and their fusion.
  const index = await vectorIndexFor(db, memory);
  const all = await db.memoryRecord.findMany({
    where: { providerId: memory.providerId, namespace: memory.namespace },
    select: { id: true, embedding: true },
  });
  const topKOnly: number[] = [];
  const recall = { vector: 0, hybrid: 0, lexical: 0 };
  const recallAt10 = (found: { id: string }[], exact: Map<string, number>) => {
    const top = [...exact.entries()]
      .filter(([, score]) => score >= 0.05)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10);
    if (top.length === 0) return 1;
    const threshold = top[top.length - 1]![1] - 1e-5; // ties at the boundary count as hits
    return found.slice(0, top.length).filter((f) => (exact.get(f.id) ?? -1) >= threshold).length / top.length;
  };
  const recallQueries = queries.slice(0, RECALL_QUERIES);
  for (const query of recallQueries) {
    const q = hashEmbedding(query);
    topKOnly.push((await timed(() => index.topK(q, 40)))[0]);
    const cosine = new Map(all.map((r) => [r.id, r.embedding.reduce((sum, v, d) => sum + v * q[d]!, 0)]));
    const lexical = new Map(
      (
        await db.$queryRaw<{ id: string; score: number }[]>`
      SELECT id, CASE WHEN tsv @@ plainto_tsquery('simple', ${query}) OR ${query} <% text
        THEN greatest(ts_rank_cd(tsv, plainto_tsquery('simple', ${query}), 32), word_similarity(${query}, text)) ELSE 0 END AS score
      FROM memory_records WHERE provider_id = ${memory.providerId} AND namespace = ${memory.namespace}`
      ).map((r) => [r.id, Number(r.score)]),
    );
    const fused = new Map([...cosine.entries()].map(([id, c]) => [id, ((lexical.get(id) ?? 0) + Math.max(0, c)) / 2]));
    const search = async (mode: 'hybrid' | 'lexical' | 'vector') => await searchRecords(caller, memory.id, { query, limit: 10, mode });
    recall.vector += recallAt10(await search('vector'), cosine);
    recall.hybrid += recallAt10(await search('hybrid'), fused);
    recall.lexical += recallAt10(await search('lexical'), lexical);
  }
  const p = (values: number[], q: number) => percentile(values, q).toFixed(1);
  latencyRows.push([
    String(size),
    p(hybrid, 50),
    p(hybrid, 95),
    p(vectorOnly, 50),
    p(vectorOnly, 95),
    p(lexicalOnly, 50),
    p(lexicalOnly, 95),
    p(typo, 50),
    p(afterWrite, 50),
    p(topKOnly, 50),
  ]);
  otherRows.push([
    String(size),
    writesPerSecond.toFixed(0),
    (seedMs / 1000).toFixed(1),
    loadMs.toFixed(0),
    ...[recall.vector, recall.hybrid, recall.lexical].map((r) => (r / recallQueries.length).toFixed(2)),
  ]);
}

function table(headers: string[], rows: string[][]) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  console.log(`| ${headers.map((h, i) => h.padEnd(widths[i]!)).join(' | ')} |`);
  console.log(`|${widths.map((w) => '-'.repeat(w + 1) + ':').join('|')}|`);
  for (const row of rows) console.log(`| ${row.map((cell, i) => cell.padStart(widths[i]!)).join(' | ')} |`);
}
console.log('\nmemory search: one memory, 256-dimension development embeddings, limit 10; latencies in ms\n');
table(
  [
    'records',
    'hybrid p50',
    'hybrid p95',
    'vector p50',
    'vector p95',
    'lexical p50',
    'lexical p95',
    'misspelled hybrid p50',
    'hybrid after a write p50',
    'topK p50',
  ],
  latencyRows,
);
console.log('');
table(
  ['records', 'writes/s', 'seeding s', '1st search ms (index load)', 'recall@10 vector', 'recall@10 hybrid', 'recall@10 lexical'],
  otherRows,
);
await app.stop();
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
