// The storage floor: the five statements a run minimally needs — insert the run, claim it (update),
// write its item, seal it (update), read it — with raw `pg` on the service's own database, in scratch
// tables made `LIKE runs` / `LIKE run_items` (same columns, defaults and indexes; no foreign keys, no
// triggers), each statement its own autocommit transaction as the service's are. The tables are
// dropped afterwards. What the service adds on top of this is its own cost.
import pg from 'pg';
import { percentile } from './stats.js';

export interface FloorResult {
  p50: number;
  p95: number;
  runsPerSecond: number;
  concurrency: number;
}

const RUNS = 'bench_floor_runs';
const ITEMS = 'bench_floor_run_items';

async function oneRun(pool: pg.Pool, n: number): Promise<void> {
  const id = `run_floor_${process.pid}_${n}`;
  const client = await pool.connect();
  try {
    await client.query(
      `INSERT INTO ${RUNS} (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, principal_id, input)
       VALUES ($1, 'wsp_floor', 'ses_floor', 'thr_floor', 'agt_floor', 'rev_floor', 'key_floor', $2)`,
      [id, JSON.stringify({ content: [{ type: 'text', text: 'hi' }] })],
    );
    await client.query(
      `UPDATE ${RUNS} SET status = 'running', attempts = attempts + 1, lease_owner = 'floor', lease_expires_at = now() + interval '30 seconds',
         started_at = now(), version = version + 1, updated_at = now() WHERE id = $1 AND status = 'accepted'`,
      [id],
    );
    await client.query(
      `INSERT INTO ${ITEMS} (id, run_id, workspace_id, ordinal, kind, state, content, ended_at)
       VALUES ($1, $2, 'wsp_floor', 2, 'text_message', 'completed', $3, now())`,
      [`itm_${id}`, id, JSON.stringify({ text: 'echo: hi' })],
    );
    await client.query(
      `UPDATE ${RUNS} SET status = 'completed', output = $2, sealed_at = now(), lease_owner = NULL, version = version + 1, updated_at = now()
       WHERE id = $1`,
      [id, JSON.stringify('echo: hi')],
    );
    await client.query(`SELECT * FROM ${RUNS} WHERE id = $1`, [id]);
  } finally {
    client.release();
  }
}

export async function measureFloor(
  databaseUrl: string,
  options: { sequential: number; concurrency: number; runs: number },
): Promise<FloorResult> {
  // The service's own pool size: the floor gets no more connections than the service has.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
  try {
    await pool.query(`DROP TABLE IF EXISTS ${RUNS}, ${ITEMS}`);
    await pool.query(`CREATE TABLE ${RUNS} (LIKE runs INCLUDING DEFAULTS INCLUDING INDEXES)`);
    await pool.query(`CREATE TABLE ${ITEMS} (LIKE run_items INCLUDING DEFAULTS INCLUDING INDEXES)`);
    let n = 0;
    for (let i = 0; i < 50; i++) await oneRun(pool, n++); // warm the connection and the plans
    const times: number[] = [];
    for (let i = 0; i < options.sequential; i++) {
      const started = performance.now();
      await oneRun(pool, n++);
      times.push(performance.now() - started);
    }
    let remaining = options.runs;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (remaining-- > 0) await oneRun(pool, n++);
      }),
    );
    const runsPerSecond = options.runs / ((performance.now() - started) / 1000);
    return { p50: percentile(times, 50), p95: percentile(times, 95), runsPerSecond, concurrency: options.concurrency };
  } finally {
    await pool.query(`DROP TABLE IF EXISTS ${RUNS}, ${ITEMS}`).catch(() => undefined);
    await pool.end();
  }
}
