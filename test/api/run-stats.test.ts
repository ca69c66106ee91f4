// GET /api/v1/stats/runs, GET /api/v1/stats/webhooks and GraphQL `runStats` / `webhookStats` through
// the public API: runs made by the real AI SDK OpenAI-compatible client against a loopback model (some
// completed, one failed by a refusal), counted by UTC bucket and status, with duration percentiles,
// failure codes and the busiest agents; one agent's and one model's runs; another workspace's runs never
// counted and its agent not found; bad ranges and buckets refused with 400. The runs' creation, start and
// seal times are then set to known instants in the database, so the buckets and the percentiles can be
// checked against figures worked out by hand.
import pg from 'pg';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, restClient, type Rest, type TestApp } from '../helpers/app.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let server: ModelServer;
let other: Rest;
let db: pg.Client;
const agents: Record<string, string> = {};
let otherAgent = '';
let otherToken = '';
const runs: any[] = [];

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

async function setUp(rest: Rest, keys: string[]) {
  const provider = await rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai_compatible', name: 'loopback', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const ids: Record<string, string> = {};
  for (const key of keys) {
    const model = await rest('POST', '/api/v1/models', { body: { key, provider_id: provider.body.id, provider_model: 'loop-model' } });
    expect(model.status, JSON.stringify(model.body)).toBe(201);
    const agent = await rest('POST', '/api/v1/agents', { body: { name: `On ${key}`, config: { model: key } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    ids[key] = agent.body.id;
  }
  return ids;
}

async function run(rest: Rest, agentId: string, fail = false) {
  server.turns.push(fail ? { refuse: { status: 400, body: { error: { message: 'bad request' } } } } : { text: 'Done.' });
  const created = await rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('Hi') } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const done = await settleRun({ ...t, rest }, created.body.id);
  expect(done.status, JSON.stringify(done.failure)).toBe(fail ? 'failed' : 'completed');
  return done;
}

// The instants the runs are moved to: 2026-01-01, hours 10 and 11 (UTC).
const at = (hour: number, minute: number, second = 0) => new Date(Date.UTC(2026, 0, 1, hour, minute, second));
const range = 'from=2026-01-01T10:00:00Z&to=2026-01-01T12:00:00Z';

beforeAll(async () => {
  server = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  Object.assign(agents, await setUp(t.rest, ['alpha', 'beta']));
  // alpha: three completed and one failed; beta: one completed.
  for (let index = 0; index < 3; index++) runs.push(await run(t.rest, agents.alpha!));
  runs.push(await run(t.rest, agents.alpha!, true));
  runs.push(await run(t.rest, agents.beta!));
  // Another workspace whose runs must never be counted in the first's.
  const workspace = await createWorkspace(t.app.deps, { name: 'B' });
  otherToken = workspace.apiKey.token;
  other = restClient(t.url, otherToken);
  otherAgent = (await setUp(other, ['alpha'])).alpha!;
  await run(other, otherAgent);
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  // Known times: durations 1, 2, 3, 4 and 10 seconds; four runs in hour 10, one in hour 11. The ledger's
  // seal times move with them (a model's runs are those whose attempts sealed in the range).
  const times = [
    [at(10, 5), 1],
    [at(10, 15), 2],
    [at(10, 25), 3],
    [at(10, 35), 4],
    [at(11, 5), 10],
  ] as const;
  for (const [index, [created, seconds]] of times.entries()) {
    const sealed = new Date(created.getTime() + 1000 + seconds * 1000);
    await db.query('UPDATE runs SET created_at = $2, started_at = $3, sealed_at = $4 WHERE id = $1', [
      runs[index].id,
      created,
      new Date(created.getTime() + 1000),
      sealed,
    ]);
    await db.query('UPDATE usage_records SET sealed_at = $2 WHERE run_id = $1', [runs[index].id, sealed]);
  }
  // The other workspace's run falls in the same hour.
  await db.query(
    "UPDATE runs SET created_at = $1::timestamptz, started_at = $1::timestamptz, sealed_at = $1::timestamptz + interval '1 hour' WHERE workspace_id <> $2",
    [at(10, 30), t.workspaceId],
  );
  // The runs were moved in time behind the service's back: their hourly roll-ups (which ranges longer
  // than a day read) are rebuilt from them, as the migration's backfill does.
  await db.query('SELECT wsa_rebuild_run_rollups(NULL)');
}, 120_000);

afterAll(async () => {
  await db?.end();
  await t?.stop();
  await server?.close();
});

const stats = async (query: string, rest: Rest = t.rest) => {
  const answer = await rest('GET', `/api/v1/stats/runs?${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

describe('run stats', () => {
  it('counts runs by bucket and status, with duration percentiles, failure codes and the busiest agents', async () => {
    const answer = await stats(`${range}&bucket=hour`);
    expect(answer.bucket).toBe('hour');
    expect(answer.runs).toBe(5);
    expect(answer.statuses).toEqual([
      { status: 'completed', runs: 4 },
      { status: 'failed', runs: 1 },
    ]);
    expect(answer.failure_rate).toBeCloseTo(0.2);
    // Durations 1, 2, 3, 4, 10 s: median 3 s; p95 interpolates between 4 and 10 at 0.8 → 8.8 s.
    expect(answer.duration_p50_ms).toBe(3000);
    expect(answer.duration_p95_ms).toBe(8800);
    expect(answer.buckets).toEqual([
      {
        start: '2026-01-01T10:00:00.000Z',
        runs: 4,
        statuses: [
          { status: 'completed', runs: 3 },
          { status: 'failed', runs: 1 },
        ],
        duration_p50_ms: 2500,
        duration_p95_ms: 3850,
      },
      {
        start: '2026-01-01T11:00:00.000Z',
        runs: 1,
        statuses: [{ status: 'completed', runs: 1 }],
        duration_p50_ms: 10000,
        duration_p95_ms: 10000,
      },
    ]);
    expect(answer.failure_codes).toEqual([{ code: runs[3].failure.code, runs: 1 }]);
    expect(answer.busiest_agents).toEqual([
      { agent_id: agents.alpha, name: 'On alpha', runs: 4, failed: 1 },
      { agent_id: agents.beta, name: 'On beta', runs: 1, failed: 0 },
    ]);
  });

  it('fills every bucket of the range, empty ones too, and picks a bucket for the range when none is given', async () => {
    const minutes = await stats(range);
    expect(minutes.bucket).toBe('minute');
    expect(minutes.buckets).toHaveLength(120);
    expect(minutes.buckets.filter((bucket: any) => bucket.runs > 0).map((bucket: any) => bucket.start)).toEqual([
      '2026-01-01T10:05:00.000Z',
      '2026-01-01T10:15:00.000Z',
      '2026-01-01T10:25:00.000Z',
      '2026-01-01T10:35:00.000Z',
      '2026-01-01T11:05:00.000Z',
    ]);
    const empty = minutes.buckets.find((bucket: any) => bucket.runs === 0);
    expect(empty).toEqual({ start: expect.any(String), runs: 0, statuses: [], duration_p50_ms: null, duration_p95_ms: null });
    const days = await stats('from=2025-12-01T00:00:00Z&to=2026-01-31T00:00:00Z');
    expect(days.bucket).toBe('day');
    expect(days.buckets).toHaveLength(61);
    expect(days.buckets.find((bucket: any) => bucket.start === '2026-01-01T00:00:00.000Z').runs).toBe(5);
  });

  it("reads one agent's runs and one model's runs", async () => {
    const alpha = await stats(`${range}&bucket=hour&agent_id=${agents.alpha}`);
    expect(alpha.runs).toBe(4);
    expect(alpha.duration_p50_ms).toBe(2500);
    expect(alpha.busiest_agents.map((agent: any) => agent.agent_id)).toEqual([agents.alpha]);
    // The failed run made no request that reported usage: the model's runs are the three completed.
    const model = await stats(`${range}&bucket=hour&model=beta`);
    expect(model.runs).toBe(1);
    expect(model.buckets[1].runs).toBe(1);
  });

  it("never counts another workspace's runs, and another workspace's agent or model is not found", async () => {
    const theirs = await stats(`${range}&bucket=hour`, other);
    expect(theirs.runs).toBe(1);
    expect(theirs.busiest_agents.map((agent: any) => agent.agent_id)).toEqual([otherAgent]);
    const agent = await t.rest('GET', `/api/v1/stats/runs?${range}&agent_id=${otherAgent}`);
    expect(agent.status).toBe(404);
    expect(agent.body.error.code).toBe('not_found');
    const model = await other('GET', `/api/v1/stats/runs?${range}&model=beta`);
    expect(model.status).toBe(404);
  });

  it('refuses bad ranges and buckets with 400 invalid_argument, and reads ranges reaching before the epoch or to year 9999', async () => {
    for (const query of [
      'to=2026-01-01T00:00:00Z',
      'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2025-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      `${range}&bucket=week`,
      'from=2025-12-01T00:00:00Z&to=2026-01-01T00:00:00Z&bucket=minute',
      `${range}&agent_id=${agents.alpha}&model=alpha`,
      'from=yesterday&to=2026-01-01T00:00:00Z',
    ]) {
      const answer = await t.rest('GET', `/api/v1/stats/runs?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error.code, query).toBe('invalid_argument');
    }
    expect((await stats('from=1969-12-31T00:00:00Z&to=1970-01-01T01:00:00Z&bucket=hour')).runs).toBe(0);
    expect((await stats('from=9999-12-30T00:00:00Z&to=9999-12-31T23:59:59Z&bucket=hour')).runs).toBe(0);
  });

  it('answers the same through GraphQL', async () => {
    const answer = await t.graphql(
      `query($agent: ID) { runStats(from: "2026-01-01T10:00:00Z", to: "2026-01-01T12:00:00Z", bucket: "hour", agentId: $agent) {
        runs failureRate durationP95Ms buckets { start runs } failureCodes { code runs } } }`,
      { agent: agents.alpha },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.runStats).toMatchObject({ runs: 4, failureRate: 0.25, buckets: [{ runs: 4 }, { runs: 0 }] });
  });
});

describe('runsChanged', () => {
  /** Every run event of a workspace's subscription, as it arrives; `seen` resolves when `predicate` holds for one. */
  function follow(token: string) {
    const client: Client = createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    const events: { id: string; status: string }[] = [];
    const waiters: { predicate: (event: (typeof events)[number]) => boolean; resolve: () => void }[] = [];
    client.subscribe<{ runsChanged: { id: string; status: string } }>(
      { query: 'subscription { runsChanged { id status } }' },
      {
        next: ({ data }) => {
          events.push(data!.runsChanged);
          for (const waiter of waiters.filter((entry) => entry.predicate(data!.runsChanged))) waiter.resolve();
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    const seen = (predicate: (event: (typeof events)[number]) => boolean) =>
      events.some(predicate) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ predicate, resolve }));
    return { client, events, seen };
  }

  it("announces each run of the caller's workspace from its acceptance to its seal, never another workspace's", async () => {
    const mine = follow(t.apiKey);
    const theirs = follow(otherToken);
    try {
      // Each subscription is live once it has heard a run of its own workspace.
      const first = await run(t.rest, agents.beta!);
      await mine.seen((event) => event.id === first.id && event.status === 'completed');
      const elsewhere = await run(other, otherAgent);
      await theirs.seen((event) => event.id === elsewhere.id && event.status === 'completed');
      // The other workspace's run went out while this one's subscription was live; then one more of its own.
      const second = await run(t.rest, agents.beta!);
      await mine.seen((event) => event.id === second.id && event.status === 'completed');
      expect(new Set(mine.events.map((event) => event.id))).toEqual(new Set([first.id, second.id]));
      expect(mine.events.filter((event) => event.id === second.id).map((event) => event.status)).toEqual(
        expect.arrayContaining(['accepted', 'running', 'completed']),
      );
      expect(theirs.events.map((event) => event.id)).not.toContain(first.id);
      expect(theirs.events.map((event) => event.id)).not.toContain(second.id);
    } finally {
      await mine.client.dispose();
      await theirs.client.dispose();
    }
  });
});

describe('webhook stats', () => {
  it("counts the workspace's deliveries by bucket and status, never another workspace's", async () => {
    const receiver = await t.rest('POST', '/api/v1/webhook-subscriptions', {
      body: { url: `${server.url}/hook`, event_kinds: ['run.completed'] },
    });
    expect(receiver.status, JSON.stringify(receiver.body)).toBe(201);
    const subscription = receiver.body.id;
    // Deliveries written as the outbox writes them, at known instants: two succeeded, one failed, one
    // pending whose next attempt is a day away (no worker takes it during the test).
    await db.query(
      `INSERT INTO webhook_events (id, workspace_id, kind, payload, created_at) VALUES ('evt_stats', $1, 'run.completed', '{}', $2)`,
      [t.workspaceId, at(10, 0)],
    );
    const deliveries = [
      ['succeeded', at(10, 1), 100],
      ['succeeded', at(10, 2), 300],
      ['failed', at(11, 1), 500],
      ['pending', at(11, 2), null],
    ] as const;
    for (const [index, [status, created, latency]] of deliveries.entries())
      await db.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, event_kind, status, created_at, last_latency_ms, next_attempt_at)
         VALUES ($1, $2, $3, 'evt_stats', 'run.completed', $4, $5, $6, CASE WHEN $4 = 'pending' THEN now() + interval '1 day' END)`,
        [`whd_stats${index}`, t.workspaceId, subscription, status, created, latency],
      );
    const answer = await t.rest('GET', `/api/v1/stats/webhooks?${range}&bucket=hour`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ succeeded: 2, failed: 1, pending: 1, latency_p50_ms: 300, latency_p95_ms: 480 });
    expect(answer.body.failure_rate).toBeCloseTo(1 / 3);
    expect(answer.body.buckets).toEqual([
      { start: '2026-01-01T10:00:00.000Z', succeeded: 2, failed: 0, pending: 0 },
      { start: '2026-01-01T11:00:00.000Z', succeeded: 0, failed: 1, pending: 1 },
    ]);
    const theirs = await other('GET', `/api/v1/stats/webhooks?${range}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ succeeded: 0, failed: 0, pending: 0, failure_rate: null });
    expect((await t.rest('GET', `/api/v1/stats/webhooks?${range}&bucket=year`)).status).toBe(400);
  });
});
