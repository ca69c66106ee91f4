// npm run bench:socket: what one statement's round trip costs through the embedded PostgreSQL's
// Unix-domain socket and over loopback TCP. Starts the embedded PostgreSQL as the service does (its
// socket in DATA_DIR/socket, TCP on 127.0.0.1), then sends the same prepared one-row statement
// through each, one at a time, in alternating rounds (so the machine's other load falls on both
// alike), and reads the CPU of the client (this process) and of the server backend that answered
// (/proc/<pid>/stat) around each round. Prints a table per round and the medians; the socket's
// figures as ratios to TCP's. The service sends a few such round trips per run (docs/benchmarks.md,
// "The socket to PostgreSQL and the statements of a run").
//
// Env: BENCH_ROUND_TRIPS (per transport per round, 20000), BENCH_ROUNDS (5).
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '../src/lib/logger.js';
import { startEmbeddedPostgres } from '../src/storage/embedded.js';

const ROUND_TRIPS = Number(process.env.BENCH_ROUND_TRIPS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const STATEMENT = { name: 'bench_socket', text: 'SELECT $1::int AS n' };

/** CPU milliseconds (user + system) a process has used, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Round {
  wallUs: number;
  clientUs: number;
  serverUs: number;
}

async function round(url: string): Promise<Round> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backend = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    for (let i = 0; i < 500; i++) await client.query({ ...STATEMENT, values: [i] }); // prepared, warm
    const server = processCpuMs(backend);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < ROUND_TRIPS; i++) await client.query({ ...STATEMENT, values: [i] });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      wallUs: (wallMs * 1000) / ROUND_TRIPS,
      clientUs: (used.user + used.system) / ROUND_TRIPS,
      serverUs: ((processCpuMs(backend) - server) * 1000) / ROUND_TRIPS,
    };
  } finally {
    await client.end();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fixed = (value: number) => value.toFixed(1);

const root = mkdtempSync(join(tmpdir(), 'wsa-bench-socket-'));
const database = await startEmbeddedPostgres(root, createLogger('warn'), {});
try {
  if (database.url === database.tcpUrl) throw new Error(`no socket for ${root} (see the log above): the bench compares the two`);
  const results: { tcp: Round[]; socket: Round[] } = { tcp: [], socket: [] };
  for (let i = 0; i < ROUNDS; i++) {
    // Alternate which goes first, so neither always meets the machine's state the other left.
    const order = i % 2 === 0 ? (['tcp', 'socket'] as const) : (['socket', 'tcp'] as const);
    for (const transport of order) results[transport].push(await round(transport === 'tcp' ? database.tcpUrl : database.url));
  }
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  console.log(
    `\nRound trips of one prepared statement, ${ROUND_TRIPS} per transport per round, ${ROUNDS} rounds; ${new Date().toISOString().slice(0, 10)}, commit ${commit}, ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}; other work on the machine counts against both alike.\n`,
  );
  console.log('| round | transport | wall µs | client CPU µs | backend CPU µs |');
  console.log('|-------|-----------|---------|---------------|----------------|');
  for (let i = 0; i < ROUNDS; i++)
    for (const transport of ['tcp', 'socket'] as const) {
      const r = results[transport][i]!;
      console.log(`| ${i + 1} | ${transport} | ${fixed(r.wallUs)} | ${fixed(r.clientUs)} | ${fixed(r.serverUs)} |`);
    }
  const med = (transport: 'tcp' | 'socket', key: keyof Round) => median(results[transport].map((r) => r[key]));
  console.log('\n| median per round trip | TCP | socket | socket / TCP |');
  console.log('|-----------------------|-----|--------|--------------|');
  for (const [label, key] of [
    ['wall µs', 'wallUs'],
    ['client CPU µs', 'clientUs'],
    ['backend CPU µs', 'serverUs'],
  ] as const)
    console.log(
      `| ${label} | ${fixed(med('tcp', key))} | ${fixed(med('socket', key))} | ${(med('socket', key) / med('tcp', key)).toFixed(2)} |`,
    );
} finally {
  await database.stop();
  rmSync(root, { recursive: true, force: true });
}
