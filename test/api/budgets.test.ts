// Budgets through the public API: create, read, list, update and delete over REST and GraphQL;
// validation naming the field; ETags; `admin` only; another workspace's budget answering 404. Then
// enforcement with the real AI SDK OpenAI-compatible client against a loopback server that reports
// 10 input + 5 output tokens per request: a spent `block` budget refuses new runs (start, inbox,
// resume, fork) with 429 `budget_exceeded`; a running run fails before its next model request; 20
// concurrent runs overspend by no more than the requests in flight; thresholds and the limit are
// announced once per period by webhook and in the audit log.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { restClient, startTestApp, type Rest, type TestApp } from '../helpers/app.js';
import { addLoopbackModel, startOpenAICompatibleServer, streamGate, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { nextPeriodStart, periodStart } from '../../src/features/budgets/budget-periods.js';
import { recordStatements } from '../helpers/query-plans.js';
import { configGeneration } from '../../src/services/config-cache.js';

let t: TestApp;
let server: ModelServer;
let other: Rest;
let writer: string;
let agentId: string;
let keyId: string;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const TOKENS_PER_REQUEST = 15;

beforeAll(async () => {
  server = await startOpenAICompatibleServer(undefined, { usage: { prompt: 10, completion: 5 } });
  t = await startTestApp({
    allowPlainHttpEndpoints: ['127.0.0.1'],
    runWorkers: 24,
  });
  await addLoopbackModel(t, server, 'loop');
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'Budgeted', config: { model: 'loop', client_tools: [{ name: 'lookup' }] } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  agentId = agent.body.id;
  other = restClient(t.url, (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token);
  const key = await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' });
  writer = key.token;
  keyId = key.id;
});
afterEach(async () => {
  const list = await t.rest('GET', '/api/v1/budgets?limit=100');
  for (const b of list.body.items) await t.rest('DELETE', `/api/v1/budgets/${b.id}`);
});
afterAll(async () => {
  await t?.stop();
  await server?.close();
});

const body = (extra: Record<string, unknown> = {}) => ({
  name: 'Monthly',
  scope: { kind: 'workspace' },
  period: 'month',
  limit: { cost: '10.00', tokens: 1_000_000 },
  action: 'block',
  notify_at: [0.9, 0.5],
  ...extra,
});

async function create(extra: Record<string, unknown> = {}) {
  const r = await t.rest('POST', '/api/v1/budgets', { body: body(extra) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r;
}

describe('budgets: the resource', () => {
  it('creates, reads, lists, updates and deletes a budget with its spending and period', async () => {
    const created = await create();
    const now = new Date();
    expect(created.body).toMatchObject({
      name: 'Monthly',
      scope: { kind: 'workspace', id: null },
      period: 'month',
      limit: { cost: '10.000000', currency: 'USD', tokens: 1_000_000 },
      action: 'block',
      notify_at: [0.5, 0.9],
      spent: { cost: '0.000000', tokens: 0 },
      in_flight: 0,
      version: 1,
      period_started_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    });
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    const id = created.body.id;
    expect((await t.rest('GET', `/api/v1/budgets/${id}`)).body).toEqual(created.body);

    const second = await create({ name: 'Per agent', scope: { kind: 'agent', id: agentId }, period: 'day', limit: { tokens: 5 } });
    const page1 = await t.rest('GET', '/api/v1/budgets?limit=1');
    expect(page1.body.items.map((b: any) => b.id)).toEqual([second.body.id]);
    const page2 = await t.rest('GET', `/api/v1/budgets?limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body.items.map((b: any) => b.id)).toEqual([id]);
    expect(page2.body.next_cursor).toBeNull();
    expect((await t.rest('GET', '/api/v1/budgets?scope_kind=agent')).body.items.map((b: any) => b.id)).toEqual([second.body.id]);

    // PATCH needs If-Match: 428 without, 412 stale, then the change; a no-op keeps the version.
    expect((await t.rest('PATCH', `/api/v1/budgets/${id}`, { body: { name: 'x' } })).status).toBe(428);
    expect((await t.rest('PATCH', `/api/v1/budgets/${id}`, { headers: { 'if-match': `"${id}:9"` }, body: { name: 'x' } })).status).toBe(
      412,
    );
    const renamed = await t.rest('PATCH', `/api/v1/budgets/${id}`, {
      headers: { 'if-match': `"${id}:1"` },
      body: { name: 'Weekly', period: 'week', limit: { cost: '2.5' }, action: 'notify' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toMatchObject({
      name: 'Weekly',
      period: 'week',
      limit: { cost: '2.500000', tokens: null },
      action: 'notify',
      version: 2,
    });
    expect(renamed.body.period_started_at).toBe(periodStart('week', now).toISOString());
    const same = await t.rest('PATCH', `/api/v1/budgets/${id}`, { headers: { 'if-match': `"${id}:2"` }, body: { name: 'Weekly' } });
    expect(same.body.version).toBe(2);

    // Concurrent writers with one ETag: exactly one wins.
    const racers = await Promise.all(
      ['A', 'B'].map((name) => t.rest('PATCH', `/api/v1/budgets/${id}`, { headers: { 'if-match': `"${id}:2"` }, body: { name } })),
    );
    expect(racers.map((r) => r.status).sort()).toEqual([200, 412]);

    const audit = await t.rest('GET', `/api/v1/audit-events?resource_id=${id}`);
    expect(audit.body.items.map((e: any) => e.action).sort()).toEqual(['create', 'update', 'update']);

    expect((await t.rest('DELETE', `/api/v1/budgets/${id}`)).status).toBe(204);
    expect((await t.rest('GET', `/api/v1/budgets/${id}`)).status).toBe(404);
  });

  it('refuses bad input naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '' }, 'name'],
      [{ scope: { kind: 'team' } }, 'scope.kind'],
      [{ scope: { kind: 'agent' } }, 'scope.id'],
      [{ scope: { kind: 'agent', id: 'agt_01HZZZZZZZZZZZZZZZZZZZZZZZ' } }, 'scope.id'],
      [{ scope: { kind: 'api_key', id: agentId } }, 'scope.id'],
      [{ period: 'year' }, 'period'],
      [{ limit: {} }, 'limit'],
      [{ limit: { cost: '10' + '0'.repeat(20) } }, 'limit.cost'],
      [{ limit: { cost: '1.1234567' } }, 'limit.cost'],
      [{ limit: { cost: '-1.00' } }, 'limit.cost'],
      [{ limit: { cost: '0.00' } }, 'limit.cost'],
      [{ limit: { cost: '1e3' } }, 'limit.cost'],
      [{ limit: { tokens: 0 } }, 'limit.tokens'],
      [{ limit: { tokens: 1.5 } }, 'limit.tokens'],
      [{ limit: { tokens: 10, currency: 'usd' } }, 'limit.currency'],
      [{ action: 'warn' }, 'action'],
      [{ notify_at: [0] }, 'notify_at[0]'],
      [{ notify_at: [0.5, 1.5] }, 'notify_at[1]'],
      [{ notify_at: Array.from({ length: 11 }, (_, i) => (i + 1) / 11) }, 'notify_at'],
    ];
    for (const [extra, field] of cases) {
      const r = await t.rest('POST', '/api/v1/budgets', { body: body(extra) });
      expect([r.status, r.body.error?.details?.field], JSON.stringify({ extra, r: r.body })).toEqual([400, field]);
    }
    // An agent of another workspace is unknown here.
    const foreign = await other('POST', '/api/v1/agents', { body: { name: 'Theirs', config: { model: 'dev' } } });
    const r = await t.rest('POST', '/api/v1/budgets', { body: body({ scope: { kind: 'agent', id: foreign.body.id } }) });
    expect([r.status, r.body.error.details.field]).toEqual([400, 'scope.id']);
    // An unknown id is quoted, and a long one cut short: the message never echoes a request's bulk.
    const long = await t.rest('POST', '/api/v1/budgets', { body: body({ scope: { kind: 'agent', id: 'x'.repeat(6000) } }) });
    expect([long.status, long.body.error.details.field]).toEqual([400, 'scope.id']);
    expect(long.body.error.message).toMatch(/^scope\.id: no agent "x+…" in this workspace$/);
    expect(long.body.error.message.length).toBeLessThan(400);
    // An API key of this workspace is a valid scope.
    await create({ scope: { kind: 'api_key', id: keyId } });
  });

  it('needs admin for every operation, and another workspace sees nothing', async () => {
    const { body: budget } = await create();
    const asWriter = { token: writer };
    expect((await t.rest('GET', '/api/v1/budgets', asWriter)).status).toBe(403);
    expect((await t.rest('GET', `/api/v1/budgets/${budget.id}`, asWriter)).status).toBe(403);
    expect((await t.rest('POST', '/api/v1/budgets', { ...asWriter, body: body() })).body.error.code).toBe('permission_denied');
    expect(
      (await t.rest('PATCH', `/api/v1/budgets/${budget.id}`, { ...asWriter, headers: { 'if-match': '*' }, body: { name: 'x' } })).status,
    ).toBe(403);
    expect((await t.rest('DELETE', `/api/v1/budgets/${budget.id}`, asWriter)).status).toBe(403);

    expect((await other('GET', `/api/v1/budgets/${budget.id}`)).status).toBe(404);
    expect((await other('PATCH', `/api/v1/budgets/${budget.id}`, { headers: { 'if-match': '*' }, body: { name: 'x' } })).status).toBe(404);
    expect((await other('DELETE', `/api/v1/budgets/${budget.id}`)).status).toBe(404);
    expect((await other('GET', '/api/v1/budgets')).body.items).toEqual([]);
    const node = await t.graphql(`query($id: ID!) { node(id: $id) { id ... on Budget { name } } }`, { id: budget.id });
    expect(node.data.node).toEqual({ id: budget.id, name: 'Monthly' });
    const foreignNode = await t.graphql(`query($id: ID!) { node(id: $id) { id } }`, { id: budget.id }, { token: null, headers: {} });
    expect(foreignNode.data?.node ?? null).toBeNull();
  });

  it('is the same resource over GraphQL', async () => {
    const created = await t.graphql(
      `mutation($input: CreateBudgetInput!) { createBudget(input: $input) { budget { id etag scope { kind id } limit { cost tokens } spent { cost tokens } } } }`,
      { input: { name: 'G', scope: { kind: 'agent', id: agentId }, period: 'day', limit: { tokens: 100 }, action: 'notify' } },
    );
    expect(created.errors).toBeUndefined();
    const budget = created.data.createBudget.budget;
    expect(budget).toMatchObject({
      scope: { kind: 'agent', id: agentId },
      limit: { cost: null, tokens: 100 },
      spent: { cost: '0.000000', tokens: 0 },
    });
    const list = await t.graphql(`{ budgets(first: 10) { nodes { id } } }`);
    expect(list.data.budgets.nodes).toEqual([{ id: budget.id }]);
    const deleted = await t.graphql(`mutation($id: ID!) { deleteBudget(id: $id) { deleted } }`, { id: budget.id });
    expect(deleted.data.deleteBudget.deleted).toBe(true);
  });
});

describe('budget periods', () => {
  it('start at UTC midnight, on Mondays and on the first of the month', () => {
    const at = new Date('2026-11-29T23:30:00Z'); // a Sunday
    expect(periodStart('day', at).toISOString()).toBe('2026-11-29T00:00:00.000Z');
    expect(periodStart('week', at).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(periodStart('week', new Date('2026-11-30T00:00:00Z')).toISOString()).toBe('2026-11-30T00:00:00.000Z');
    expect(periodStart('month', at).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(nextPeriodStart('month', new Date('2026-12-01T00:00:00Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });
});

async function startRun(rest: Rest = t.rest) {
  return rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('Hi') } });
}

describe('budgets: enforcement', () => {
  it('a spent block budget refuses new runs, inbox deliveries, resumes and forks with 429 budget_exceeded', async () => {
    // A run that waits for a client tool, to be resumed and forked once the budget is spent.
    server.turns.push({ tool: { id: 'call_1', name: 'lookup', arguments: {} } });
    const waiting = await startRun();
    const parked = await settleRun(t, waiting.body.id);
    expect(parked.status).toBe('waiting');

    const { body: budget } = await create({ limit: { tokens: TOKENS_PER_REQUEST }, notify_at: [] });
    server.turns.push({ text: 'Spends it.' });
    const spender = await settleRun(t, (await startRun()).body.id);
    expect(spender.status, JSON.stringify(spender.failure)).toBe('completed');
    expect((await t.rest('GET', `/api/v1/budgets/${budget.id}`)).body.spent).toEqual({ cost: '0.000000', tokens: TOKENS_PER_REQUEST });

    const refusals = [
      await startRun(),
      await t.rest('POST', `/api/v1/threads/${parked.thread_id}/inbox`, { body: { payload: text('more') } }),
      await t.rest('POST', `/api/v1/runs/${parked.id}/resume`, {
        headers: { 'idempotency-key': 'resume-1' },
        body: { calls: { call_1: { status: 'returned', value: 'x' } } },
      }),
      await t.rest('POST', `/api/v1/runs/${spender.id}/fork`, {
        headers: { 'idempotency-key': 'fork-1' },
        body: { payload: text('again') },
      }),
    ];
    for (const r of refusals)
      expect([r.status, r.body.error?.code, r.body.error?.details?.budget_id], JSON.stringify(r.body)).toEqual([
        429,
        'budget_exceeded',
        budget.id,
      ]);

    // A notify budget never refuses; another agent's budget does not apply.
    await t.rest('PATCH', `/api/v1/budgets/${budget.id}`, { headers: { 'if-match': '*' }, body: { action: 'notify' } });
    server.turns.push({ text: 'Allowed.' });
    const allowed = await startRun();
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(201);
    expect((await settleRun(t, allowed.body.id)).status).toBe('completed');
  });

  it('fails a running run with budget_exceeded before its next model request', async () => {
    // An agent whose answer must be JSON, with one output retry: a first answer that is not JSON
    // makes the run ask the model a second time within the same attempt.
    const strict = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'Strict', config: { model: 'loop', output_spec: { schema: { type: 'object' } }, retries: { output: 1 } } },
    });
    expect(strict.status, JSON.stringify(strict.body)).toBe(201);
    const { body: budget } = await create({
      scope: { kind: 'agent', id: strict.body.id },
      limit: { tokens: TOKENS_PER_REQUEST },
      notify_at: [],
    });
    server.turns.push({ text: 'not JSON' }, { text: '{}' });
    const asked = server.requests.length;
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: strict.body.id, input: text('Hi') } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const failed = await settleRun(t, run.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure.code).toBe('budget_exceeded');
    expect(failed.failure.message).toContain(budget.id);
    // The second request was never sent; its admission was released.
    expect(server.requests.length - asked).toBe(1);
    server.turns.length = 0;
    const after = (await t.rest('GET', `/api/v1/budgets/${budget.id}`)).body;
    expect(after).toMatchObject({ spent: { tokens: TOKENS_PER_REQUEST }, in_flight: 0 });
    // The other agent's runs are not under this budget.
    server.turns.push({ text: 'Fine.' });
    expect((await settleRun(t, (await startRun()).body.id)).status).toBe('completed');
  });

  it("counts the exact cost at the model's price, in the budget's currency only", async () => {
    // 10 input tokens at 100,000 a million and 5 output tokens at 200,000 a million: 2.00 USD a request.
    const provider = await t.rest('POST', '/api/v1/model-providers', {
      body: { type: 'openai_compatible', name: 'priced', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const model = await t.rest('POST', '/api/v1/models', {
      body: {
        key: 'priced',
        provider_id: provider.body.id,
        provider_model: 'loop-model',
        pricing: { input_per_mtok: 100_000, output_per_mtok: 200_000 },
      },
    });
    expect(model.status, JSON.stringify(model.body)).toBe(201);
    const priced = await t.rest('POST', '/api/v1/agents', { body: { name: 'Priced', config: { model: 'priced' } } });
    const usd = (await create({ scope: { kind: 'agent', id: priced.body.id }, limit: { cost: '3.00' }, notify_at: [] })).body;
    const eur = (await create({ scope: { kind: 'agent', id: priced.body.id }, limit: { cost: '3.00', currency: 'EUR' }, notify_at: [] }))
      .body;
    const runPriced = () => t.rest('POST', '/api/v1/runs', { body: { agent_id: priced.body.id, input: text('Hi') } });
    for (let i = 0; i < 2; i += 1) {
      server.turns.push({ text: 'Priced answer.' });
      const done = await settleRun(t, (await runPriced()).body.id);
      expect(done.status).toBe('completed');
      expect(done.usage_at_seal.cost).toEqual({ amount: '2.000000', currency: 'USD', complete: true });
    }
    expect((await t.rest('GET', `/api/v1/budgets/${usd.id}`)).body.spent).toEqual({ cost: '4.000000', tokens: 2 * TOKENS_PER_REQUEST });
    // Requests priced in USD add nothing to a EUR budget's cost (their tokens still count).
    expect((await t.rest('GET', `/api/v1/budgets/${eur.id}`)).body.spent).toEqual({ cost: '0.000000', tokens: 2 * TOKENS_PER_REQUEST });
    const refused = await runPriced();
    expect([refused.status, refused.body.error?.details?.budget_id]).toEqual([429, usd.id]);
  });

  it('costs no statement without budgets, and one per model request (plus one at the end) with them', async () => {
    // Each run's budget statements by their first word; what every run saw is kept for the failure
    // message (the statements' texts and whether the configuration generation moved during the run),
    // so a run that read the budgets unexpectedly says why.
    const seen: string[] = [];
    const budgetStatements = async () => {
      server.turns.push({ text: 'Counted.' });
      const generationBefore = configGeneration();
      const { statements } = await recordStatements(async () => {
        const created = await startRun();
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect((await settleRun(t, created.body.id)).status).toBe('completed');
      });
      const budgetTexts = statements.filter((s) => /budget/i.test(s.text)).map((s) => s.text.trim());
      seen.push(`generation ${generationBefore} → ${configGeneration()}: ${JSON.stringify(budgetTexts.map((text) => text.slice(0, 160)))}`);
      return budgetTexts.map((text) => text.split(/\s+/)[0]);
    };
    // What a run costs once the caches are warm. A configuration change is announced twice to this
    // process — at once, and again when its NOTIFY comes back, which under load can land after the
    // next run's read and empty the cache once more — so runs are made until two in a row agree.
    const settledStatements = async () => {
      seen.length = 0;
      let last = await budgetStatements();
      for (let i = 0; i < 4; i += 1) {
        const next = await budgetStatements();
        if (JSON.stringify(next) === JSON.stringify(last)) return next;
        last = next;
      }
      return last;
    };
    // Warm: the workspace's (empty) list of budgets is read once, then remembered.
    expect(await settledStatements(), seen.join('\n')).toEqual([]);
    // A notify budget: no check at creation; the run's one request is admitted by one statement, and
    // its attempt settled by one more.
    await create({ action: 'notify', limit: { tokens: 1_000_000 } });
    expect(await settledStatements(), seen.join('\n')).toEqual(['INSERT', 'INSERT']);
    // A block budget: one read when the run is created, too.
    await create({ action: 'block', limit: { tokens: 1_000_000 } });
    expect(await settledStatements(), seen.join('\n')).toEqual(['SELECT', 'INSERT', 'INSERT']);
  });

  it('20 concurrent runs overspend by no more than the requests in flight', async () => {
    const limitTokens = 3 * TOKENS_PER_REQUEST;
    const { body: budget } = await create({ limit: { tokens: limitTokens }, notify_at: [] });
    // Every run's first request is held at the model until all 20 are in flight; each answers a
    // client tool call, so runs wait and their resumes ask again.
    const gates = Array.from({ length: 20 }, () => streamGate(0));
    for (const [i, g] of gates.entries()) server.turns.push({ tool: { id: `c${i}`, name: 'lookup', arguments: {} }, gate: g.gate });
    const runs = await Promise.all(gates.map(() => startRun()));
    for (const r of runs) expect(r.status, JSON.stringify(r.body)).toBe(201);
    await Promise.all(gates.map((g) => g.reached));
    const during = await t.rest('GET', `/api/v1/budgets/${budget.id}`);
    expect(during.body.in_flight).toBe(20);
    for (const g of gates) g.open();
    const settled = await Promise.all(runs.map((r) => settleRun(t, r.body.id)));
    expect(settled.map((r) => r.status)).toEqual(Array(20).fill('waiting'));
    const after = await t.rest('GET', `/api/v1/budgets/${budget.id}`);
    // Spent: exactly the 20 admitted requests; the overspend is the 17 admitted beyond the limit, never more than the 20 in flight.
    expect(after.body.spent.tokens).toBe(20 * TOKENS_PER_REQUEST);
    expect(after.body.spent.tokens - limitTokens).toBeLessThanOrEqual(20 * TOKENS_PER_REQUEST);
    expect(after.body.in_flight).toBe(0);
    // Nothing more is admitted: no run or resume reaches the model.
    const asked = server.requests.length;
    const resume = await t.rest('POST', `/api/v1/runs/${settled[0].id}/resume`, {
      headers: { 'idempotency-key': 'resume-20' },
      body: { calls: { [settled[0].pending.calls[0].tool_call_id]: { status: 'returned', value: 'x' } } },
    });
    expect([resume.status, resume.body.error?.code], JSON.stringify(resume.body)).toEqual([429, 'budget_exceeded']);
    expect(server.requests.length).toBe(asked);
  });

  it('announces each threshold and the limit once per period, by webhook and in the audit log', async () => {
    const receiver: WebhookReceiver = await startWebhookReceiver();
    try {
      const sub = await t.rest('POST', '/api/v1/webhook-subscriptions', {
        body: { url: receiver.url, event_kinds: ['budget.threshold_reached', 'budget.exceeded'] },
      });
      expect(sub.status, JSON.stringify(sub.body)).toBe(201);
      // 4 requests of 15 tokens reach 60: 0.25 after the first, 0.5 after the second, the limit after the fourth.
      const { body: budget } = await create({ action: 'notify', limit: { tokens: 4 * TOKENS_PER_REQUEST }, notify_at: [0.25, 0.5] });
      for (let i = 0; i < 5; i += 1) {
        server.turns.push({ text: `answer ${i}` });
        expect((await settleRun(t, (await startRun()).body.id)).status).toBe('completed');
      }
      const ofBudget = (kind: string) => (h: any) => h.json.type === kind && h.json.data.budget.id === budget.id;
      const thresholds = await receiver.waitForCount(ofBudget('budget.threshold_reached'), 2, 'two thresholds');
      const exceeded = await receiver.waitFor(ofBudget('budget.exceeded'), 'the limit');
      expect(thresholds.map((h) => h.json.data.threshold).sort()).toEqual([0.25, 0.5]);
      expect(exceeded.json.data).toMatchObject({
        spent: { tokens: 4 * TOKENS_PER_REQUEST },
        budget: { period: 'month', action: 'notify' },
      });
      // The audit log has each once.
      const audit = await waitFor(
        async () =>
          (await t.rest('GET', `/api/v1/audit-events?resource_id=${budget.id}&limit=100`)).body.items.map((e: any) => e.action).sort(),
        (actions: string[]) => actions.includes('exceeded'),
        'the audit rows',
      );
      expect(audit).toEqual(['create', 'exceeded', 'threshold_reached', 'threshold_reached']);
      // The view shows what the period announced.
      const view = (await t.rest('GET', `/api/v1/budgets/${budget.id}`)).body;
      expect(view.notified).toEqual([0.25, 0.5]);
      expect(Date.parse(view.exceeded_at)).toBeLessThanOrEqual(Date.now());
      expect(budget).toMatchObject({ notified: [], exceeded_at: null });
      // A fifth request changed nothing: still one event each (the deliveries of later requests would have arrived first).
      expect(receiver.received.filter(ofBudget('budget.threshold_reached'))).toHaveLength(2);
      expect(receiver.received.filter(ofBudget('budget.exceeded'))).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
