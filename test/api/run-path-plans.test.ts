// The statements of one run (create, claim, the seal, the reads) find their rows through indexes, never
// by reading a whole table: each is recorded at the `pg` driver while a real run goes through the
// service (REST create, the worker on the development model, the seal), then planned again with the
// same text and values under EXPLAIN (never executed twice) with sequential scans priced out — the
// tables are tiny here, and the question is whether an index serves the statement, which matters once
// a table holds the 90 days of inbox entries INBOX_RETENTION_DAYS keeps (docs/benchmarks.md, "What
// PostgreSQL does per run": the seal read the whole inbox_entries table).
//
// Also the roll-ups' counts helper wsa_counts_add (PL/pgSQL since migration
// 20261128110000_counts_add_plpgsql) against the sums it must give.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { recordStatements, type Statement } from '../helpers/query-plans.js';

let t: TestApp;
let client: pg.Client;
let echo: string;

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  await insertModel(t, 'main');
  echo = (await t.rest('POST', '/api/v1/agents', { body: { name: 'echo', config: { model: 'main' } } })).body.id;
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await t?.stop();
});

/** The plan PostgreSQL would use for `statement` with sequential scans priced out (not executed). */
async function planWithoutSeqScans(statement: Statement): Promise<string> {
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query(`EXPLAIN ${statement.text}`, statement.values);
    return rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('ROLLBACK');
  }
}

describe('the statements of a run', () => {
  it('find their rows through indexes (the seal finds the inbox entries it finishes by its run)', async () => {
    const { result: runId, statements } = await recordStatements(async () => {
      const created = await t.rest('POST', '/api/v1/runs', {
        body: { agent_id: echo, input: { content: [{ type: 'text', text: 'hi' }] } },
        headers: { prefer: 'wait=30' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.status).toBe('completed');
      return created.body.id as string;
    });
    // The statements that name the run: the create, the claim (its batch of run ids), the seal, the reads of the run.
    const names = (value: unknown) => value === runId || (Array.isArray(value) && value.includes(runId));
    const ofTheRun = statements.filter((statement) => statement.values.some(names));
    expect(
      ofTheRun.some((statement) => statement.text.includes('AS a(id, attempt_id, trace_id)')),
      'the claim was recorded',
    ).toBe(true);
    const seal = ofTheRun.find((statement) => statement.text.includes('UPDATE inbox_entries SET finished_at'));
    expect(seal, 'the seal was recorded').toBeDefined();
    expect(ofTheRun.length).toBeGreaterThanOrEqual(3);
    for (const statement of ofTheRun) {
      const plan = await planWithoutSeqScans(statement);
      expect(plan, statement.text).not.toMatch(/Seq Scan on (?!pg_)/);
    }
    const sealPlan = await planWithoutSeqScans(seal!);
    expect(sealPlan).toMatch(/Update on inbox_entries[\s\S]*inbox_entries_unfinished_run_idx/);
  });
});

describe('wsa_counts_add', () => {
  const add = async (a: unknown, b: unknown) =>
    (
      await client.query('SELECT wsa_counts_add($1::jsonb, $2::jsonb) AS sum', [
        a === null ? null : JSON.stringify(a),
        b === null ? null : JSON.stringify(b),
      ])
    ).rows[0].sum;

  it('adds two counts objects key by key and leaves out the keys whose sum is 0', async () => {
    expect(await add({ '40': 3, '41': 7 }, { '41': 1, '44': 2 })).toEqual({ '40': 3, '41': 8, '44': 2 });
    expect(await add({ '40': 3, '41': 7 }, { '41': -7 })).toEqual({ '40': 3 });
    expect(await add({ rate_limited: 1 }, { rate_limited: -1 })).toEqual({});
    expect(await add({}, { unknown: 1 })).toEqual({ unknown: 1 });
    expect(await add({ '12': 5 }, {})).toEqual({ '12': 5 });
    expect(await add({}, {})).toEqual({});
    expect(await add(null, { '3': 2 })).toEqual({ '3': 2 });
  });

  it('gives what the set-based sum of the roll-ups gives, over many objects', async () => {
    // The reference: every key's total over both objects, zeros left out (the migration's first definition).
    const reference = async (a: Record<string, number>, b: Record<string, number>) =>
      (
        await client.query(
          `SELECT coalesce(jsonb_object_agg(e.key, e.total), '{}'::jsonb) AS sum FROM (
             SELECT key, sum(value::integer) AS total
             FROM (SELECT key, value FROM jsonb_each_text($1::jsonb) UNION ALL SELECT key, value FROM jsonb_each_text($2::jsonb)) AS each_count
             GROUP BY key HAVING sum(value::integer) <> 0) AS e`,
          [JSON.stringify(a), JSON.stringify(b)],
        )
      ).rows[0].sum;
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    const counts = (keys: number, allowNegative: boolean) => {
      const object: Record<string, number> = {};
      for (let i = 0; i < keys; i++) {
        const value = (next() % 5) - (allowNegative ? 2 : -1);
        if (value !== 0) object[String(next() % 12)] = value;
      }
      return object;
    };
    for (let i = 0; i < 200; i++) {
      const a = counts(next() % 8, false);
      const b = counts(next() % 4, true);
      expect(await add(a, b), JSON.stringify([a, b])).toEqual(await reference(a, b));
    }
  });
});
