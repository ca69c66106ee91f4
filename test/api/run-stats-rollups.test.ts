// runStats over ranges longer than a day reads the hourly roll-ups (run_hourly_stats) for the range's
// whole hours and `runs` for its partial hours and its runs not yet waiting or sealed. Through the public
// API against the real database:
// - the roll-ups the seals write, by agent and by model, are exactly those rebuilt from the runs and the
//   usage ledger, for runs sealed concurrently and for a waiting run cancelled later (it moves from
//   waiting to cancelled, in the one statement that moves the run; a stale move changes neither);
// - on seeded runs spread over two days, the roll-up path answers the same counts, statuses, failure
//   codes and busiest agents as the raw path (each hour read alone, a one-hour range) and as SQL over
//   `runs`, and duration percentiles within the histogram's documented accuracy; for one agent too;
// - the same with a model filter: the roll-ups by model (run_hourly_model_stats, a run counted under
//   every model its usage ledger names) answer what SQL over `runs` joined to the ledger answers;
// - another workspace's runs are never counted, and its agent and its model are not found;
// - the statements of the roll-up read use indexes (no sequential scan of runs).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, restClient, type Rest, type TestApp } from '../helpers/app.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { readsRollups } from '../../src/features/runs/run-stats-rollups.js';
import { transition } from '../../src/features/runs/run-lifecycle.js';
import { executedPlan, indexesUsed, isPlannableRead, planProblems, recordStatements } from '../helpers/query-plans.js';

let t: TestApp;
let server: ModelServer;
let other: Rest;
let db: pg.Client;
let otherWorkspace = '';
const agents: Record<string, string> = {};
let otherAgent = '';

const CANCELLED = { code: 'cancelled', message: 'the run was cancelled' };
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function setUp(rest: Rest, names: Record<string, Record<string, unknown>>) {
  const provider = await rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai_compatible', name: 'loopback', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const model = await rest('POST', '/api/v1/models', {
    body: { key: 'loop', provider_id: provider.body.id, provider_model: 'loop-model' },
  });
  expect(model.status, JSON.stringify(model.body)).toBe(201);
  const ids: Record<string, string> = {};
  for (const [name, config] of Object.entries(names)) {
    const agent = await rest('POST', '/api/v1/agents', { body: { name, config: { model: 'loop', ...config } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    ids[name] = agent.body.id;
  }
  return ids;
}

const startRun = async (rest: Rest, agentId: string) => {
  const created = await rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('Hi') } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
};

const rollups = async (workspaceId: string) =>
  (
    await db.query(
      `SELECT agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations FROM run_hourly_stats
       WHERE workspace_id = $1 ORDER BY hour, agent_id`,
      [workspaceId],
    )
  ).rows;

const modelRollups = async (workspaceId: string) =>
  (
    await db.query(
      `SELECT model_key, agent_id, hour, waiting, completed, failed, cancelled, failure_codes, durations FROM run_hourly_model_stats
       WHERE workspace_id = $1 ORDER BY model_key, hour, agent_id`,
      [workspaceId],
    )
  ).rows;

/**
 * Gives the seeded runs of `prefix` (all but the accepted ones) usage ledger rows: run i used `models[0]`
 * when i % 3 is 0, `models[1]` when 1, and both when 2 (one in each of two attempts).
 */
async function seedUsage(prefix: string, models: [string, string]) {
  await db.query(
    `INSERT INTO usage_records (run_id, attempt, model_key, workspace_id, agent_id, principal_id, sealed_at, requests,
       input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_picos, currency, complete)
     SELECT r.id, a.attempt, ($2::text[])[a.model], r.workspace_id, r.agent_id, r.principal_id, coalesce(r.sealed_at, r.started_at), 1, 10, 10, 0, 0, 0, NULL, true
     FROM runs r CROSS JOIN LATERAL (SELECT substring(r.id FROM length($1) + 1)::int % 3 AS k) i
     CROSS JOIN LATERAL (VALUES (1, CASE WHEN i.k = 0 THEN 1 ELSE 2 END), (2, CASE WHEN i.k = 2 THEN 1 END)) AS a(attempt, model)
     WHERE r.id LIKE $1 || '%' AND r.status <> 'accepted' AND a.model IS NOT NULL`,
    [prefix, models],
  );
}

/** Seeds `count` runs of the workspace's `agentIds`, one every 61 s from `start`, of every status, with durations from 10 ms to 1,000 s. */
async function seedRuns(workspaceId: string, agentIds: string[], prefix: string, count: number, start: Date) {
  // The runs' other columns are taken from a real run of the workspace (no foreign keys to satisfy).
  await db.query(
    `INSERT INTO runs (id, workspace_id, session_id, thread_id, agent_id, agent_revision_id, principal_id, status, created_at, started_at, sealed_at, failure)
     SELECT $3 || i, t.workspace_id, t.session_id, t.thread_id, ($2::text[])[1 + i % cardinality($2::text[])], t.agent_revision_id, t.principal_id,
       s.status, $4::timestamptz + make_interval(secs => i * 61),
       CASE WHEN s.status = 'accepted' THEN NULL ELSE $4::timestamptz + make_interval(secs => i * 61 + 1) END,
       CASE WHEN s.status IN ('accepted', 'running') THEN NULL
         ELSE $4::timestamptz + make_interval(secs => i * 61 + 1) + make_interval(secs => 0.01 * 10 ^ ((i * 7 % 50) / 10.0)) END,
       CASE WHEN s.status = 'failed' THEN jsonb_build_object('code', (ARRAY['model_error', 'tool_error', 'budget_exceeded'])[1 + i % 3])
            WHEN s.status = 'cancelled' THEN '{"code": "cancelled"}'::jsonb END
     FROM generate_series(1, $5::int) AS i
     CROSS JOIN LATERAL (SELECT CASE WHEN i % 97 = 0 THEN 'running' WHEN i % 89 = 0 THEN 'accepted'
       ELSE (ARRAY['completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'failed', 'cancelled', 'waiting', 'completed'])[1 + i % 10] END AS status) s
     CROSS JOIN (SELECT * FROM runs WHERE workspace_id = $1 ORDER BY id LIMIT 1) t`,
    [workspaceId, agentIds, prefix, start, count],
  );
}

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], runWorkers: 4 });
  Object.assign(agents, await setUp(t.rest, { alpha: {}, beta: {}, asker: { client_tools: [{ name: 'lookup' }] } }));
  const workspace = await createWorkspace(t.app.deps, { name: 'B' });
  other = restClient(t.url, workspace.apiKey.token);
  otherAgent = (await setUp(other, { theirs: {} })).theirs!;
  server.turns.push({ text: 'Done.' });
  await settleRun({ ...t, rest: other }, await startRun(other, otherAgent));
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  otherWorkspace = (await db.query('SELECT workspace_id FROM agents WHERE id = $1', [otherAgent])).rows[0].workspace_id;
}, 120_000);

afterAll(async () => {
  await db?.end();
  await t?.stop();
  await server?.close();
});

describe('roll-ups written by the seal', () => {
  it('counts runs sealed concurrently exactly once each, as a rebuild from the runs does', async () => {
    const runs = 12;
    for (let index = 0; index < runs; index++)
      server.turns.push(index % 4 === 0 ? { refuse: { status: 400, body: { error: { message: 'no' } } } } : { text: 'Done.' });
    const ids = await Promise.all(Array.from({ length: runs }, (_, index) => startRun(t.rest, index % 2 ? agents.alpha! : agents.beta!)));
    const settled = await Promise.all(ids.map((id) => settleRun(t, id)));
    expect(settled.filter((run) => run.status === 'failed')).toHaveLength(3);
    const written = await rollups(t.workspaceId);
    const counted = written.reduce((sum, row) => sum + row.completed + row.failed, 0);
    expect(counted).toBe(runs);
    // The completed runs used the agents' model (the ledger has their rows); the refused ones record no usage.
    const byModel = await modelRollups(t.workspaceId);
    expect(byModel.filter((row) => row.model_key === 'loop').reduce((sum, row) => sum + row.completed, 0)).toBe(runs - 3);
    const ledger = await db.query('SELECT count(DISTINCT run_id)::int AS runs FROM usage_records WHERE run_id = ANY($1)', [ids]);
    expect(byModel.reduce((sum, row) => sum + row.completed + row.failed, 0)).toBe(ledger.rows[0].runs);
    await db.query('SELECT wsa_rebuild_run_rollups($1)', [t.workspaceId]);
    expect(await rollups(t.workspaceId)).toEqual(written);
    expect(await modelRollups(t.workspaceId)).toEqual(byModel);
  });

  it('moves a waiting run that is cancelled from waiting to cancelled', async () => {
    server.turns.push({ tool: { id: 'call_1', name: 'lookup', arguments: {} } });
    const waiting = await settleRun(t, await startRun(t.rest, agents.asker!));
    expect(waiting.status).toBe('waiting');
    const before = (await rollups(t.workspaceId)).filter((row) => row.agent_id === agents.asker);
    expect(before).toMatchObject([{ waiting: 1, cancelled: 0 }]);
    const cancelled = await t.rest('POST', `/api/v1/runs/${waiting.id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const written = await rollups(t.workspaceId);
    expect(written.filter((row) => row.agent_id === agents.asker)).toMatchObject([{ waiting: 0, cancelled: 1 }]);
    const byModel = await modelRollups(t.workspaceId);
    expect(byModel.filter((row) => row.agent_id === agents.asker)).toMatchObject([{ model_key: 'loop', waiting: 0, cancelled: 1 }]);
    await db.query('SELECT wsa_rebuild_run_rollups($1)', [t.workspaceId]);
    expect(await rollups(t.workspaceId)).toEqual(written);
    expect(await modelRollups(t.workspaceId)).toEqual(byModel);
    // A range of more than a day around now reads the roll-ups and counts it as cancelled.
    const now = Date.now();
    const stats = await t.rest(
      'GET',
      `/api/v1/stats/runs?from=${new Date(now - 30 * 3_600_000).toISOString()}&to=${new Date(now + 3_600_000).toISOString()}&agent_id=${agents.asker}`,
    );
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ bucket: 'hour', runs: 1, statuses: [{ status: 'cancelled', runs: 1 }] });
  });

  it('moves a run and its roll-up in one statement; a stale move changes neither', async () => {
    server.turns.push({ tool: { id: 'call_2', name: 'lookup', arguments: {} } });
    const waiting = await settleRun(t, await startRun(t.rest, agents.asker!));
    expect(waiting.status).toBe('waiting');
    const appDb = t.app.deps.db;
    const run = await appDb.run.findUniqueOrThrow({ where: { id: waiting.id } });
    const counted = async () => (await rollups(t.workspaceId)).filter((row) => row.agent_id === agents.asker);
    const [before] = await counted();
    // A version someone else has moved past: nothing changes, the run's count stays where it was.
    const stale = await appDb.$transaction((tx) =>
      transition(tx, { ...run, version: run.version - 1 }, 'cancelled', { failure: CANCELLED }),
    );
    expect(stale).toBeNull();
    expect(await counted()).toEqual([before]);
    const operations = t.app.database.operationCount();
    const moved = await appDb.$transaction((tx) => transition(tx, run, 'cancelled', { failure: CANCELLED }));
    expect(t.app.database.operationCount() - operations).toBe(1);
    expect(moved).toMatchObject({ id: run.id, status: 'cancelled', version: run.version + 1, failure: CANCELLED });
    expect(moved!.sealedAt).toBeInstanceOf(Date);
    const [after] = await counted();
    expect({ waiting: after.waiting, cancelled: after.cancelled }).toEqual({
      waiting: before.waiting - 1,
      cancelled: before.cancelled + 1,
    });
    const written = await rollups(t.workspaceId);
    await db.query('SELECT wsa_rebuild_run_rollups($1)', [t.workspaceId]);
    expect(await rollups(t.workspaceId)).toEqual(written);
  });
});

describe('statistics over the roll-ups on seeded runs', () => {
  const start = new Date('2026-02-01T00:00:00Z');
  // 47 h 24 min, neither end on a whole hour: whole hours from the roll-ups, the ends from runs.
  const from = '2026-02-01T03:17:00Z';
  const to = '2026-02-03T02:41:00Z';

  beforeAll(async () => {
    await seedRuns(t.workspaceId, [agents.alpha!, agents.beta!], 'run_seed_a', 3000, start);
    await seedRuns(otherWorkspace, [otherAgent], 'run_seed_b', 500, start);
    // A second model of this workspace, and one only the other workspace has.
    const provider = (await t.rest('GET', '/api/v1/models?limit=10')).body.items[0].provider_id;
    expect(
      (await t.rest('POST', '/api/v1/models', { body: { key: 'spare', provider_id: provider, provider_model: 'spare-model' } })).status,
    ).toBe(201);
    const theirProvider = (await other('GET', '/api/v1/models?limit=10')).body.items[0].provider_id;
    expect(
      (await other('POST', '/api/v1/models', { body: { key: 'theirs', provider_id: theirProvider, provider_model: 'x' } })).status,
    ).toBe(201);
    await seedUsage('run_seed_a', ['spare', 'loop']);
    await seedUsage('run_seed_b', ['theirs', 'loop']);
    await db.query('SELECT wsa_rebuild_run_rollups(NULL)');
    await db.query('ANALYZE runs; ANALYZE run_hourly_stats; ANALYZE run_hourly_model_stats; ANALYZE usage_records');
  });

  const stats = async (query: string, rest: Rest = t.rest) => {
    const answer = await rest('GET', `/api/v1/stats/runs?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  /** Percentiles from the histogram: within a bucket's width (12.2 %) of the exact value, or 1 ms. */
  const expectClose = (estimate: number | null, exact: number | null, what: string) => {
    if (exact === null) return expect(estimate, what).toBeNull();
    expect(estimate, what).not.toBeNull();
    expect(Math.abs(estimate! - exact), `${what}: ${estimate} for ${exact}`).toBeLessThanOrEqual(Math.max(1, 0.1221 * exact));
  };

  /** The exact figures, by SQL over `runs`. */
  const exact = async (workspaceId: string, lower: string, upper: string, agentId?: string, model?: string) => {
    const where = `workspace_id = $1 AND created_at >= $2 AND created_at < $3 ${
      agentId
        ? 'AND agent_id = $4'
        : model
          ? 'AND EXISTS (SELECT 1 FROM usage_records u WHERE u.run_id = runs.id AND u.model_key = $4)'
          : ''
    }`;
    const values = agentId || model ? [workspaceId, lower, upper, agentId ?? model] : [workspaceId, lower, upper];
    const [total] = (
      await db.query(
        `SELECT count(*)::int AS runs, percentile_cont(ARRAY[0.5, 0.95]) WITHIN GROUP (ORDER BY extract(epoch FROM sealed_at - started_at) * 1000) AS p
         FROM runs WHERE ${where}`,
        values,
      )
    ).rows;
    const statuses = (await db.query(`SELECT status, count(*)::int AS runs FROM runs WHERE ${where} GROUP BY 1`, values)).rows;
    const codes = (
      await db.query(
        `SELECT code, runs FROM (SELECT failure->>'code' AS code, count(*)::int AS runs FROM runs WHERE ${where} AND status = 'failed' GROUP BY 1) c
         ORDER BY runs DESC, code COLLATE "C"`,
        values,
      )
    ).rows;
    const busiest = (
      await db.query(
        `SELECT agent_id, count(*)::int AS runs, (count(*) FILTER (WHERE status = 'failed'))::int AS failed FROM runs WHERE ${where}
         GROUP BY 1 ORDER BY runs DESC, agent_id COLLATE "C"`,
        values,
      )
    ).rows;
    return { runs: total.runs, p: total.p as number[] | null, statuses, codes, busiest };
  };

  const byStatus = (statuses: { status: string; runs: number }[]) =>
    Object.fromEntries(statuses.filter((s) => s.runs > 0).map((s) => [s.status, s.runs]));

  for (const [agent, model] of [
    [undefined, undefined],
    ['beta', undefined],
    [undefined, 'loop'],
    [undefined, 'spare'],
  ]) {
    it(`answers what the raw path and SQL over runs answer${agent ? ', for one agent' : model ? `, for one model (${model})` : ''}`, async () => {
      const agentId = agent ? agents[agent] : undefined;
      const filter = agentId ? `&agent_id=${agentId}` : model ? `&model=${model}` : '';
      const rolled = await stats(`from=${from}&to=${to}&bucket=hour${filter}`);
      const sql = await exact(t.workspaceId, from, to, agentId, model);
      expect(rolled.runs).toBe(sql.runs);
      expect(rolled.runs).toBeGreaterThan(agent || model ? 1000 : 2500);
      expect(byStatus(rolled.statuses)).toEqual(byStatus(sql.statuses));
      expect(rolled.failure_codes).toEqual(sql.codes);
      expect(rolled.busiest_agents.map((a: any) => [a.agent_id, a.runs, a.failed])).toEqual(
        sql.busiest.map((a) => [a.agent_id, a.runs, a.failed]),
      );
      expectClose(rolled.duration_p50_ms, sql.p?.[0] ?? null, 'p50');
      expectClose(rolled.duration_p95_ms, sql.p?.[1] ?? null, 'p95');
      // Each hour bucket, read alone (a range of an hour at most: the raw path), answers the same.
      expect(rolled.buckets).toHaveLength(48);
      for (const bucket of rolled.buckets) {
        const lower = new Date(Math.max(Date.parse(bucket.start), Date.parse(from))).toISOString();
        const upper = new Date(Math.min(Date.parse(bucket.start) + 3_600_000, Date.parse(to))).toISOString();
        const raw = await stats(`from=${lower}&to=${upper}&bucket=hour${filter}`);
        expect(bucket.runs, bucket.start).toBe(raw.runs);
        expect(byStatus(bucket.statuses), bucket.start).toEqual(byStatus(raw.statuses));
        expectClose(bucket.duration_p50_ms, raw.duration_p50_ms, `${bucket.start} p50`);
        expectClose(bucket.duration_p95_ms, raw.duration_p95_ms, `${bucket.start} p95`);
      }
    }, 120_000);
  }

  it('reads a day in hour buckets from the roll-ups too, with its partial hours from the runs, exactly counted', async () => {
    // The dashboard's "24 h": longer than two hours in hour buckets, so whole hours come from the roll-ups.
    const dayFrom = '2026-02-01T09:41:00Z';
    const dayTo = '2026-02-02T09:41:00Z';
    expect(readsRollups(new Date(dayFrom), new Date(dayTo), 'hour')).toBe(true);
    expect(readsRollups(new Date(dayFrom), new Date(dayTo), 'minute')).toBe(false);
    expect(readsRollups(new Date(dayFrom), new Date('2026-02-01T11:41:00Z'), 'hour')).toBe(false);
    const rolled = await stats(`from=${dayFrom}&to=${dayTo}&bucket=hour`);
    const sql = await exact(t.workspaceId, dayFrom, dayTo);
    expect(rolled.runs).toBe(sql.runs);
    expect(rolled.runs).toBeGreaterThan(1000);
    expect(byStatus(rolled.statuses)).toEqual(byStatus(sql.statuses));
    expect(rolled.failure_codes).toEqual(sql.codes);
    expectClose(rolled.duration_p50_ms, sql.p?.[0] ?? null, 'p50');
    expectClose(rolled.duration_p95_ms, sql.p?.[1] ?? null, 'p95');
    // The same day in minute buckets stays exact, from the runs.
    const minutes = await stats(`from=${dayFrom}&to=${dayTo}&bucket=minute`);
    expect(minutes.runs).toBe(sql.runs);
  }, 120_000);

  it('answers in day buckets, and the same through GraphQL', async () => {
    const days = await stats('from=2026-01-31T12:00:00Z&to=2026-02-04T00:00:00Z&bucket=day');
    expect(days.bucket).toBe('day');
    const perDay = (
      await db.query(
        `SELECT date_trunc('day', created_at AT TIME ZONE 'UTC') AS day, count(*)::int AS runs FROM runs
         WHERE workspace_id = $1 AND created_at >= '2026-01-31T12:00:00Z' AND created_at < '2026-02-04T00:00:00Z' GROUP BY 1 ORDER BY 1`,
        [t.workspaceId],
      )
    ).rows.map((row) => row.runs);
    expect(days.buckets.map((bucket: any) => bucket.runs).filter((runs: number) => runs > 0)).toEqual(perDay);
    const answer = await t.graphql(
      `query { runStats(from: "2026-01-31T12:00:00Z", to: "2026-02-04T00:00:00Z", bucket: "day") { runs failureRate durationP50Ms buckets { runs } } }`,
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.runStats).toEqual({
      runs: days.runs,
      failureRate: days.failure_rate,
      durationP50Ms: days.duration_p50_ms,
      buckets: days.buckets.map((bucket: any) => ({ runs: bucket.runs })),
    });
  });

  it("never counts another workspace's runs, and another workspace's agent is not found", async () => {
    const theirs = await stats(`from=${from}&to=${to}`, other);
    const sql = await exact(otherWorkspace, from, to);
    expect(theirs.runs).toBe(sql.runs);
    expect(theirs.busiest_agents.map((a: any) => a.agent_id)).toEqual([otherAgent]);
    const mine = await t.rest('GET', `/api/v1/stats/runs?from=${from}&to=${to}&agent_id=${otherAgent}`);
    expect(mine.status).toBe(404);
    expect(mine.body.error.code).toBe('not_found');
    const cross = await other('GET', `/api/v1/stats/runs?from=${from}&to=${to}&agent_id=${agents.alpha}`);
    expect(cross.status).toBe(404);
    // Both workspaces have a model keyed `loop`: each counts its own runs only.
    for (const [rest, workspaceId] of [
      [t.rest, t.workspaceId],
      [other, otherWorkspace],
    ] as const) {
      const loop = await stats(`from=${from}&to=${to}&model=loop`, rest);
      expect(loop.runs).toBe((await exact(workspaceId, from, to, undefined, 'loop')).runs);
    }
    const theirModel = await t.rest('GET', `/api/v1/stats/runs?from=${from}&to=${to}&model=theirs`);
    expect(theirModel.status).toBe(404);
    expect(theirModel.body.error.code).toBe('not_found');
  });

  it('reads through indexes: the roll-ups by workspace and hour, runs by creation time, never a sequential scan of runs', async () => {
    const { statements } = await recordStatements(() => stats(`from=${from}&to=${to}&bucket=hour`));
    const rollupRead = statements.find((statement) => statement.text.includes('run_hourly_stats') && isPlannableRead(statement.text));
    expect(rollupRead).toBeDefined();
    // A few thousand runs: the planner may honestly prefer a sequential scan here; with it off, the
    // indexes must serve the read (at a million runs the planner picks them by itself: read-plans.test.ts).
    const plan = await executedPlan(db, rollupRead!, { enable_seqscan: 'off' });
    // Index names: an index-only scan's node may not name its relation.
    const used = indexesUsed(plan).map((index) => index.split(':')[1]);
    expect(used).toContain('run_hourly_stats_pkey');
    expect(used).toContain('runs_active_created_at_idx');
    expect(used.filter((index) => index === 'runs_workspace_id_created_at_stats_idx')).toHaveLength(2);
    expect(JSON.stringify(plan)).not.toContain('Seq Scan');
    const rows = new Map([['runs', 3600]]);
    expect(planProblems(plan, rows, 0.2)).toEqual([]);
  });

  it("reads a model's whole hours from its roll-ups by index, its other runs through the ledger's key", async () => {
    const { statements } = await recordStatements(() => stats(`from=${from}&to=${to}&bucket=hour&model=spare`));
    const rollupRead = statements.find((statement) => statement.text.includes('run_hourly_model_stats') && isPlannableRead(statement.text));
    expect(rollupRead).toBeDefined();
    const plan = await executedPlan(db, rollupRead!, { enable_seqscan: 'off' });
    const used = indexesUsed(plan).map((index) => index.split(':')[1]);
    expect(used).toContain('run_hourly_model_stats_pkey');
    expect(used).toContain('usage_records_pkey');
    expect(used.filter((index) => index === 'runs_workspace_id_created_at_stats_idx')).toHaveLength(2);
    expect(JSON.stringify(plan)).not.toContain('Seq Scan');
    // No statement of the read goes through the runs of the whole range (the old model path did).
    expect(statements.some((statement) => statement.text.includes('SELECT DISTINCT run_id FROM usage_records'))).toBe(false);
  });
});
