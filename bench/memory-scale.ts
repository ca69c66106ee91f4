// Memory at scale, measured from outside: one memory of 1M records and 100 memories of 10k records on
// a PostgreSQL server database, the service started as users start it (a child process running what
// `npm start` runs), driven through the public REST and GraphQL API. Reports:
//   - the first search after a start on the big memory (the whole index loads): time, the service's
//     CPU (node and PostgreSQL) and node's RSS/PSS growth — the memory that index holds,
//   - warm search latency (p50/p99) on the big memory and on one 10k memory (the baseline),
//   - 100 memories searched at once (100 concurrent clients, each on a different memory): the cold
//     round (every index loads) and warm rounds, p50/p99, and node's growth for the 100 indexes,
//   - write throughput through the API: single records one after another, and batches (one GraphQL
//     document adding 10 records, the most a mutation may hold).
// Seeding is plain SQL (set-based INSERT … SELECT generate_series, triggers off and their effects
// written set-based as bench/scale/seed-sql.ts does); record texts are built from 50k template
// sentences embedded in this process with the development model (hashEmbedding), so a record's
// vector is its template's (1M records: each template 20 times).
//
// Env: BENCH_PG_URL (postgresql://postgres@127.0.0.1:5432/postgres), BENCH_MEMSCALE_BIG (1000000),
// BENCH_MEMSCALE_MANY (100), BENCH_MEMSCALE_MANY_SIZE (10000), BENCH_MEMSCALE_QUERIES (200),
// BENCH_MEMSCALE_ROUNDS (5), BENCH_MEMSCALE_ENV (extra service env, `K=V,K=V`), BENCH_MEMSCALE_KEEP (a
// file: keep the seeded database and describe it there; a run finding the file reuses that database).
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import pg from 'pg';
import { hashEmbedding } from '../src/providers/hash-embeddings.js';
import { Rest } from './blackbox/clients.js';
import { freshServerDatabase, startService, type Service } from './blackbox/service.js';
import { percentile } from './blackbox/stats.js';
import { VOCABULARY } from './scale/vocabulary.js';

const ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const BIG = Number(process.env.BENCH_MEMSCALE_BIG ?? 1_000_000);
const MANY = Number(process.env.BENCH_MEMSCALE_MANY ?? 100);
const MANY_SIZE = Number(process.env.BENCH_MEMSCALE_MANY_SIZE ?? 10_000);
const QUERIES = Number(process.env.BENCH_MEMSCALE_QUERIES ?? 200);
const ROUNDS = Number(process.env.BENCH_MEMSCALE_ROUNDS ?? 5);
const TEMPLATES = 50_000;
const SERVICE_ENV = Object.fromEntries(
  (process.env.BENCH_MEMSCALE_ENV ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

/** Deterministic words: a 32-bit LCG, words from its high bits. */
function words(seed: number, count: number): string {
  let x = Math.imul(seed + 1, 2654435761) >>> 0;
  const out: string[] = [];
  for (let w = 0; w < count; w++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(VOCABULARY[(x >>> 12) % VOCABULARY.length]!);
  }
  return out.join(' ');
}
const query = (i: number) => words(1_000_000 + i, 3);

const log = (line: string) => console.error(`[memory-scale ${new Date().toISOString().slice(11, 19)}] ${line}`);
const ms = (value: number) => value.toFixed(value < 10 ? 1 : 0);
const mb = (value: number) => value.toFixed(0);
async function timed<T>(run: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await run();
  return [performance.now() - started, result];
}

// ── seeding ──

async function seed(
  databaseUrl: string,
  big: { providerId: string; namespace: string },
  many: { providerId: string; namespace: string }[],
) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const workspaceId = (await client.query('SELECT id FROM workspaces LIMIT 1')).rows[0].id as string;
    await client.query('CREATE UNLOGGED TABLE bench_templates (i int PRIMARY KEY, text text, embedding real[])');
    const [embedMs] = await timed(async () => {
      for (let start = 0; start < TEMPLATES; start += 2000) {
        const batch = Array.from({ length: Math.min(2000, TEMPLATES - start) }, (_, k) => {
          const text = words(start + k, 10);
          return { i: start + k, text, embedding: `{${hashEmbedding(text).join(',')}}` };
        });
        await client.query(
          'INSERT INTO bench_templates SELECT i, t, e::real[] FROM unnest($1::int[], $2::text[], $3::text[]) AS u(i, t, e)',
          [batch.map((row) => row.i), batch.map((row) => row.text), batch.map((row) => row.embedding)],
        );
      }
    });
    log(`${TEMPLATES} template sentences embedded in ${(embedMs / 1000).toFixed(1)} s`);
    // The trigram and full-text GIN indexes (fastupdate off) cost more per row than the rest of the
    // insert: dropped for the load and built again after it, as one bulk build each.
    const gin = (
      await client.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_records' AND indexdef LIKE '%USING gin%'`)
    ).rows as { indexname: string; indexdef: string }[];
    for (const index of gin) await client.query(`DROP INDEX ${index.indexname}`);
    // Triggers off for the session: `seq` and the change counters are written here, set-based.
    await client.query("SET session_replication_role = 'replica'");
    const insert = async (name: string, count: number, memoryOf: string, seqOf: string, params: unknown[]) => {
      const [took] = await timed(() =>
        client.query(
          `INSERT INTO memory_records (provider_id, namespace, id, workspace_id, text, embedding, provenance, seq)
           SELECT ${memoryOf}, 'r' || lpad(n::text, 8, '0'), $1, t.text, t.embedding, '{}'::jsonb, ${seqOf}
           FROM generate_series(0::bigint, ${count - 1}) n JOIN bench_templates t ON t.i = (n * 7919) % ${TEMPLATES}`,
          [workspaceId, ...params],
        ),
      );
      log(`${name}: ${count} records in ${(took / 1000).toFixed(0)} s`);
    };
    await insert('the big memory', BIG, '$2::text, $3::text', 'n + 1', [big.providerId, big.namespace]);
    await insert(
      `${MANY} memories`,
      MANY * MANY_SIZE,
      `($2::text[])[1 + n / ${MANY_SIZE}], ($3::text[])[1 + n / ${MANY_SIZE}]`,
      `n % ${MANY_SIZE} + 1`,
      [many.map((m) => m.providerId), many.map((m) => m.namespace)],
    );
    await client.query("SET maintenance_work_mem = '512MB'");
    for (const index of gin) {
      const [took] = await timed(() => client.query(index.indexdef));
      log(`${index.indexname} built in ${(took / 1000).toFixed(0)} s`);
    }
    await client.query(`INSERT INTO memory_record_versions AS v (provider_id, namespace, version)
      SELECT provider_id, namespace, max(seq) FROM memory_records GROUP BY provider_id, namespace
      ON CONFLICT (provider_id, namespace) DO UPDATE SET version = GREATEST(v.version, EXCLUDED.version)`);
    await client.query(`INSERT INTO memory_record_words (provider_id, namespace, word)
      SELECT DISTINCT provider_id, namespace, w FROM memory_records, unnest(tsvector_to_array(tsv)) w WHERE length(w) <= 64
      ON CONFLICT DO NOTHING`);
    await client.query('DROP TABLE bench_templates');
    await client.query('RESET session_replication_role');
    const [vacuumMs] = await timed(() => client.query('VACUUM ANALYZE memory_records, memory_record_words, memory_record_versions'));
    log(`vacuum analyze ${(vacuumMs / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
}

// ── measuring ──

class Api {
  readonly rest: Rest;
  constructor(readonly service: Service) {
    this.rest = new Rest(service.url, service.apiKey);
  }

  async graphql(query: string, variables: Record<string, unknown>): Promise<any> {
    const body = await this.rest.ok('POST', '/graphql', { query, variables });
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }

  /**
   * The first search of a memory after a start: searched until it answers (while the index loads, a
   * search answers 503 `index_loading` after MEMORY_INDEX_WAIT_MS; a service without that bound answered
   * 504 at the GraphQL deadline) — the time to the first answer and how many searches answered so first.
   * After a 503 the bench waits a second (clients are told Retry-After: 5; a second keeps the figure close
   * to the load's end).
   */
  async firstSearch(memoryId: string, text: string): Promise<{ ms: number; timeouts: number }> {
    const started = performance.now();
    for (let timeouts = 0; ; timeouts++) {
      const answer = await this.rest.call('POST', `/api/v1/memories/${memoryId}/records/search`, { query: text, limit: 10 });
      if (answer.status === 200) return { ms: performance.now() - started, timeouts };
      if (isIndexLoading(answer) && timeouts < 600) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        continue;
      }
      if (answer.status !== 504 || timeouts >= 20) throw new Error(`first search: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }

  /** Searches that answered 504 (the GraphQL deadline passed while an index loaded). */
  timeouts = 0;

  /** One search through REST; its latency in ms (a 504 counts in `timeouts`, its latency is the deadline's). */
  async search(memoryId: string, text: string): Promise<number> {
    const [took, answer] = await timed(() =>
      this.rest.call('POST', `/api/v1/memories/${memoryId}/records/search`, { query: text, limit: 10 }),
    );
    if (answer.status === 504 || isIndexLoading(answer)) {
      this.timeouts++;
      return took;
    }
    if (answer.status !== 200) throw new Error(`search: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (!Array.isArray(answer.body.items) || answer.body.items.length === 0) throw new Error(`no results for ${JSON.stringify(text)}`);
    return took;
  }
}

/** A search answered 503 because its memory's vector index is still loading (docs/api/memories.md). */
function isIndexLoading(answer: { status: number; body: any }): boolean {
  return answer.status === 503 && answer.body?.error?.details?.reason === 'index_loading';
}

interface Snapshot {
  at: number;
  nodeCpuMs: number;
  postgresCpuMs: number;
  rssMb: number;
  pssMb: number;
}
function snapshot(service: Service): Snapshot {
  const cpu = service.processes.cpu();
  const memory = service.processes.memory().node;
  return { at: performance.now(), nodeCpuMs: cpu.nodeMs, postgresCpuMs: cpu.postgresMs, rssMb: memory.rssMb, pssMb: memory.pssMb };
}
const delta = (before: Snapshot, after: Snapshot) => ({
  ms: after.at - before.at,
  nodeCpuMs: after.nodeCpuMs - before.nodeCpuMs,
  postgresCpuMs: after.postgresCpuMs - before.postgresCpuMs,
  rssMb: after.rssMb - before.rssMb,
  pssMb: after.pssMb - before.pssMb,
});

async function sequential(api: Api, memoryId: string, count: number, offset: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) latencies.push(await api.search(memoryId, query(offset + i)));
  return latencies;
}

/** One round: every memory searched once, all at once (one client each). */
const concurrentRound = (api: Api, memoryIds: string[], round: number) =>
  Promise.all(memoryIds.map((id, i) => api.search(id, query(round * memoryIds.length + i))));

// ── main ──

/** A fresh database: the service's setup through the API (embedding model, memories), then the SQL seed. */
async function setUpAndSeed(url: string): Promise<Seeded> {
  // Setup through the API: the development embedding model and the memories.
  const setup = await startService({ databaseUrl: url, env: SERVICE_ENV });
  const setupApi = new Api(setup);
  const provider = await setupApi.rest.ok('POST', '/api/v1/model-providers', { type: 'development', name: 'dev embeddings' });
  await setupApi.rest.ok('POST', '/api/v1/models', { key: 'embedder', provider_id: provider.id, provider_model: 'hash-256' });
  const create = (name: string) =>
    setupApi.rest.ok('POST', '/api/v1/memories', { name, embedding_model: 'embedder' }).then((m) => m.id as string);
  const bigId = await create('big');
  const manyIds: string[] = [];
  for (let i = 0; i < MANY; i++) manyIds.push(await create(`small ${i}`));
  const writesId = await create('writes');
  await setup.stop();
  const where = async (ids: string[]) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const found = await client.query('SELECT id, provider_id, namespace FROM memories WHERE id = ANY($1)', [ids]);
    await client.end();
    const byId = new Map(found.rows.map((row) => [row.id, { providerId: row.provider_id as string, namespace: row.namespace as string }]));
    return ids.map((id) => byId.get(id)!);
  };
  const [seedMs] = await timed(async () => seed(url, (await where([bigId]))[0]!, await where(manyIds)));
  notes.push(`seeding (SQL): ${(seedMs / 1000).toFixed(0)} s for ${BIG + MANY * MANY_SIZE} records`);
  return { url, apiKey: setup.apiKey, secretKey: setup.secretKey, bigId, manyIds, writesId };
}

interface Seeded {
  url: string;
  apiKey: string;
  secretKey: string;
  bigId: string;
  manyIds: string[];
  writesId: string;
}
/** BENCH_MEMSCALE_KEEP=<file>: the seeded database is kept and described in that file; a later run reuses it. */
const KEEP = process.env.BENCH_MEMSCALE_KEEP ?? null;
const kept: Seeded | null = KEEP && existsSync(KEEP) ? (JSON.parse(readFileSync(KEEP, 'utf8')) as Seeded) : null;
const database = kept ? { url: kept.url, drop: async () => undefined } : await freshServerDatabase(ADMIN_URL);
if (!database) throw new Error(`no PostgreSQL server at ${ADMIN_URL}`);
const rows: string[][] = [];
const notes: string[] = [];
let keepDatabase = Boolean(kept);
try {
  const seeded = kept ?? (await setUpAndSeed(database.url));
  if (KEEP && !kept) {
    writeFileSync(KEEP, JSON.stringify(seeded));
    keepDatabase = true;
  }
  if (kept) notes.push(`a database seeded by an earlier run (with that run's writes)`);
  const { bigId, manyIds, writesId } = seeded;

  // Measured: a fresh start, nothing loaded.
  const service = await startService({
    databaseUrl: database.url,
    env: SERVICE_ENV,
    restart: { apiKey: seeded.apiKey, secretKey: seeded.secretKey },
  });
  const api = new Api(service);
  try {
    await api.rest.ok('GET', `/api/v1/memories/${bigId}`); // warms the HTTP path, not the index
    const idle = snapshot(service);

    const baselineStart = snapshot(service);
    await api.search(manyIds[0]!, query(0));
    const baselineFirst = delta(baselineStart, snapshot(service));
    const baselineWarm = await sequential(api, manyIds[0]!, QUERIES, 0);
    log(`baseline: first ${ms(baselineFirst.ms)} ms, warm p50 ${ms(percentile(baselineWarm, 50))} ms`);

    const bigStart = snapshot(service);
    const { timeouts: bigTimeouts } = await api.firstSearch(bigId, query(0));
    const bigFirst = delta(bigStart, snapshot(service));
    if (bigTimeouts > 0)
      notes.push(
        `the first search of the big memory answered 503 index_loading (or 504) ${bigTimeouts} time(s) before its index was loaded`,
      );
    const bigWarm = await sequential(api, bigId, QUERIES, 0);
    log(
      `big: first ${ms(bigFirst.ms)} ms (${bigTimeouts} timeouts), RSS +${mb(bigFirst.rssMb)} MB, warm p50 ${ms(percentile(bigWarm, 50))} ms`,
    );

    const manyStart = snapshot(service);
    api.timeouts = 0;
    const [coldMs, cold] = await timed(() => concurrentRound(api, manyIds, 0));
    const coldTimeouts = api.timeouts;
    const manyLoaded = delta(manyStart, snapshot(service));
    const warm: number[] = [];
    const [warmMs] = await timed(async () => {
      for (let round = 1; round <= ROUNDS; round++) warm.push(...(await concurrentRound(api, manyIds, round)));
    });
    const manyAfter = snapshot(service);
    const warmTimeouts = api.timeouts - coldTimeouts;
    log(`${MANY} at once: cold round ${ms(coldMs)} ms, warm p50 ${ms(percentile(warm, 50))} ms, RSS ${mb(manyAfter.rssMb)} MB`);
    // The big memory again after the 100: still held, or pushed out of the cache?
    const { ms: bigAgainMs, timeouts: againTimeouts } = await api.firstSearch(bigId, query(QUERIES + 1));
    if (againTimeouts > 0)
      notes.push(
        `the big memory's search after the ${MANY} answered 503 index_loading (or 504) ${againTimeouts} time(s) first (its index was dropped)`,
      );

    const stat = (label: string, first: number | string, lat: number[], extra: string, vsBaseline: boolean) => [
      label,
      typeof first === 'number' ? ms(first) : first,
      ms(percentile(lat, 50)),
      ms(percentile(lat, 99)),
      vsBaseline ? `${(percentile(lat, 50) / percentile(baselineWarm, 50)).toFixed(2)}×` : '1.00×',
      extra,
    ];
    rows.push(
      stat(
        `1 memory × ${MANY_SIZE} (baseline)`,
        baselineFirst.ms,
        baselineWarm,
        `load: node CPU ${ms(baselineFirst.nodeCpuMs)} ms, PG CPU ${ms(baselineFirst.postgresCpuMs)} ms, node RSS +${mb(baselineFirst.rssMb)} MB`,
        false,
      ),
      stat(
        `1 memory × ${BIG}`,
        bigFirst.ms,
        bigWarm,
        `load: node CPU ${ms(bigFirst.nodeCpuMs)} ms, PG CPU ${ms(bigFirst.postgresCpuMs)} ms, node RSS +${mb(bigFirst.rssMb)} MB, PSS +${mb(bigFirst.pssMb)} MB`,
        true,
      ),
      stat(
        `${MANY} memories × ${MANY_SIZE}, ${MANY} at once, cold`,
        `${ms(coldMs)} (round)`,
        cold,
        `load: node CPU ${ms(manyLoaded.nodeCpuMs)} ms, PG CPU ${ms(manyLoaded.postgresCpuMs)} ms, node RSS +${mb(manyLoaded.rssMb)} MB; ${coldTimeouts} answered 503 index_loading or 504`,
        true,
      ),
      stat(
        `${MANY} memories × ${MANY_SIZE}, ${MANY} at once, warm`,
        '',
        warm,
        `${((warm.length / warmMs) * 1000).toFixed(0)} searches/s; ${warmTimeouts} answered 503 index_loading or 504; node RSS ${mb(manyAfter.rssMb)} MB (idle ${mb(idle.rssMb)})`,
        true,
      ),
      stat(`1 memory × ${BIG}, again after the ${MANY}`, bigAgainMs, [bigAgainMs], '', true),
    );

    // Writes through the API.
    const singles = 300;
    const [singleMs] = await timed(async () => {
      for (let i = 0; i < singles; i++)
        await api.rest.ok('POST', `/api/v1/memories/${writesId}/records`, { text: words(5_000_000 + i, 10) });
    });
    const concurrentWriters = 8;
    const [concurrentMs] = await timed(() =>
      Promise.all(
        Array.from({ length: concurrentWriters }, async (_, w) => {
          for (let i = 0; i < singles / concurrentWriters; i++)
            await api.rest.ok('POST', `/api/v1/memories/${writesId}/records`, { text: words(6_000_000 + w * 1000 + i, 10) });
        }),
      ),
    );
    const batchSize = 10; // the most root fields a mutation document may hold
    const batches = 30;
    const batchDocument = `mutation Add($memoryId: ID!, ${Array.from({ length: batchSize }, (_, i) => `$t${i}: String!`).join(', ')}) {
      ${Array.from({ length: batchSize }, (_, i) => `a${i}: addMemoryRecord(memoryId: $memoryId, text: $t${i}) { record { id } }`).join('\n')}
    }`;
    const [batchMs] = await timed(async () => {
      for (let b = 0; b < batches; b++)
        await api.graphql(batchDocument, {
          memoryId: writesId,
          ...Object.fromEntries(Array.from({ length: batchSize }, (_, i) => [`t${i}`, words(7_000_000 + b * batchSize + i, 10)])),
        });
    });
    const [bigWriteMs] = await timed(async () => {
      for (let i = 0; i < 100; i++) await api.rest.ok('POST', `/api/v1/memories/${bigId}/records`, { text: words(8_000_000 + i, 10) });
    });
    const perSecond = (count: number, took: number) => ((count / took) * 1000).toFixed(0);
    const writeRows = [
      ['single (REST POST, one at a time)', perSecond(singles, singleMs), '1.00×'],
      [`single, ${concurrentWriters} writers at once`, perSecond(singles, concurrentMs), `${(singleMs / concurrentMs).toFixed(2)}×`],
      [
        `batch (GraphQL, ${batchSize} per document)`,
        perSecond(batches * batchSize, batchMs),
        `${(singleMs / singles / (batchMs / (batches * batchSize)) || 0).toFixed(2)}×`,
      ],
      [`single, into the ${BIG} memory`, perSecond(100, bigWriteMs), `${(singleMs / singles / (bigWriteMs / 100)).toFixed(2)}×`],
    ];

    const commit = execSync('git rev-parse --short HEAD').toString().trim();
    console.log(
      `\nmemory at scale — ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model ?? '?'}`,
    );
    console.log(`PostgreSQL server ${ADMIN_URL.replace(/\/\/[^@]*@/, '//')}; the machine may be shared (other load inflates latencies)`);
    for (const note of notes) console.log(note);
    console.log('\n| searches | first search ms | warm p50 ms | warm p99 ms | p50 vs baseline | notes |');
    console.log('|---|--:|--:|--:|--:|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
    console.log('\n| writes | records/s | vs single |');
    console.log('|---|--:|--:|');
    for (const row of writeRows) console.log(`| ${row.join(' | ')} |`);
    console.log(
      `\nnode RSS idle ${mb(idle.rssMb)} MB, after everything ${mb(snapshot(service).rssMb)} MB; run-queue wait ${ms(service.processes.runQueueWaitMs())} ms`,
    );
  } finally {
    await service.stop();
  }
} finally {
  if (!keepDatabase) await database.drop();
}
