// npm run bench:pg-census: what PostgreSQL does per watched run, from PostgreSQL's own counters — every
// statement the database executed (pg_stat_statements: calls, execution and planning time, rows,
// shared blocks dirtied and written, WAL), the rows each table gained, updated (HOT or not) and
// deleted, the indexes scanned, the trigger functions called, the WAL written, and the CPU of each kind
// of PostgreSQL process (the service's backends, the WAL writer, the checkpointer, the background
// writer, autovacuum) over the measured pass, from /proc. bench/run-overhead.ts says how much
// PostgreSQL costs per run; this says where it goes.
//
// A watched run is the one `npm run bench` measures: `POST /api/v1/runs` and a graphql-ws `runItems`
// subscriber until the run is sealed, sequentially, after a warm-up.
//
// pg_stat_statements must be loaded (shared_preload_libraries): the embedded pass loads it through
// EMBEDDED_PG_SETTINGS; a server pass needs a server that preloads it (initdb one under /tmp with
// `shared_preload_libraries = 'pg_stat_statements'` and `pg_stat_statements.track = all`,
// `pg_stat_statements.track_planning = on`, `track_functions = all` — never reconfigure a shared
// server for this).
//
// Env: BENCH_PASSES (embedded,server), BENCH_DATABASE_URL (the server's admin URL), BENCH_SEQUENTIAL
// (300), BENCH_WARMUP (200), BENCH_SERVICE_ENV (as bench:run-overhead), BENCH_WALDUMP (a pg_waldump
// binary: also break the pass's WAL down by record kind; the server's data directory must be readable
// here, BENCH_PGDATA), BENCH_CENSUS_SQL (statements run on the service's database before the warm-up:
// what-if experiments such as dropping an index, never for a database anyone else uses). Prints Markdown.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { Rest, Subscribers, addEchoAgent, addEchoModel } from './blackbox/clients.js';
import { freshServerDatabase, startService } from './blackbox/service.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PASSES = (process.env.BENCH_PASSES ?? 'embedded,server').split(',').map((pass) => pass.trim());
const SEQUENTIAL = env('BENCH_SEQUENTIAL', 300);
const WARMUP = env('BENCH_WARMUP', 200);
const extraEnv = Object.fromEntries(
  (process.env.BENCH_SERVICE_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);
// A backend flushes its table and function counters at most once a second, and an idle one within 10 s
// (PostgreSQL 15); the table figures are read after this much quiet.
const STATS_SETTLE_MS = 11_500;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function watchedRun(rest: Rest, subscribers: Subscribers, agentId: string): Promise<void> {
  const run = await rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: text('hi') });
  await subscribers.runItems(run.id);
}

function stat(pid: number): { ppid: number; cpuMs: number; systemMs: number; childCpuMs: number } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const ms = (index: number) => Number(fields[index]) * 10;
    return { ppid: Number(fields[1]), cpuMs: ms(11) + ms(12), systemMs: ms(12), childCpuMs: ms(13) + ms(14) };
  } catch {
    return null;
  }
}

/**
 * CPU ms so far of each kind of process under the postmaster, by its title ("postgres: walwriter",
 * "postgres: user db 127.0.0.1(port) idle" → "backend <db>"), and of the reaped ones (exited backends,
 * autovacuum workers) as the postmaster's children's time. Backends of other databases are left out.
 */
function postgresCpu(postmaster: number, database: string): Map<string, number> {
  const kinds = new Map<string, number>();
  const add = (kind: string, ms: number) => kinds.set(kind, (kinds.get(kind) ?? 0) + ms);
  const own = stat(postmaster);
  if (own) {
    add('postmaster', own.cpuMs);
    add('exited children (autovacuum workers, closed sessions)', own.childCpuMs);
  }
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = stat(Number(name));
    if (!child || child.ppid !== postmaster) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    const backend = /^postgres: \S+ (\S+) (?:\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\])/.exec(title);
    if (backend) {
      if (backend[1] === database) {
        add('backends of the service', child.cpuMs);
        // Of which in the kernel: system calls (socket reads and writes, the WAL's write and fsync).
        kinds.set('(of which system time)', (kinds.get('(of which system time)') ?? 0) + child.systemMs);
      }
      continue;
    }
    add(title.replace(/^postgres: /, '').replace(/ worker.*$/, ' worker'), child.cpuMs);
  }
  return kinds;
}

async function postmasterPid(client: pg.Client): Promise<number> {
  const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  return stat(backend)!.ppid;
}

const STATEMENTS = `
  SELECT queryid::text, toplevel, query, calls::float8, plans::float8, total_exec_time, total_plan_time, rows::float8,
         shared_blks_hit::float8, shared_blks_read::float8, shared_blks_dirtied::float8, shared_blks_written::float8,
         wal_records::float8, wal_fpi::float8, wal_bytes::float8
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;
const TABLES = `
  SELECT relname, n_tup_ins::float8, n_tup_upd::float8, n_tup_hot_upd::float8, n_tup_del::float8, seq_scan::float8,
         coalesce(idx_scan, 0)::float8 AS idx_scan, n_dead_tup::float8
    FROM pg_stat_user_tables`;
const INDEXES = `SELECT relname || '.' || indexrelname AS name, idx_scan::float8 FROM pg_stat_user_indexes`;
const FUNCTIONS = `SELECT funcname, calls::float8, total_time, self_time FROM pg_stat_user_functions`;
const WAL = `SELECT pg_current_wal_lsn()::text AS lsn, wal_records::float8, wal_fpi::float8, wal_bytes::float8, wal_write::float8, wal_sync::float8 FROM pg_stat_wal`;
const CHECKPOINTS = `SELECT checkpoints_timed::float8, checkpoints_req::float8, buffers_checkpoint::float8, buffers_clean::float8, buffers_backend::float8 FROM pg_stat_bgwriter`;

type Row = Record<string, any>;
const byKey = (rows: Row[], key: (row: Row) => string) => new Map(rows.map((row) => [key(row), row]));
const statementKey = (row: Row) => `${row.queryid}/${row.toplevel}`;

function delta(after: Row, before: Row | undefined): Row {
  const out: Row = {};
  for (const [name, value] of Object.entries(after)) out[name] = typeof value === 'number' ? value - (before?.[name] ?? 0) : value;
  return out;
}

const fixed = (value: number, digits = 3) => Number(value.toFixed(digits));
const oneLine = (sql: string, max = 150) => {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

async function census(label: string, databaseUrl: string | null, settings: string[]) {
  const service = await startService({
    databaseUrl,
    env: {
      RUN_WORKERS: '110',
      ...(databaseUrl ? {} : { EMBEDDED_PG_SETTINGS: settings.join(' ') }),
      ...extraEnv,
    },
  });
  const rest = new Rest(service.url, service.apiKey);
  const subscribers = new Subscribers(service.url, service.apiKey, 20);
  const client = new pg.Client({ connectionString: service.databaseUrl });
  await client.connect();
  const out: string[] = [];
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const database = (await client.query('SELECT current_database() AS name')).rows[0].name as string;
    const postmaster = await postmasterPid(client);
    if (process.env.BENCH_CENSUS_SQL) await client.query(process.env.BENCH_CENSUS_SQL);
    await addEchoModel(rest, 'census development');
    const agentId = await addEchoAgent(rest);
    let remaining = WARMUP;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (remaining-- > 0) await watchedRun(rest, subscribers, agentId);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
    const query = async (sql: string) => (await client.query(sql)).rows as Row[];
    const before = {
      statements: byKey(await query(STATEMENTS), statementKey),
      tables: byKey(await query(TABLES), (row) => row.relname),
      indexes: byKey(await query(INDEXES), (row) => row.name),
      functions: byKey(await query(FUNCTIONS), (row) => row.funcname),
      wal: (await query(WAL))[0]!,
      checkpoints: (await query(CHECKPOINTS))[0]!,
      cpu: postgresCpu(postmaster, database),
      nodeCpu: service.processes.cpu().nodeMs,
    };
    const started = performance.now();
    for (let i = 0; i < SEQUENTIAL; i++) await watchedRun(rest, subscribers, agentId);
    const wallMs = performance.now() - started;
    const cpu = postgresCpu(postmaster, database);
    const nodeCpu = service.processes.cpu().nodeMs;
    const statements = (await query(STATEMENTS))
      .map((row) => delta(row, before.statements.get(statementKey(row))))
      .filter((row) => row.calls > 0);
    const wal = delta((await query(WAL))[0]!, before.wal);
    const walBytes = Number((await query(`SELECT pg_wal_lsn_diff('${wal.lsn}', '${before.wal.lsn}') AS bytes`))[0]!.bytes);
    const checkpoints = delta((await query(CHECKPOINTS))[0]!, before.checkpoints);
    await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
    const tables = (await query(TABLES)).map((row) => delta(row, before.tables.get(row.relname)));
    const indexes = (await query(INDEXES)).map((row) => delta(row, before.indexes.get(row.name))).filter((row) => row.idx_scan > 0);
    const functions = (await query(FUNCTIONS)).map((row) => delta(row, before.functions.get(row.funcname))).filter((row) => row.calls > 0);

    const per = (value: number) => fixed(value / SEQUENTIAL);
    const pgTotal = [...cpu]
      .filter(([kind]) => !kind.startsWith('('))
      .reduce((sum, [kind, ms]) => sum + ms - (before.cpu.get(kind) ?? 0), 0);
    out.push(`## ${label}: ${SEQUENTIAL} sequential watched runs after ${WARMUP} warm-up, ${fixed(wallMs / 1000, 1)} s`);
    out.push('');
    out.push(`node CPU per run ${per(nodeCpu - before.nodeCpu)} ms, PostgreSQL CPU per run ${per(pgTotal)} ms`);
    out.push('');
    out.push('| PostgreSQL process | CPU ms per run |');
    out.push('|---|---|');
    for (const [kind, ms] of [...cpu].sort((a, b) => b[1] - (before.cpu.get(b[0]) ?? 0) - (a[1] - (before.cpu.get(a[0]) ?? 0)))) {
      const used = ms - (before.cpu.get(kind) ?? 0);
      if (used > 0) out.push(`| ${kind} | ${per(used)} |`);
    }
    out.push('');
    const totals = statements.reduce(
      (sum, row) => ({
        calls: sum.calls + (row.toplevel ? row.calls : 0),
        exec: sum.exec + (row.toplevel ? row.total_exec_time : 0),
        plan: sum.plan + (row.toplevel ? row.total_plan_time : 0),
        wal: sum.wal + (row.toplevel ? row.wal_bytes : 0),
      }),
      { calls: 0, exec: 0, plan: 0, wal: 0 },
    );
    out.push(
      `Top-level statements per run ${per(totals.calls)}, execution ${per(totals.exec)} ms, planning ${per(totals.plan)} ms, their WAL ${per(totals.wal)} bytes`,
    );
    out.push('');
    out.push(
      '| statement | top | calls/run | exec ms/call | plans/run | plan ms/call | rows/call | blks hit/run | dirtied/run | written/run | WAL records/run | FPI/run | WAL bytes/run |',
    );
    out.push('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const row of statements.sort((a, b) => b.total_exec_time + b.total_plan_time - (a.total_exec_time + a.total_plan_time))) {
      out.push(
        `| \`${oneLine(row.query).replace(/\|/g, '\\|')}\` | ${row.toplevel ? 'y' : 'n'} | ${per(row.calls)} | ${fixed(row.total_exec_time / row.calls)} | ${per(row.plans)} | ${row.plans ? fixed(row.total_plan_time / row.plans) : '–'} | ${fixed(row.rows / row.calls, 2)} | ${per(row.shared_blks_hit)} | ${per(row.shared_blks_dirtied)} | ${per(row.shared_blks_written)} | ${per(row.wal_records)} | ${per(row.wal_fpi)} | ${per(row.wal_bytes)} |`,
      );
    }
    out.push('');
    out.push(
      `WAL per run: ${per(walBytes)} bytes by LSN (pg_stat_wal: ${per(wal.wal_records)} records, ${per(wal.wal_fpi)} full-page images, ${per(wal.wal_bytes)} bytes, ${per(wal.wal_write)} writes, ${per(wal.wal_sync)} syncs); checkpoints in the pass: ${checkpoints.checkpoints_timed} timed, ${checkpoints.checkpoints_req} requested, ${checkpoints.buffers_checkpoint} buffers; bgwriter ${checkpoints.buffers_clean}, backends ${checkpoints.buffers_backend} buffers written`,
    );
    out.push('');
    out.push('| table | inserted/run | updated/run | of which HOT | deleted/run | seq scans/run | index scans/run | dead tuples now |');
    out.push('|---|---|---|---|---|---|---|---|');
    for (const row of tables
      .filter((row) => row.n_tup_ins + row.n_tup_upd + row.n_tup_del + row.seq_scan + row.idx_scan > 0)
      .sort((a, b) => b.n_tup_ins + b.n_tup_upd - (a.n_tup_ins + a.n_tup_upd))) {
      out.push(
        `| ${row.relname} | ${per(row.n_tup_ins)} | ${per(row.n_tup_upd)} | ${per(row.n_tup_hot_upd)} | ${per(row.n_tup_del)} | ${per(row.seq_scan)} | ${per(row.idx_scan)} | ${row.n_dead_tup + (before.tables.get(row.relname)?.n_dead_tup ?? 0)} |`,
      );
    }
    out.push('');
    out.push('| index scanned | scans/run |');
    out.push('|---|---|');
    for (const row of indexes.sort((a, b) => b.idx_scan - a.idx_scan)) out.push(`| ${row.name} | ${per(row.idx_scan)} |`);
    out.push('');
    if (functions.length) {
      out.push('| function (triggers) | calls/run | total ms/call | self ms/call |');
      out.push('|---|---|---|---|');
      for (const row of functions)
        out.push(`| ${row.funcname} | ${per(row.calls)} | ${fixed(row.total_time / row.calls)} | ${fixed(row.self_time / row.calls)} |`);
      out.push('');
    }
    if (process.env.BENCH_WALDUMP && process.env.BENCH_PGDATA && databaseUrl) {
      const dump = execFileSync(
        process.env.BENCH_WALDUMP,
        ['--stats=record', '-p', `${process.env.BENCH_PGDATA}/pg_wal`, '-s', before.wal.lsn, '-e', wal.lsn],
        {
          encoding: 'utf8',
        },
      );
      out.push('```');
      out.push(dump.trim());
      out.push('```');
    }
    return out.join('\n');
  } finally {
    await client.end();
    await subscribers.close();
    await service.stop();
  }
}

const SETTINGS = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
  'pg_stat_statements.track_planning=on',
  'track_functions=all',
];
if (PASSES.includes('embedded')) console.log(await census('embedded', null, SETTINGS));
if (PASSES.includes('server')) {
  const database = await freshServerDatabase(process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', 'census');
  if (database) {
    try {
      console.log(await census('server', database.url, SETTINGS));
    } finally {
      await database.drop();
    }
  }
}
process.exit(0);
