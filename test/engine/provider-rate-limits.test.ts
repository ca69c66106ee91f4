// A provider refusing for load, through the real AI SDK clients against loopback servers speaking the
// OpenAI-compatible and Anthropic wires: a 429 with `retry-after` is waited out and asked again without
// spending an attempt; a 529 `overloaded_error` without a header backs off; a model that refuses
// every time gives way to the agent's `fallback_models`, which the usage, the ledger and the trace
// name; the wait is shown as a `provider_wait` item while it lasts and a cancel ends it at once.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { addLoopbackModel, startAnthropicServer, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';

let t: TestApp;
let primary: ModelServer;
let backup: ModelServer;
let anthropic: ModelServer;
beforeAll(async () => {
  [primary, backup, anthropic] = await Promise.all([
    startOpenAICompatibleServer(),
    startOpenAICompatibleServer('sk-backup', { usage: { prompt: 100, completion: 50 } }),
    startAnthropicServer(),
  ]);
  // Backoff steps of 1 ms, two retries per model: a refusal without a header costs nothing measurable.
  t = await startTestApp({
    allowPlainHttpEndpoints: ['127.0.0.1'],
    providerRetry: { budgetMs: 120_000, maxWaitMs: 60_000, baseMs: 1, maxRetries: 2 },
  });
  await addLoopbackModel(t, primary, 'primary');
  await addLoopbackModel(t, backup, 'backup');
  await addLoopbackModel(t, anthropic, 'claude', { type: 'anthropic', providerModel: 'claude-loop' });
});
beforeEach(() => {
  for (const server of [primary, backup, anthropic]) {
    server.turns.length = 0;
    server.requests.length = 0;
  }
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([primary, backup, anthropic].map((server) => server?.close()));
});

const rateLimited = (headers: Record<string, string>) => ({
  refuse: { status: 429, headers, body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } } },
});

async function startRun(config: Record<string, unknown>) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'patient', config } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const run = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  return run.body as { id: string };
}

const itemsOf = async (runId: string) => {
  const page = await t.rest('GET', `/api/v1/runs/${runId}/items?limit=100`);
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return page.body.items as any[];
};
const chatRequests = (server: ModelServer) => server.requests.filter((r) => r.method === 'POST');

describe('provider refusals for load', () => {
  it('a 429 is asked again after its retry-after-ms, the wait shown as an item, no attempt spent', async () => {
    primary.turns.push(rateLimited({ 'retry-after-ms': '5' }), { text: 'after the wait' });
    const run = await startRun({ model: 'primary' });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'after the wait', attempts: 1 });
    expect(settled.usage_at_seal.requests).toBe(1);
    expect(chatRequests(primary)).toHaveLength(2);
    const items = await itemsOf(run.id);
    expect(items.map((item) => item.kind)).toEqual(['user_message', 'provider_wait', 'text_message']);
    const wait = items[1];
    expect(wait).toMatchObject({
      state: 'completed',
      content: {
        purpose: 'model_turn',
        model: 'primary',
        reason: 'rate_limited',
        status: 429,
        waits: 1,
        until: null,
        answered_by: 'primary',
        fallbacks: [],
      },
    });
  });

  it("Anthropic's 529 overloaded_error without a header backs off and is asked again", async () => {
    anthropic.turns.push(
      { refuse: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
      { refuse: { status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } } },
      { text: 'no longer overloaded' },
    );
    const run = await startRun({ model: 'claude' });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'no longer overloaded', attempts: 1 });
    expect(chatRequests(anthropic)).toHaveLength(3);
    const wait = (await itemsOf(run.id)).find((item) => item.kind === 'provider_wait');
    expect(wait.content).toMatchObject({ reason: 'overloaded', status: 529, waits: 2, answered_by: 'claude' });
  });

  it('a model refusing every time gives way to the fallback, which the usage, the ledger and the trace name', async () => {
    const before = Date.now();
    for (let n = 0; n < 3; n++) primary.turns.push(rateLimited({ 'retry-after': '0' }));
    backup.turns.push({ text: 'the backup answers' });
    const run = await startRun({ model: 'primary', model_settings: { fallback_models: ['backup'], temperature: 0.2 } });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'the backup answers', attempts: 1 });
    // Two retries, then the fallback: three refusals of the primary, one answer of the backup.
    expect(chatRequests(primary)).toHaveLength(3);
    expect(chatRequests(backup)).toHaveLength(1);
    // The agent's settings apply to the fallback too; the list itself never reaches a provider.
    expect(chatRequests(backup)[0]!.body).toMatchObject({ temperature: 0.2 });
    expect(chatRequests(backup)[0]!.body.fallback_models).toBeUndefined();
    const wait = (await itemsOf(run.id)).find((item) => item.kind === 'provider_wait');
    expect(wait.content).toMatchObject({
      model: 'backup',
      answered_by: 'backup',
      fallbacks: [{ from: 'primary', to: 'backup', status: 429 }],
    });
    expect(settled.usage_at_seal).toMatchObject({ requests: 1, input_tokens: 100, output_tokens: 50 });
    // The run's usage names the model that answered; the refusals before it report no usage.
    const backupUsage = {
      model: 'backup',
      provider_type: 'openai_compatible',
      requests: 1,
      input_tokens: 100,
      output_tokens: 50,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
      cost: { amount: '0.000000', currency: null, complete: false },
    };
    expect(settled.usage_at_seal.by_model).toEqual([backupUsage]);
    const viaGraphql = await t.graphql(`{ run(id: "${run.id}") { usageAtSeal { byModel { model providerType requests inputTokens } } } }`);
    expect(viaGraphql.data.run.usageAtSeal.byModel).toEqual([
      { model: 'backup', providerType: 'openai_compatible', requests: 1, inputTokens: 100 },
    ]);

    const usage = await t.rest('GET', `/api/v1/usage?group_by=model&from=${new Date(before - 60_000).toISOString()}`);
    expect(usage.status).toBe(200);
    const backupRow = usage.body.items.find((row: { key: string }) => row.key === 'backup');
    expect(backupRow).toMatchObject({ requests: 1, input_tokens: 100, output_tokens: 50 });

    const trace = await t.rest('GET', `/api/v1/runs/${run.id}/trace`);
    const chats = (trace.body.spans as { name: string; attributes: Record<string, unknown> }[]).filter((span) =>
      span.name.startsWith('chat '),
    );
    expect(chats.map((span) => span.attributes['wsa.model.key'])).toEqual(['primary', 'primary', 'primary', 'backup']);
  });

  it('a run whose model answered one turn and a fallback the next names both, in model key order', async () => {
    primary.turns.push({ tool: { id: 'h1', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } } });
    for (let n = 0; n < 3; n++) primary.turns.push(rateLimited({ 'retry-after': '0' }));
    backup.turns.push({ text: 'the backup finishes' });
    const run = await startRun({
      model: 'primary',
      model_settings: { fallback_models: ['backup'] },
      plugins: [{ plugin_key: 'http_request', config: { permission: 'allow', methods: ['GET'] } }],
    });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'the backup finishes', attempts: 1 });
    // Each model's row counts its own answered request (the primary's loopback reports 11 in, 7 out).
    expect(settled.usage_at_seal).toMatchObject({ requests: 2, input_tokens: 111, output_tokens: 57 });
    expect(settled.usage_at_seal.by_model).toMatchObject([
      { model: 'backup', provider_type: 'openai_compatible', requests: 1, input_tokens: 100, output_tokens: 50 },
      { model: 'primary', provider_type: 'openai_compatible', requests: 1, input_tokens: 11, output_tokens: 7 },
    ]);
  });

  it('without a fallback, a model refusing every time is a transient error: a new attempt', async () => {
    for (let n = 0; n < 3; n++) primary.turns.push(rateLimited({ 'retry-after': '0' }));
    primary.turns.push({ text: 'second attempt' });
    const run = await startRun({ model: 'primary' });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'second attempt', attempts: 2 });
    const items = await itemsOf(run.id);
    expect(items.find((item) => item.kind === 'provider_wait')).toMatchObject({
      state: 'failed',
      content: { waits: 2, answered_by: null },
    });
    expect(items.some((item) => item.kind === 'error' && item.content.code === 'transient_error')).toBe(true);
  });

  it('shows the wait and its end while it lasts, and a cancel ends it at once', async () => {
    primary.turns.push(rateLimited({ 'retry-after': '50' }));
    const run = await startRun({ model: 'primary' });
    const waiting = await waitFor(
      () => itemsOf(run.id),
      (items) => items.some((item) => item.kind === 'provider_wait' && item.state === 'in_progress'),
      'the provider_wait item',
    );
    const wait = waiting.find((item) => item.kind === 'provider_wait');
    const until = Date.parse(wait.content.until);
    expect(until).toBeGreaterThan(Date.now() + 20_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 50_000);
    const started = Date.now();
    expect((await t.rest('POST', `/api/v1/runs/${run.id}/cancel`)).status).toBe(200);
    const settled = await settleRun(t, run.id);
    expect(settled.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(chatRequests(primary)).toHaveLength(1);
  });

  it("the reviewer's requests wait out refusals too, and fall back to its own fallback_models", async () => {
    anthropic.turns.push(
      { tool: { id: 'h1', name: 'http_request', arguments: { method: 'GET', url: `${t.url}/healthz` } } },
      { text: 'checked' },
    );
    for (let n = 0; n < 3; n++) primary.turns.push(rateLimited({ 'retry-after': '0' }));
    backup.turns.push({ text: JSON.stringify({ risk: 'low', reason: 'a health check' }) });
    const run = await startRun({
      model: 'claude',
      plugins: [{ plugin_key: 'http_request', config: { permission: 'allow', methods: ['GET'] } }],
      reviewer: { model: 'primary', model_settings: { fallback_models: ['backup'] } },
    });
    const settled = await settleRun(t, run.id);
    expect(settled).toMatchObject({ status: 'completed', output: 'checked', attempts: 1 });
    const items = await itemsOf(run.id);
    const wait = items.find((item) => item.kind === 'provider_wait');
    expect(wait).toMatchObject({
      state: 'completed',
      content: { purpose: 'review', answered_by: 'backup', fallbacks: [{ from: 'primary', to: 'backup', status: 429 }] },
    });
    expect(items.find((item) => item.kind === 'review').content).toMatchObject({ risk: 'low', action: 'allow', model: 'backup' });
    // The reviewer's fallback answered for it: the run's usage names it next to the run's own model.
    expect(settled.usage_at_seal.by_model.map((row: { model: string; provider_type: string }) => [row.model, row.provider_type])).toEqual([
      ['backup', 'openai_compatible'],
      ['claude', 'anthropic'],
    ]);
  });

  it('checks fallback_models when the configuration is saved', async () => {
    const create = (settings: unknown) =>
      t.rest('POST', '/api/v1/agents', { body: { name: 'x', config: { model: 'primary', model_settings: settings } } });
    const unknown = await create({ fallback_models: ['backup', 'nowhere'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details.field).toBe('config.model_settings.fallback_models[1]');
    const notList = await create({ fallback_models: 'backup' });
    expect(notList.status).toBe(400);
    expect(notList.body.error.details.field).toBe('config.model_settings.fallback_models');
    expect((await create({ fallback_models: ['backup', 'backup'] })).status).toBe(400);
  });
});
