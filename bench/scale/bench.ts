// npm run bench:scale: every user-facing read, measured from outside at two data sizes. For each scale
// (SCALE_LEVELS, default "0.01,1": 10k runs, then 1M runs) it takes the database `npm run seed:scale`
// made for that scale (seeding it first when it does not exist), starts the service on it as users do
// (a child process running what `npm start` runs, bench/blackbox/service.ts; one per scale, all running)
// and drives them through REST and GraphQL only: every read runs SCALE_WARMUP times unmeasured, then
// SCALE_REPEATS times timed, alternating between the scales. Any
// error answer stops the bench: the seeded data must be served without errors. The table gives p50 / p99
// per scale and the ratio of the larger scale's p50 to the smaller's (target: at most 1.5).
//
// Env: SCALE_LEVELS ("0.01,1"), SCALE_REPEATS (40), SCALE_WARMUP (5), SCALE_DROP (1: drop the seeded
// databases afterwards), SCALE_READS (a regular expression: only the reads whose name matches),
// SCALE_ADMIN_URL (see seed.ts).
import { loadavg } from 'node:os';
import { startService, type Service } from '../blackbox/service.js';
import { percentile } from '../blackbox/stats.js';
import { Api, discover, reads, type Read } from './reads.js';
import { createDatabase, databaseName, databaseUrlOf, dropDatabase, SCALE_API_KEY, SCALE_SERVICE_ENV, seed } from './seed.js';

const LEVELS = (process.env.SCALE_LEVELS ?? '0.01,1').split(',').map(Number);
const REPEATS = Number(process.env.SCALE_REPEATS ?? 40);
const WARMUP = Number(process.env.SCALE_WARMUP ?? 5);
const DROP = process.env.SCALE_DROP === '1';
// Only the reads whose name matches (case-insensitive), to measure again the ones a change touched.
const ONLY = process.env.SCALE_READS ? new RegExp(process.env.SCALE_READS, 'i') : null;

interface Measured {
  p50: number;
  p99: number;
}

interface Level {
  scale: number;
  name: string;
  service: Service;
  reads: Read[];
  times: Map<string, number[]>;
}

/** The seeded database of `scale` (seeded now when it does not exist) with the service started on it. */
async function startLevel(scale: number): Promise<Level> {
  const name = databaseName(scale);
  const url = databaseUrlOf(name);
  if (await createDatabase(name, false)) {
    console.log(`seeding ${name} (scale ${scale})`);
    await seed(url, scale, (line) => console.log(`  ${line}`));
  }
  const service = await startService({ databaseUrl: url, env: SCALE_SERVICE_ENV });
  const api = new Api(service.url, SCALE_API_KEY);
  return { scale, name, service, reads: reads(api, await discover(api)), times: new Map() };
}

async function main() {
  const levels: Level[] = [];
  try {
    for (const scale of LEVELS) levels.push(await startLevel(scale));
    // Each read runs at every scale in turn, repeat after repeat: the machine's load at any moment
    // weighs on every scale alike, so the ratios hold even when the absolute figures drift.
    for (let index = 0; index < levels[0]!.reads.length; index++) {
      const name = levels[0]!.reads[index]!.name;
      if (ONLY && !ONLY.test(name)) continue;
      for (const level of levels) for (let i = 0; i < WARMUP; i++) await level.reads[index]!.call();
      for (let i = 0; i < REPEATS; i++) {
        for (const level of levels) {
          const t0 = performance.now();
          await level.reads[index]!.call();
          const elapsed = performance.now() - t0;
          level.times.set(name, [...(level.times.get(name) ?? []), elapsed]);
        }
      }
      // The load average with each read's figures: the machine may be shared, and the ratios are judged with it.
      const load = loadavg()
        .map((value) => value.toFixed(2))
        .join(' ');
      console.log(
        `${name}: ${levels.map((level) => `${percentile(level.times.get(name)!, 50).toFixed(1)} ms`).join(' / ')} (load ${load})`,
      );
    }
  } finally {
    for (const level of levels) {
      await level.service.stop();
      if (DROP) await dropDatabase(level.name);
    }
  }
  const measured = levels.map((level) => ({
    scale: level.scale,
    results: new Map<string, Measured>(
      [...level.times].map(([name, times]) => [name, { p50: percentile(times, 50), p99: percentile(times, 99) }]),
    ),
  }));
  const [base, top] = [measured[0]!, measured[measured.length - 1]!];
  const header = ['read', ...measured.map((m) => `scale ${m.scale}: p50 / p99 ms`), `p50 ratio ${top.scale} / ${base.scale}`];
  const rows = [...base.results.keys()].map((read) => {
    const ratio = top.results.get(read)!.p50 / base.results.get(read)!.p50;
    return [
      read,
      ...measured.map((m) => `${m.results.get(read)!.p50.toFixed(1)} / ${m.results.get(read)!.p99.toFixed(1)}`),
      `${ratio.toFixed(2)}${ratio > 1.5 ? ' (over 1.5)' : ''}`,
    ];
  });
  console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${row.join(' | ')} |`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
