// npm run bench:item-writes: what streaming answers writes to the database, from outside. Starts the
// service as users do (a child process on its embedded PostgreSQL, or on a fresh database of a
// PostgreSQL server), drives it only through public surfaces (REST, optionally graphql-ws runItems subscribers)
// with the loopback OpenAI-compatible model, and reads PostgreSQL's own counters before and after:
// WAL bytes (pg_current_wal_lsn), transactions committed (each item write is one; reads count too), rows inserted,
// updated and deleted, and the growth of the item tables. For each level, N runs stream an answer of
// T tokens at the same time at a model's pace; the table shows the cost per run and per 1,000
// tokens, and per 1,000 tokens as a ratio to the shortest answer measured in the same run (1.0:
// linear in the answer's length; the answer's square shows as ratios growing with T).
//
// Env: BENCH_PASSES (embedded; add `server` for the PostgreSQL server), BENCH_DATABASE_URL (an admin
// URL of the server, default postgresql://postgres@127.0.0.1:5432/postgres), BENCH_LIVE_RUNS (1,100),
// BENCH_TOKENS (100,800), BENCH_TOKENS_PER_S (50), BENCH_SUBSCRIBE (1: a graphql-ws runItems
// subscriber per run; by default runs are awaited over REST), BENCH_CONNECTIONS (graphql-ws connections, 20).
import pg from 'pg';
import { Rest, Subscribers } from './blackbox/clients.js';
import { addLoopbackAgent, startLoopbackModel, type LoopbackModel } from './blackbox/loopback-model.js';
import { freshServerDatabase, startService } from './blackbox/service.js';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').map((v) => v.trim());
const PASSES = list('BENCH_PASSES', 'embedded');
const LIVE_RUNS = list('BENCH_LIVE_RUNS', '1,100').map(Number);
const TOKENS = list('BENCH_TOKENS', '100,800').map(Number);
const TOKENS_PER_S = Number(process.env.BENCH_TOKENS_PER_S ?? 50);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
/** Whether each run has a runItems subscriber (today's snapshots send a subscriber O(T²) bytes: off by default). */
const SUBSCRIBE = process.env.BENCH_SUBSCRIBE === '1';
/** Characters per token as the loopback model sends them, as a real model's (about four). */
const TOKEN_CHARS = 4;
let seed = 1;
/** A token: three letters and a space, drawn so the text does not compress (as PostgreSQL would a repeated one). */
function token(): string {
  let word = '';
  for (let index = 1; index < TOKEN_CHARS; index++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    word += String.fromCharCode(97 + (seed % 26));
  }
  return `${word} `;
}

interface Counters {
  walBytes: bigint;
  commits: number;
  inserted: number;
  updated: number;
  deleted: number;
  tableBytes: number;
}

/** PostgreSQL's counters for the service's database (statistics flushed, the snapshot cleared). */
async function counters(db: pg.Client): Promise<Counters> {
  // An idle backend reports its statistics within 10 s (PostgreSQL's idle interval): wait until it has.
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await db.query('SELECT pg_stat_clear_snapshot()');
  const wal = await db.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS bytes`);
  const database = await db.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()');
  const tables = await db.query(`SELECT coalesce(sum(n_tup_ins), 0)::bigint AS ins, coalesce(sum(n_tup_upd), 0)::bigint AS upd,
      coalesce(sum(n_tup_del), 0)::bigint AS del, coalesce(sum(pg_total_relation_size(relid)), 0)::bigint AS size
    FROM pg_stat_user_tables WHERE relname IN ('run_items', 'run_item_appends')`);
  const row = tables.rows[0];
  return {
    walBytes: BigInt(wal.rows[0].bytes),
    commits: Number(database.rows[0].xact_commit),
    inserted: Number(row.ins),
    updated: Number(row.upd),
    deleted: Number(row.del),
    tableBytes: Number(row.size),
  };
}

interface Level {
  runs: number;
  tokens: number;
  seconds: number;
  walBytes: number;
  commits: number;
  rows: number;
  inserted: number;
  updated: number;
  deleted: number;
  tableBytes: number;
}

/** N runs stream T tokens each at the model's pace, each watched by a runItems subscriber. */
async function level(
  rest: Rest,
  subscribers: Subscribers,
  loopback: LoopbackModel,
  db: pg.Client,
  agentId: string,
  runs: number,
  tokens: number,
): Promise<Level> {
  const started = await Promise.all(
    Array.from({ length: runs }, () =>
      rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } }),
    ),
  );
  const watched = SUBSCRIBE ? started.map((run) => subscribers.runItems(run.id)) : [];
  await loopback.held(runs);
  const before = await counters(db);
  const begin = performance.now();
  for (let index = 0; index < tokens; index++) {
    loopback.send(token());
    // At the model's pace: the next token when its time has come (late tokens are not made up).
    const due = begin + ((index + 1) * 1000) / TOKENS_PER_S;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
  }
  loopback.finish();
  await Promise.all(watched);
  for (const run of started) await settled(rest, run.id);
  const seconds = (performance.now() - begin) / 1000;
  const after = await counters(db);
  for (const run of started) {
    const done = await rest.ok('GET', `/api/v1/runs/${run.id}`);
    if (done.status !== 'completed' || done.output.length !== tokens * TOKEN_CHARS)
      throw new Error(`run ${run.id} ended ${done.status} with ${done.output?.length} characters`);
  }
  const inserted = after.inserted - before.inserted;
  const updated = after.updated - before.updated;
  const deleted = after.deleted - before.deleted;
  return {
    runs,
    tokens,
    seconds,
    walBytes: Number(after.walBytes - before.walBytes),
    commits: after.commits - before.commits,
    rows: inserted + updated + deleted,
    inserted,
    updated,
    deleted,
    tableBytes: after.tableBytes - before.tableBytes,
  };
}

/** Waits for a run to end (read over REST). */
async function settled(rest: Rest, runId: string) {
  for (;;) {
    const run = await rest.ok('GET', `/api/v1/runs/${runId}`);
    if (!['accepted', 'running'].includes(run.status)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

function print(pass: string, levels: Level[]) {
  console.log(`\n## ${pass}: item writes of streamed answers (${TOKENS_PER_S} tokens/s, ${TOKEN_CHARS} characters a token)\n`);
  console.log(
    '| live runs | tokens | wall s | transactions/s | transactions per run | item rows written per run (ins/upd/del) | WAL per run | WAL per 1,000 tokens | ratio to shortest | item tables' +
      ' growth per run |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const runs of LIVE_RUNS) {
    const own = levels.filter((l) => l.runs === runs);
    const shortest = own.reduce((a, b) => (a.tokens <= b.tokens ? a : b));
    const perKilotoken = (l: Level) => l.walBytes / l.runs / (l.tokens / 1000);
    for (const l of own) {
      const per = (value: number) => (value / l.runs).toFixed(1);
      console.log(
        `| ${l.runs} | ${l.tokens} | ${l.seconds.toFixed(1)} | ${(l.commits / l.seconds).toFixed(0)} | ${per(l.commits)} | ${per(l.rows)} (${per(l.inserted)}/${per(l.updated)}/${per(l.deleted)}) | ${kb(
          l.walBytes / l.runs,
        )} | ${kb(perKilotoken(l))} | ${(perKilotoken(l) / perKilotoken(shortest)).toFixed(2)} | ${kb(l.tableBytes / l.runs)} |`,
      );
    }
  }
}

async function pass(name: string) {
  const server =
    name === 'server' ? await freshServerDatabase(process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres') : null;
  if (name === 'server' && !server) return;
  const maxRuns = Math.max(...LIVE_RUNS);
  const service = await startService({ databaseUrl: server?.url ?? null, env: { RUN_WORKERS: String(maxRuns + 10) } });
  const loopback = await startLoopbackModel();
  const db = new pg.Client({ connectionString: service.databaseUrl });
  await db.connect();
  const subscribers = new Subscribers(service.url, service.apiKey, CONNECTIONS);
  try {
    const rest = new Rest(service.url, service.apiKey);
    const agentId = await addLoopbackAgent(rest, loopback, 'streamer');
    // One short run first: connections, caches and the first statements' plans are warm.
    await level(rest, subscribers, loopback, db, agentId, 1, 5);
    const levels: Level[] = [];
    for (const runs of LIVE_RUNS)
      for (const tokens of TOKENS) levels.push(await level(rest, subscribers, loopback, db, agentId, runs, tokens));
    print(name === 'server' ? 'PostgreSQL server (shared: WAL includes other databases)' : 'embedded PostgreSQL', levels);
  } finally {
    await subscribers.close();
    await db.end();
    await loopback.close();
    await service.stop();
    await server?.drop();
  }
}

for (const name of PASSES) await pass(name);
