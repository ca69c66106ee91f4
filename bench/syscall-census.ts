// npm run bench:syscalls: node's system calls per watched run, counted by strace (the
// census in docs/benchmarks.md, "Writes per watched run"). The service is started as `npm run bench`
// starts it (embedded PostgreSQL unless BENCH_DATABASE_URL names a database to use as it is), warmed
// up, then `strace -f -c` is attached to its node process for CENSUS_RUNS sequential watched runs
// (REST create, then a graphql-ws `runItems` subscriber until the run is sealed), and `strace -f -yy`
// logs every read and write (with its socket and the first bytes) for 5 more. On this machine a
// socket write runs its receiver's work inline, so the count of writes per run is what to watch.
//
// Needs strace (`apt-get install -y strace`) and the right to attach to a child (root, or
// kernel.yama.ptrace_scope=0). Writes count.txt, idle.txt (the same wall time with nothing asked) and
// log.txt under CENSUS_OUT (a new temporary directory by default) and prints where.
// Env: CENSUS_RUNS (500), BENCH_WARMUP (200), CENSUS_OUT, BENCH_DATABASE_URL.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rest, Subscribers, addEchoAgent, addEchoModel } from './blackbox/clients.js';
import { startService } from './blackbox/service.js';

const OUT = process.env.CENSUS_OUT ?? mkdtempSync(join(tmpdir(), 'wsa-syscalls-'));
const RUNS = Number(process.env.CENSUS_RUNS ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const service = await startService({ databaseUrl: process.env.BENCH_DATABASE_URL ?? null, env: { RUN_WORKERS: '110' } });
const rest = new Rest(service.url, service.apiKey);
const subscribers = new Subscribers(service.url, service.apiKey, 20);
try {
  await addEchoModel(rest);
  const agentId = await addEchoAgent(rest);
  const watched = async () => {
    const run = await rest.ok('POST', '/api/v1/runs', { agent_id: agentId, input: text('hi') });
    await subscribers.runItems(run.id);
  };
  for (let i = 0; i < WARMUP; i++) await watched();
  const pid = service.processes.nodePid;

  /** strace attached to the service's node process (every thread) while `work` runs. */
  const traced = async (args: string[], work: () => Promise<void>) => {
    const strace = spawn('strace', [...args, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let attached!: () => void;
    const ready = new Promise<void>((resolve) => (attached = resolve));
    let errors = '';
    strace.stderr!.on('data', (chunk) => {
      errors += chunk;
      if (/attached/.test(errors)) attached();
    });
    const exited = new Promise<number | null>((resolve) => strace.on('exit', resolve));
    await Promise.race([ready, exited.then((code) => Promise.reject(new Error(`strace exited (${code}): ${errors}`)))]);
    await work();
    strace.kill('SIGINT');
    await exited;
  };
  let wallMs = 0;
  const runs = (count: number) => async () => {
    const started = performance.now();
    for (let i = 0; i < count; i++) await watched();
    wallMs = performance.now() - started;
  };
  await traced(['-f', '-c', '-o', join(OUT, 'count.txt')], runs(RUNS));
  const runsMs = wallMs;
  await traced(['-f', '-c', '-o', join(OUT, 'idle.txt')], () => pause(runsMs));
  await traced(
    ['-f', '-tt', '-yy', '-s', '300', '-e', 'trace=write,writev,sendto,sendmsg,read,recvfrom,epoll_wait', '-o', join(OUT, 'log.txt')],
    runs(5),
  );
  console.log(JSON.stringify({ runs: RUNS, wallMs: Math.round(runsMs), out: OUT, files: ['count.txt', 'idle.txt', 'log.txt'] }));
} finally {
  await subscribers.close();
  await service.stop();
}
process.exit(0);
