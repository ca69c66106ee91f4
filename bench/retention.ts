// npm run bench:retention: what stored runs cost and what removing them costs — the figures behind the
// retention defaults and the decision not to partition run items (docs/operations.md, "Retention").
//
// 1. Starts the service as users do (a child process, `npm start`) on a fresh database of the
//    PostgreSQL server, so the schema, indexes and migrations are the service's own, and makes
//    BENCH_REAL_RUNS real runs through REST (the offline development model): the bytes one real run
//    writes, per table.
// 2. Fills the same database through SQL in steps (BENCH_RETENTION_RUNS, cumulative) with runs shaped
//    like the issue's workload: ITEMS_PER_RUN items per run (a question, reasoning, tool calls and
//    results, answers of 1–3 KiB of incompressible text), one inbox entry, three audit rows, one
//    thread per ten runs. Half of each step's runs sealed 100 days ago (expired under the 90-day
//    default), half yesterday.
// 3. At each size: table and index bytes per 1,000 runs (pg_table_size, pg_indexes_size), then the
//    retention statements the service runs (the same builders, executed here), timed per batch, with
//    WAL bytes per 1,000 runs removed. The baseline, measured in the same pass: inserting the same
//    number of runs. The ratio of the per-batch cost at the largest size to the smallest says whether
//    a bounded delete slows down as the table grows — the question partitioning would answer.
//
// Env: BENCH_DATABASE_URL (an admin URL of the server; default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_RETENTION_RUNS (5000,30000), BENCH_REAL_RUNS (200).
import pg from 'pg';
import type { Prisma } from '../src/generated/prisma/client.js';
import { Rest, addEchoModel } from './blackbox/clients.js';
import { freshServerDatabase, startService } from './blackbox/service.js';
import { markExpiredRunsStatement, purgeStatement, finishPurgesStatement } from '../src/features/runs/run-item-retention.js';
import { expiredEntriesStatement } from '../src/features/runs/inbox-retention.js';
import { RETENTION_BATCH, RUN_MARK_BATCH } from '../src/engine/housekeeping.js';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const STEPS = (process.env.BENCH_RETENTION_RUNS ?? '5000,30000').split(',').map(Number);
const REAL_RUNS = Number(process.env.BENCH_REAL_RUNS ?? 200);
const ITEMS_PER_RUN = 10;
const TABLES = ['runs', 'run_items', 'inbox_entries', 'audit_events', 'threads'] as const;

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const kib = (bytes: number) => `${fmt(bytes / 1024, 0)} KiB`;

async function run(db: pg.Client, statement: Prisma.Sql) {
  return db.query(statement.text, statement.values as unknown[]);
}

async function sizes(db: pg.Client) {
  const out: Record<string, { table: number; indexes: number }> & { runsWithItems?: number } = {};
  out.runsWithItems = Number((await db.query(`SELECT count(*) AS n FROM runs WHERE items_removed_at IS NULL`)).rows[0].n);
  for (const table of TABLES) {
    const row = (await db.query(`SELECT pg_table_size($1) AS t, pg_indexes_size($1) AS i`, [table])).rows[0];
    out[table] = { table: Number(row.t), indexes: Number(row.i) };
  }
  return out;
}

const walLsn = async (db: pg.Client) => (await db.query(`SELECT pg_current_wal_lsn() AS l`)).rows[0].l as string;
const walSince = async (db: pg.Client, from: string) =>
  Number((await db.query(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS d`, [from])).rows[0].d);

/**
 * Inserts `count` runs (`first` onwards) shaped like the workload, with their items, inbox entries,
 * audit rows and threads, in the given workspace, for the given agent. Half sealed 100 days ago.
 */
async function seed(
  db: pg.Client,
  ids: { workspace: string; agent: string; revision: string; session: string },
  first: number,
  count: number,
) {
  const last = first + count - 1;
  await db.query('BEGIN');
  await db.query(
    `INSERT INTO threads (id, workspace_id, session_id, created_by_id, updated_by_id, last_inbox_position)
     SELECT 'thr_bench' || g, $1, $2, 'bench', 'bench', 10 FROM generate_series($3::int / 10, $4::int / 10) g
     ON CONFLICT (id) DO NOTHING`,
    [ids.workspace, ids.session, first, last],
  );
  await db.query(
    `INSERT INTO runs (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, status, principal_id, attempts,
                       max_attempts, input, output, usage_at_seal, created_at, started_at, sealed_at, trace_id)
     SELECT 'run_bench' || lpad(g::text, 9, '0'), $1, $2, 'thr_bench' || (g / 10), $3, $4, 'completed', 'bench', 1, 3,
            jsonb_build_object('content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'question ' || md5(g::text)))),
            to_jsonb('answer ' || repeat(md5(g::text), 8)),
            '{"requests": 4, "input_tokens": 5000, "output_tokens": 900, "cached_input_tokens": 0}',
            s, s, s, md5(g::text)
     FROM generate_series($5::int, $6::int) g,
          LATERAL (SELECT CASE WHEN g % 2 = 0 THEN now() - interval '100 days' ELSE now() - interval '1 day' END AS s) t`,
    [ids.workspace, ids.session, ids.agent, ids.revision, first, last],
  );
  // Ten items: user message, reasoning, three tool calls and results, two answers (1–3 KiB of hex text).
  await db.query(
    `INSERT INTO run_items (id, run_id, workspace_id, ordinal, kind, state, content, first_stream_id, last_stream_id, started_at, ended_at)
     SELECT 'itm_bench' || lpad(g::text, 9, '0') || '_' || o, 'run_bench' || lpad(g::text, 9, '0'), $1, o,
            (ARRAY['user_message','reasoning','tool_call','tool_result','tool_call','tool_result','tool_call','tool_result','text_message','text_message'])[o],
            'completed',
            CASE WHEN o IN (9, 10) THEN jsonb_build_object('text', (SELECT string_agg(md5(g::text || o || k), '') FROM generate_series(1, 32 + (g % 64)) k))
                 WHEN o IN (4, 6, 8) THEN jsonb_build_object('tool_call_id', 'call_' || o, 'status', 'returned', 'value', (SELECT string_agg(md5(g::text || o || k), '') FROM generate_series(1, 24) k))
                 WHEN o = 2 THEN jsonb_build_object('text', (SELECT string_agg(md5(g::text || o || k), '') FROM generate_series(1, 16) k))
                 ELSE jsonb_build_object('tool_call_id', 'call_' || o, 'tool_name', 'search', 'arguments', jsonb_build_object('q', md5(g::text || o)), 'text', md5(g::text)) END,
            's' || (1000000 + o * 10), 's' || (1000000 + o * 10 + 9), now(), now()
     FROM generate_series($2::int, $3::int) g, generate_series(1, ${ITEMS_PER_RUN}) o`,
    [ids.workspace, first, last],
  );
  await db.query(
    `INSERT INTO inbox_entries (id, workspace_id, thread_id, delivery, status, position, payload, principal_id, request_digest,
                                assigned_run_id, created_at, finished_at)
     SELECT 'inb_bench' || g, r.workspace_id, r.thread_id, 'queue', 'completed', (g % 10) + 1, r.input, 'bench', md5(g::text), r.id, r.created_at, r.sealed_at
     FROM generate_series($1::int, $2::int) g JOIN runs r ON r.id = 'run_bench' || lpad(g::text, 9, '0')`,
    [first, last],
  );
  await db.query(
    `INSERT INTO audit_events (id, workspace_id, principal_id, action, resource_kind, resource_id, version, changes, request_id, created_at)
     SELECT 'aud_bench' || g || '_' || k, $1, 'bench', 'create', (ARRAY['session','thread','run'])[k], 'run_bench' || g, 1,
            jsonb_build_object('agent_id', $2::text, 'thread_id', 'thr_bench' || (g / 10)), 'req_' || md5(g::text), now() - interval '1 day'
     FROM generate_series($3::int, $4::int) g, generate_series(1, 3) k`,
    [ids.workspace, ids.agent, first, last],
  );
  // Each thread's latest run is its last_run_id: the protection retention keeps.
  await db.query(
    `UPDATE threads t SET last_run_id = 'run_bench' || lpad(LEAST(x.n * 10 + 9, $2::int)::text, 9, '0')
     FROM (SELECT id, substr(id, 10)::int AS n FROM threads WHERE id LIKE 'thr_bench%') x(id, n)
     WHERE t.id = x.id AND x.n BETWEEN $1::int / 10 AND $2::int / 10`,
    [first, last],
  );
  await db.query('COMMIT');
}

interface Timing {
  ms: number[];
  rows: number;
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** Runs the service's run-item retention statements to the end, timing each kind of batch. */
async function sweep(db: pg.Client) {
  const mark: Timing = { ms: [], rows: 0 };
  const purge: Timing = { ms: [], rows: 0 };
  const inbox: Timing = { ms: [], rows: 0 };
  const wal = await walLsn(db);
  let cursor: { sealedAt: Date; id: string } | null = null;
  for (;;) {
    let started = performance.now();
    const marked = await run(db, markExpiredRunsStatement(90, RUN_MARK_BATCH, cursor));
    mark.ms.push(performance.now() - started);
    mark.rows += marked.rowCount ?? 0;
    if (!marked.rows.length) break;
    const lastRow = marked.rows[marked.rows.length - 1];
    cursor = { sealedAt: lastRow.sealedAt, id: lastRow.id };
    for (;;) {
      started = performance.now();
      const deleted = (await run(db, purgeStatement('run_items', RETENTION_BATCH))).rowCount ?? 0;
      purge.ms.push(performance.now() - started);
      purge.rows += deleted;
      if (deleted < RETENTION_BATCH) break;
    }
    await run(db, finishPurgesStatement(RUN_MARK_BATCH));
  }
  let entryCursor: { finishedAt: Date; id: string } | null = null;
  for (;;) {
    const started = performance.now();
    const deleted = await run(db, expiredEntriesStatement(90, RETENTION_BATCH, entryCursor));
    inbox.ms.push(performance.now() - started);
    inbox.rows += deleted.rows.length;
    if (deleted.rows.length < RETENTION_BATCH) break;
    const newest = deleted.rows.reduce((a, b) => (a.finishedAt > b.finishedAt || (+a.finishedAt === +b.finishedAt && a.id > b.id) ? a : b));
    entryCursor = { finishedAt: newest.finishedAt, id: newest.id };
  }
  return { mark, purge, inbox, walBytes: await walSince(db, wal) };
}

async function main() {
  const database = await freshServerDatabase(ADMIN_URL);
  if (!database) throw new Error('no PostgreSQL server: set BENCH_DATABASE_URL');
  const service = await startService({
    databaseUrl: database.url,
    env: { RUN_WORKERS: '2', RUN_ITEM_RETENTION_DAYS: '0', INBOX_RETENTION_DAYS: '0' },
  });
  const db = new pg.Client({ connectionString: database.url });
  await db.connect();
  try {
    // 1. Real runs through REST: what one run of the development model writes.
    const rest = new Rest(service.url, service.apiKey);
    await addEchoModel(rest);
    const agent = await rest.ok('POST', '/api/v1/agents', { name: 'retention bench', config: { model: 'dev' } });
    const before = await sizes(db);
    let threadId: string | undefined;
    for (let n = 0; n < REAL_RUNS; n++) {
      const body = {
        agent_id: agent.id,
        input: { content: [{ type: 'text', text: `question ${n}` }] },
        ...(threadId ? { thread_id: threadId } : {}),
      };
      const created = await rest.ok('POST', '/api/v1/runs', body, { Prefer: 'wait=30' });
      // Ten runs per thread, as in the synthetic set.
      threadId = n % 10 === 9 ? undefined : created.thread_id;
    }
    await db.query('VACUUM ANALYZE');
    const after = await sizes(db);
    console.log(`\nReal runs through REST (${REAL_RUNS}, development model: one question, one answer): bytes per 1,000 runs`);
    console.log('| table | table | indexes |\n|---|---|---|');
    for (const table of TABLES) {
      const per = (x: number) => kib((x * 1000) / REAL_RUNS);
      console.log(
        `| ${table} | ${per(after[table]!.table - before[table]!.table)} | ${per(after[table]!.indexes - before[table]!.indexes)} |`,
      );
    }

    // 2 and 3. The synthetic workload in steps.
    const ws = (await db.query(`SELECT workspace_id, id, default_revision_id FROM agents WHERE id = $1`, [agent.id])).rows[0];
    const session = (await db.query(`SELECT id FROM sessions LIMIT 1`)).rows[0].id;
    const ids = { workspace: ws.workspace_id, agent: ws.id, revision: ws.default_revision_id, session };
    const results: {
      runs: number;
      insertMsPer1k: number;
      sizes: Awaited<ReturnType<typeof sizes>>;
      sweep: Awaited<ReturnType<typeof sweep>>;
    }[] = [];
    let seeded = 0;
    for (const target of STEPS) {
      const count = target - seeded;
      const started = performance.now();
      // In chunks, as a day of runs arrives: the baseline's cost per 1,000 runs.
      for (let first = seeded; first < target; first += 10_000) await seed(db, ids, first, Math.min(10_000, target - first));
      const insertMsPer1k = ((performance.now() - started) * 1000) / count;
      seeded = target;
      await db.query('VACUUM ANALYZE');
      const atSize = await sizes(db);
      // Every size starts its sweep right after a checkpoint: the first change of each page after one
      // writes the whole page to the WAL, so without it a sweep's cost depends on when the seeding's
      // own checkpoint happened to fall.
      await db.query('CHECKPOINT');
      const swept = await sweep(db);
      await db.query('VACUUM ANALYZE');
      results.push({ runs: target, insertMsPer1k, sizes: atSize, sweep: swept });
    }

    console.log(
      `\nSynthetic runs (${ITEMS_PER_RUN} items, ~8 KiB of content each; 1 inbox entry, 3 audit rows; 10 runs per thread): bytes per 1,000 runs`,
    );
    console.log(`| runs stored | ${TABLES.map((t) => `${t} table | ${t} indexes`).join(' | ')} |`);
    console.log(`|---|${TABLES.map(() => '---|---').join('|')}|`);
    for (const r of results) {
      // Items per run that still has them (the earlier steps' expired runs lost theirs); the rest per run stored.
      const per = (t: string, x: number) => kib((x * 1000) / (t === 'run_items' ? r.sizes.runsWithItems! : r.runs));
      console.log(
        `| ${fmt(r.runs, 0)} | ${TABLES.map((t) => `${per(t, r.sizes[t]!.table)} | ${per(t, r.sizes[t]!.indexes)}`).join(' | ')} |`,
      );
    }

    console.log(`\nRetention sweep (the service's statements; mark ${RUN_MARK_BATCH} runs, delete ${RETENTION_BATCH} rows per batch)`);
    console.log(
      '| runs stored | runs marked | mark batch ms | items deleted | delete batch ms (p. 5,000 rows) | inbox batch ms | ms per 1,000 runs removed | WAL per 1,000 runs removed | insert ms per 1,000 runs (baseline) | removal / insert |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    for (const r of results) {
      const s = r.sweep;
      const totalMs = [...s.mark.ms, ...s.purge.ms, ...s.inbox.ms].reduce((a, b) => a + b, 0);
      const per1k = (totalMs * 1000) / Math.max(1, s.mark.rows);
      console.log(
        `| ${fmt(r.runs, 0)} | ${fmt(s.mark.rows, 0)} | ${fmt(mean(s.mark.ms))} | ${fmt(s.purge.rows, 0)} | ${fmt(mean(s.purge.ms))} | ${fmt(mean(s.inbox.ms))} | ${fmt(per1k)} | ${kib((s.walBytes * 1000) / Math.max(1, s.mark.rows))} | ${fmt(r.insertMsPer1k)} | ${fmt(per1k / r.insertMsPer1k, 2)} |`,
      );
    }
    if (results.length > 1) {
      const [small, large] = [results[0]!, results[results.length - 1]!];
      console.log(
        `\nPer-batch cost at ${fmt(large.runs, 0)} runs against ${fmt(small.runs, 0)}: mark ${fmt(mean(large.sweep.mark.ms) / mean(small.sweep.mark.ms), 2)}×, delete ${fmt(mean(large.sweep.purge.ms) / mean(small.sweep.purge.ms), 2)}×, inbox ${fmt(mean(large.sweep.inbox.ms) / mean(small.sweep.inbox.ms), 2)}×`,
      );
    }
  } finally {
    await db.end();
    await service.stop();
    await database.drop();
  }
}

await main();
