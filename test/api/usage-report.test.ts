// GET /api/v1/usage and GraphQL `usage` through the public API: the usage ledger written at seal,
// summed by agent, model, API key, day and hour, filtered by agent and model and by the time range;
// its validation; and another workspace's usage never showing. The model is the real AI SDK
// OpenAI-compatible client against a loopback server reporting the same usage for every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, restClient, type Rest, type TestApp } from '../helpers/app.js';
import { startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import pg from 'pg';
import { executedPlan, indexesUsed, isPlannableRead, recordStatements } from '../helpers/query-plans.js';

let t: TestApp;
let server: ModelServer;
let other: Rest;
let secondKey: { id: string; token: string };
const agents: Record<string, string> = {};
const sealed: any[] = [];

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** A provider on the loopback server, priced models on it, and an agent per model, in the workspace `rest` reaches. */
async function setUp(rest: Rest, models: Record<string, Record<string, unknown> | null>) {
  const provider = await rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai_compatible', name: 'loopback', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const ids: Record<string, string> = {};
  for (const [key, pricing] of Object.entries(models)) {
    const model = await rest('POST', '/api/v1/models', {
      body: { key, provider_id: provider.body.id, provider_model: 'loop-model', pricing },
    });
    expect(model.status, JSON.stringify(model.body)).toBe(201);
    const agent = await rest('POST', '/api/v1/agents', { body: { name: `On ${key}`, config: { model: key } } });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    ids[key] = agent.body.id;
  }
  return ids;
}

async function run(rest: Rest, agentId: string) {
  server.turns.push({ text: 'Done.' });
  const created = await rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('Hi') } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const done = await settleRun({ ...t, rest }, created.body.id);
  expect(done.status, JSON.stringify(done.failure)).toBe('completed');
  return done;
}

beforeAll(async () => {
  // Every request: 1,000,000 input tokens (400,000 cached), 200,000 output (50,000 reasoning).
  server = await startOpenAICompatibleServer(undefined, {
    usage: { prompt: 1_000_000, completion: 200_000, cached: 400_000, reasoning: 50_000 },
  });
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  Object.assign(
    agents,
    await setUp(t.rest, {
      big: { input_per_mtok: 3, output_per_mtok: 15, cached_input_per_mtok: 0.3 }, // 4.92 a request
      small: { input_per_mtok: 1, output_per_mtok: 2 }, // 1.40 a request (cached input at the input price)
      free: null, // no price
    }),
  );
  secondKey = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write,run' });
  sealed.push(await run(t.rest, agents.big!), await run(t.rest, agents.small!), await run(t.rest, agents.free!));
  sealed.push(await run(restClient(t.url, secondKey.token), agents.big!));
  // Another workspace, with a model of the same key, whose run must never show in the first's usage.
  const workspace = await createWorkspace(t.app.deps, { name: 'B' });
  other = restClient(t.url, workspace.apiKey.token);
  const otherAgents = await setUp(other, { big: { input_per_mtok: 100, output_per_mtok: 100 } });
  await run(other, otherAgents.big!);
}, 120_000);

afterAll(async () => {
  await t?.stop();
  await server?.close();
});

const usage = async (query: string, rest: Rest = t.rest) => {
  const answer = await rest('GET', `/api/v1/usage?${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.items as any[];
};
const line = (key: string, requests: number, amount: string, currency: string | null = 'USD', complete = true) => ({
  key,
  requests,
  input_tokens: requests * 1_000_000,
  output_tokens: requests * 200_000,
  cached_input_tokens: requests * 400_000,
  reasoning_tokens: requests * 50_000,
  cost: { amount, currency, complete },
});

describe('usage report', () => {
  it('groups by model and by agent, with exact costs, and an unpriced model marked incomplete', async () => {
    expect(await usage('group_by=model')).toEqual([
      line('big', 2, '9.840000'),
      line('free', 1, '0.000000', null, false),
      line('small', 1, '1.400000'),
    ]);
    const byAgent = await usage('group_by=agent');
    expect(byAgent).toHaveLength(3);
    expect(byAgent.find((item) => item.key === agents.big)).toEqual(line(agents.big!, 2, '9.840000'));
  });

  it('groups by the API key that started the run, and by UTC day and hour', async () => {
    const byKey = await usage('group_by=api_key');
    expect(byKey.find((item) => item.key === secondKey.id)).toEqual(line(secondKey.id, 1, '4.920000'));
    // The day's total mixes priced and unpriced requests: the priced amount, marked incomplete.
    const day = (sealed[0].sealed_at as string).slice(0, 10);
    const byDay = await usage('group_by=day');
    const total = byDay.reduce((sum, item) => sum + item.requests, 0);
    expect(total).toBe(4);
    const days = byDay.map((item) => item.key);
    expect(days).toContain(day);
    const byHour = await usage('group_by=hour');
    for (const item of byHour) expect(item.key).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00Z$/);
    expect(byHour.reduce((sum, item) => sum + item.requests, 0)).toBe(4);
    if (byDay.length === 1) expect(byDay[0]).toEqual(line(day, 4, '11.240000', 'USD', false));
  });

  it('filters by agent and by model, and by the time range of the seals', async () => {
    expect(await usage(`group_by=model&agent_id=${agents.small}`)).toEqual([line('small', 1, '1.400000')]);
    expect((await usage('group_by=agent&model=big')).map((item) => item.key)).toEqual([agents.big]);
    const first = new Date(sealed[0].sealed_at).getTime();
    expect(
      await usage(`group_by=model&to=${new Date(first - 1000).toISOString()}&from=${new Date(first - 3_600_000).toISOString()}`),
    ).toEqual([]);
  });

  it('reads a range reaching before the Unix epoch or past year 9999 up to those ends, never a 500', async () => {
    // Year 0 and 1 BC are dates JavaScript takes and PostgreSQL refuses (found by the route fuzz).
    expect(await usage('group_by=model&to=0001-01-01T00:00:00Z')).toEqual([]);
    expect(await usage('group_by=model&from=1969-12-01T00:00:00Z&to=1970-01-02T00:00:00Z')).toEqual([]);
  });

  it('answers the same through GraphQL', async () => {
    const answer = await t.graphql(
      `{ usage(groupBy: "model", model: "big") { items { key requests inputTokens cost { amount currency complete } } } }`,
    );
    expect(answer.data.usage.items).toEqual([
      { key: 'big', requests: 2, inputTokens: 2_000_000, cost: { amount: '9.840000', currency: 'USD', complete: true } },
    ]);
  });

  it('never shows another workspace usage', async () => {
    // The other workspace sees only its own run, at its own price.
    expect(await usage('group_by=model', other)).toEqual([line('big', 1, '120.000000')]);
  });

  it.each([['group_by=day'], ['group_by=hour&agent_id=AGENT'], ['group_by=agent&model=big']])(
    'reads %s through a ledger index led by the workspace',
    async (query) => {
      // The statement as the service sent it, planned again with sequential scans off: on a table this
      // small a sequential scan is the planner's honest choice, so this proves an index serves the read.
      const { statements } = await recordStatements(() => usage(query.replace('AGENT', agents.small!)));
      const read = statements.find((statement) => statement.text.includes('FROM usage_records') && isPlannableRead(statement.text));
      expect(read, 'the usage statement').toBeDefined();
      const client = new pg.Client({ connectionString: t.databaseUrl });
      await client.connect();
      try {
        const plan = await executedPlan(client, read!, { enable_seqscan: 'off' });
        // Any of the three (workspace first) bounds the read to the workspace; the planner picks by the grouping's order.
        const used = indexesUsed(plan);
        expect(used.length, JSON.stringify(used)).toBeGreaterThan(0);
        for (const index of used) expect(index).toMatch(/^usage_records:usage_records_workspace_id_/);
      } finally {
        await client.end();
      }
    },
  );

  it.each([
    ['group_by=week', 'group_by'],
    ['group_by=day&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['group_by=day&from=2025-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['group_by=day&from=yesterday', 'from'],
  ])('refuses %s with invalid_argument naming %s', async (query, field) => {
    const answer = await t.rest('GET', `/api/v1/usage?${query}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
  });
});
