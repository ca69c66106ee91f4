// The plans of the hot reads hold at scale: on a generated workspace (ten thousand runs, a hundred
// thousand items, made by the scale seed's own steps and analysed), every statement the service sends
// for each user-facing read of the scale bench (runs with each filter and a deep cursor, run items both
// ways, thread history, inbox, audit trail, memory search and records, a finding analysis, the console's
// overview and lists, the run statistics over an hour to thirty days for the workspace, an agent and a model) executes with index scans that read about a page, never a sequential scan of a
// large table, a scan that reads a fifth of its table or a sort of that much. The statements are recorded
// at the `pg` driver while the read runs through HTTP, then executed again under EXPLAIN ANALYZE with the
// same values. Plans are taken with the planner's ordinary settings; only when that plan reads too much
// is it taken again with `enable_seqscan = off`, to prove an index serves the read (on a table of a few
// thousand rows a sequential scan can be the planner's honest choice; at a million rows it is not).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amountsAt } from '../../bench/scale/amounts.js';
import { Api, discover, reads, type Read } from '../../bench/scale/reads.js';
import { fill } from '../../bench/scale/seed.js';
import { writeTemplates } from '../../bench/scale/templates.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { executedPlan, indexesUsed, isPlannableRead, planProblems, recordStatements, tableRowCounts } from '../helpers/query-plans.js';

let t: TestApp;
/** A second instance without run workers: the reads' statements are the only ones it sends. */
let quiet: TestApp;
let client: pg.Client;
let hotReads: Read[];
let rowCounts: Map<string, number>;

beforeAll(async () => {
  const allow = { allowPlainHttpEndpoints: ['127.0.0.1'], outboundAllowPrivate: ['*'], webhookDeliveryConcurrency: 0 };
  t = await startTestApp({ runWorkers: 2, ...allow });
  const templates = await writeTemplates(new Api(t.url, t.apiKey), 10, 10);
  client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  // 10,000 runs over 1,000 threads, ~100,000 items, 10,000 audit rows, 1,000 traces, 10,000 memory records over
  // ten memories (a memory's word list, which search corrects misspelled words against, is then a tenth
  // of the word table, as one memory's words are a small part of it in a workspace of many memories).
  await fill(client, amountsAt(0.01), templates);
  rowCounts = await tableRowCounts(client);
  quiet = await startTestApp({ runWorkers: 0, ...allow }, t);
  const api = new Api(quiet.url, quiet.apiKey);
  hotReads = reads(api, await discover(api));
}, 240_000);

afterAll(async () => {
  await client?.end();
  await quiet?.stop();
  await t?.stop();
});

describe('plans of the hot reads on a generated workspace', () => {
  it('the generated set is the size the plans are judged against', () => {
    expect(rowCounts.get('runs')).toBeGreaterThanOrEqual(10_000);
    expect(rowCounts.get('run_items')).toBeGreaterThanOrEqual(90_000);
    expect(rowCounts.get('audit_events')).toBeGreaterThanOrEqual(10_000);
    // Tables holding a tenth of the runs reach the size the plan check judges (1,000 rows).
    expect(rowCounts.get('threads')).toBeGreaterThanOrEqual(1000);
    expect(rowCounts.get('memory_records')).toBeGreaterThanOrEqual(10_000);
    expect(hotReads.length).toBeGreaterThan(25);
    // The dashboards' statistics at every range, for the workspace, an agent and a model (the model
    // pages' charts), ranges over a day from the roll-ups by agent or by model.
    for (const scope of ['runs', 'runs of an agent', 'runs of a model'])
      for (const range of ['one hour', 'one day', 'seven days', 'thirty days'])
        expect(hotReads.map((read) => read.name)).toContain(`stats: ${scope}, ${range}`);
  });

  it('every statement of every read uses indexes and reads about a page', async () => {
    const failures: string[] = [];
    let planned = 0;
    const seen = new Set<string>();
    for (const read of hotReads) {
      await read.call(); // the caller's credential and the memory's index are warm from here on
      const { statements } = await recordStatements(read.call);
      const hot = statements.filter(
        (statement) => isPlannableRead(statement.text) && !seen.has(statement.text + JSON.stringify(statement.values)),
      );
      expect(statements.length, read.name).toBeGreaterThan(0);
      for (const statement of hot) {
        seen.add(statement.text + JSON.stringify(statement.values));
        planned++;
        const plan = await executedPlan(client, statement);
        // A read aggregating over a range of days reads that share of a per-hour table (the run
        // roll-ups) by design; a sequential scan of a large table is refused all the same.
        const share = Math.max(0.2, 1.2 * (read.rangeShare ?? 0));
        let problems = planProblems(plan, rowCounts, share);
        // Too much read with the planner's ordinary choice: is there an index that serves the read?
        let forced = problems.length > 0 ? await executedPlan(client, statement, { enable_seqscan: 'off' }) : null;
        // Still too much: on a table this small a bitmap over a broad index (the workspace's) can cost
        // less than probing a narrow one a hundred times (a finding analysis's traces by id); plain
        // index scans then show whether a narrow index serves the read.
        if (forced && planProblems(forced, rowCounts, share).length > 0)
          forced = await executedPlan(client, statement, { enable_seqscan: 'off', enable_bitmapscan: 'off' });
        if (forced && planProblems(forced, rowCounts, share).length === 0) problems = [];
        if (process.env.PLAN_DEBUG)
          console.log(
            read.name,
            statement.text.replace(/\s+/g, ' ').slice(0, 200),
            indexesUsed(plan),
            JSON.stringify(planProblems(plan, rowCounts, 0)).slice(0, 300),
          );
        if (problems.length > 0)
          failures.push(
            `${read.name}: ${statement.text}\n  values ${JSON.stringify(statement.values)}\n  ${JSON.stringify(problems)} indexes ${indexesUsed(plan).join(', ')}` +
              `; with enable_seqscan (and enable_bitmapscan) off: ${JSON.stringify(planProblems(forced!, rowCounts, share))} indexes ${indexesUsed(forced!).join(', ')}`,
          );
      }
    }
    expect(planned).toBeGreaterThan(30);
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 240_000);
});
