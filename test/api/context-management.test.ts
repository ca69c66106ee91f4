// Context management through the public API: a thread whose history outgrows its model's window
// keeps working. The model is the real AI SDK OpenAI-compatible client against a loopback server that
// refuses prompts over its window as OpenAI does and summarises by the facts it is sent
// (window-model-server.ts). Covered: compaction at the threshold (no request over the window, the
// code word of turn 1 reaching the last turn through the summary, the thread's history keeping every
// message, a compaction item, its requests in the run's usage), tool results larger than the window,
// recovery from a refusal when the configured window is wrong, a fork after compaction, prompt-cache
// figures in usage, and the thresholds' validation. The 200-turn versions are in the slow tier.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { addLoopbackModel } from '../helpers/model-servers.js';
import { startWindowAnthropicServer, startWindowModelServer, type WindowModelServer } from '../helpers/window-model-server.js';
import { answerFrom, CODE_WORD, expectWithinWindow, runTurn, turnText } from '../helpers/long-thread.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
const servers: WindowModelServer[] = [];

async function windowModel(key: string, window: number, refusal?: 'openai' | 'vllm') {
  const server = await startWindowModelServer({ window, answer: answerFrom(), refusal });
  servers.push(server);
  await addLoopbackModel(t, server, key);
  return server;
}

async function agentWith(config: Record<string, unknown>) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Long talker', config } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id as string;
}

const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
const historyOf = async (threadId: string) =>
  (await t.graphql(`{ thread(id: "${threadId}") { messageHistory } }`)).data.thread.messageHistory as any[];

/** `turns` turns on one thread, each completed; then the question about the code word. */
async function longThread(agentId: string, turns: number) {
  let threadId: string | null = null;
  const runs: any[] = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    const run = await runTurn(t, agentId, threadId, turnText(turn));
    expect(run.status, `turn ${turn}: ${JSON.stringify(run.failure)}`).toBe('completed');
    threadId = run.thread_id;
    runs.push(run);
  }
  const last = await runTurn(t, agentId, threadId, 'What is the code word?');
  expect(last.status, JSON.stringify(last.failure)).toBe('completed');
  runs.push(last);
  return { threadId: threadId!, runs, last };
}

beforeAll(async () => {
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
});

afterAll(async () => {
  await t?.stop();
  await Promise.all(servers.map((server) => server.close()));
});

describe('a thread longer than its model window', () => {
  it('compacts at the threshold: every turn completes, no request passes the window, the code word survives, the history keeps everything', async () => {
    const server = await windowModel('window-4k', 4000);
    const agentId = await agentWith({
      model: 'window-4k',
      instructions: 'You are a patient assistant.',
      model_characteristics: { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
    });
    const { threadId, runs, last } = await longThread(agentId, 40);
    expectWithinWindow(server);
    expect(server.summaries).toBeGreaterThan(0);
    // The last turn's prompt carried the code word through the summary (turn 1 itself was not sent).
    const lastPrompt = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(lastPrompt).toContain(CODE_WORD);
    expect(lastPrompt).not.toContain('Turn 1.');
    expect(lastPrompt).toContain('Summary of the earlier conversation');
    expect(last.output).toBe(`The code word is ${CODE_WORD}.`);
    // Instructions are in every request.
    for (const request of server.requests.filter((r) => r.body?.tools === undefined && r.body?.stream))
      expect(request.body.messages[0]).toMatchObject({ role: 'system', content: 'You are a patient assistant.' });
    // The stored history keeps every message: 41 user messages and 41 answers.
    const history = await historyOf(threadId);
    expect(history).toHaveLength(82);
    expect(JSON.stringify(history[0])).toContain(CODE_WORD);

    // A run that compacted: a completed context_compaction item, and the summary's request in its usage.
    let compacted = null;
    for (const run of runs) {
      const item = (await itemsOf(run.id)).find((i) => i.kind === 'context_compaction');
      if (item) {
        compacted = { run, item };
        break;
      }
    }
    expect(compacted).not.toBeNull();
    const { run, item } = compacted!;
    expect(item).toMatchObject({ state: 'completed', content: { reason: 'threshold', model: 'window-4k' } });
    expect(item.content.requests).toBeGreaterThanOrEqual(1);
    expect(item.content.tokens_after).toBeLessThan(item.content.tokens_before);
    expect(item.content.messages_covered).toBeGreaterThan(0);
    expect(item.content.summary).toContain(CODE_WORD);
    const sealed = (await t.rest('GET', `/api/v1/runs/${run.id}`)).body;
    expect(sealed.usage_at_seal.requests).toBe(1 + item.content.requests);
    // …and a compact_context span beneath the attempt's span, with the figures of the item.
    const trace = (await t.rest('GET', `/api/v1/runs/${run.id}/trace`)).body;
    const span = trace.spans.find((candidate: { name: string }) => candidate.name === 'compact_context');
    const attempt = trace.spans.find(
      (candidate: { name: string; run_id: string }) => candidate.name.startsWith('invoke_agent') && candidate.run_id === run.id,
    );
    expect(span).toMatchObject({
      parent_span_id: attempt.span_id,
      status: { code: 'unset' },
      attributes: {
        'wsa.model.purpose': 'compaction',
        'wsa.context.reason': 'threshold',
        'wsa.context.tokens_before': item.content.tokens_before,
        'wsa.context.tokens_after': item.content.tokens_after,
        'wsa.context.messages_covered': item.content.messages_covered,
      },
    });

    // The prompt stays flat: the last ten turns sent no more than the compaction level allows.
    const chat = server.promptTokens.slice(-10);
    expect(Math.max(...chat)).toBeLessThanOrEqual(4000);
    // Prompt caching reported: later requests share their prefix with earlier ones.
    expect(sealed.usage_at_seal.cached_input_tokens).toBeGreaterThanOrEqual(0);
    expect(server.cachedTokens.slice(-10).some((cached) => cached > 0)).toBe(true);
  });

  it('writes the summaries with the model model_settings.compaction_model names', async () => {
    const main = await windowModel('window-main', 4000);
    const summariser = await windowModel('window-summariser', 8000);
    // Only the summariser has a price: the summaries' cost is priced at it, the main model's is not.
    const model = await t.rest('GET', '/api/v1/models/window-summariser');
    const priced = await t.rest('PATCH', '/api/v1/models/window-summariser', {
      headers: { 'if-match': model.headers.get('etag')! },
      body: { pricing: { input_per_mtok: 1, output_per_mtok: 1 } },
    });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const agentId = await agentWith({
      model: 'window-main',
      model_settings: { compaction_model: 'window-summariser' },
      model_characteristics: { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
    });
    const { last, runs } = await longThread(agentId, 12);
    expect(last.output).toBe(`The code word is ${CODE_WORD}.`);
    expect(main.summaries).toBe(0);
    expect(summariser.summaries).toBeGreaterThan(0);
    const items = (await Promise.all(runs.map((run) => itemsOf(run.id)))).flat().filter((item) => item.kind === 'context_compaction');
    expect(items.map((item) => item.content.model)).toEqual(Array(items.length).fill('window-summariser'));
    expectWithinWindow(main);
    // A run that compacted names both models in its usage, each at its own price (or none).
    let compactedRun = null;
    for (const run of runs)
      if (!compactedRun && (await itemsOf(run.id)).some((item) => item.kind === 'context_compaction')) compactedRun = run;
    expect(compactedRun).not.toBeNull();
    const usage = (await t.rest('GET', `/api/v1/runs/${compactedRun!.id}`)).body.usage_at_seal;
    expect(usage.by_model.map((row: { model: string }) => row.model)).toEqual(['window-main', 'window-summariser']);
    const [mainRow, summaryRow] = usage.by_model;
    expect(mainRow.cost).toEqual({ amount: '0.000000', currency: null, complete: false });
    expect(summaryRow.cost).toMatchObject({ currency: 'USD', complete: true });
    expect(Number(summaryRow.cost.amount)).toBeGreaterThan(0);
    // The run's cost is the summaries' (the main model's tokens unpriced), marked incomplete.
    expect(usage.cost).toEqual({ amount: summaryRow.cost.amount, currency: 'USD', complete: false });
  });

  it('cuts and stubs tool results larger than the window', async () => {
    const server = await windowModel('window-tools', 4000);
    const agentId = await agentWith({
      model: 'window-tools',
      client_tools: [{ name: 'fetch_page', parameters_json_schema: { type: 'object', properties: { n: { type: 'integer' } } } }],
      model_characteristics: { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
    });
    let threadId: string | null = null;
    for (let turn = 1; turn <= 8; turn += 1) {
      server.turns.push({ tool: { id: `call_${turn}`, name: 'fetch_page', arguments: { n: turn } } });
      const waiting = await runTurn(t, agentId, threadId, turnText(turn, 400));
      expect(waiting.status, JSON.stringify(waiting.failure)).toBe('waiting');
      threadId = waiting.thread_id;
      // A page of ~6000 tokens: larger than the whole window.
      const page = `Page ${turn}. ${'All work and no play makes a dull page. '.repeat(600)}`;
      const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
        headers: { 'idempotency-key': `page-${turn}` },
        body: { calls: { [`call_${turn}`]: { status: 'returned', value: page } } },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      const done = await settleRun(t, resumed.body.id);
      expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    }
    expectWithinWindow(server);
    const lastPrompt = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(lastPrompt).toContain('characters cut here');
    // The history keeps every page whole.
    const history = await historyOf(threadId!);
    expect(JSON.stringify(history)).toContain('Page 1. All work');
    expect(history.filter((m) => m.role === 'tool')).toHaveLength(8);
  });

  it('recovers from a refusal for length once, without spending retries, when the configured window is wrong', async () => {
    const server = await windowModel('window-small', 3000, 'vllm');
    // The agent believes in a window twice the real one: the provider's refusal is the only signal.
    const agentId = await agentWith({
      model: 'window-small',
      retries: { output: 0, tools: 0 },
      model_characteristics: { context_window_tokens: 6000, compact_threshold: 0.9, proactive_context_management_threshold: 0.9 },
    });
    const { last, runs } = await longThread(agentId, 16);
    expect(server.refusals).toBeGreaterThan(0);
    expect(last.output).toBe(`The code word is ${CODE_WORD}.`);
    const reasons = [];
    for (const run of runs)
      for (const item of await itemsOf(run.id)) if (item.kind === 'context_compaction') reasons.push(item.content.reason);
    expect(reasons).toContain('context_length_exceeded');
  });

  it('forks a compacted thread: the fork starts from the stored summary and keeps the whole history', async () => {
    const server = await windowModel('window-fork', 4000);
    const agentId = await agentWith({
      model: 'window-fork',
      model_characteristics: { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
    });
    const { runs, threadId } = await longThread(agentId, 24);
    const summariesBefore = server.summaries;
    const source = runs.at(-2)!;
    const fork = await t.rest('POST', `/api/v1/runs/${source.id}/fork`, {
      headers: { prefer: 'wait=60', 'idempotency-key': 'fork-compacted' },
      body: { payload: { content: [{ type: 'text', text: 'What is the code word?' }] } },
    });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    const forked = await settleRun(t, fork.body.run.id);
    expect(forked).toMatchObject({ status: 'completed', output: `The code word is ${CODE_WORD}.` });
    expect(forked.thread_id).not.toBe(threadId);
    // The fork reused the origin's summary: no new summary, the code word in its prompt, within the window.
    expect(server.summaries).toBe(summariesBefore);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('Summary of the earlier conversation');
    expectWithinWindow(server);
    expect(await historyOf(forked.thread_id)).toHaveLength(24 * 2 + 2);
  });
});

describe('on Anthropic', () => {
  let anthropic: WindowModelServer;

  beforeAll(async () => {
    anthropic = await startWindowAnthropicServer({ window: 4000, answer: answerFrom() });
    servers.push(anthropic);
    const provider = await t.rest('POST', '/api/v1/model-providers', {
      body: {
        type: 'anthropic',
        name: 'window claude',
        config: { base_url: `${anthropic.url}/v1` },
        credential: { api_key: anthropic.apiKey },
      },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const model = await t.rest('POST', '/api/v1/models', {
      body: { key: 'claude-window', provider_id: provider.body.id, provider_model: 'claude-window' },
    });
    expect(model.status, JSON.stringify(model.body)).toBe(201);
  });

  it('marks the stable prefix for the prompt cache and reports the cached tokens in usage', async () => {
    const agentId = await agentWith({
      model: 'claude-window',
      instructions: 'You are a patient assistant.',
      model_characteristics: { context_window_tokens: 4000, compact_threshold: 0.7, proactive_context_management_threshold: 0.6 },
    });
    const { runs, last } = await longThread(agentId, 16);
    expect(anthropic.refusals).toBe(0);
    expect(last.output).toBe(`The code word is ${CODE_WORD}.`);
    const streamed = anthropic.requests.filter((request) => request.body?.stream);
    // Long enough prompts carry breakpoints: on the system prompt and on the last message.
    const marked = streamed.filter((request) => JSON.stringify(request.body.system).includes('cache_control'));
    // The first, short prompts are not (Anthropic caches nothing under 1024 tokens).
    expect(JSON.stringify(streamed[0]!.body)).not.toContain('cache_control');
    expect(marked.length).toBeGreaterThan(8);
    for (const request of marked) {
      expect(request.body.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
      expect(JSON.stringify(request.body.messages.at(-1))).toContain('"cache_control":{"type":"ephemeral"}');
    }
    const cached = [];
    for (const run of runs) cached.push((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.usage_at_seal.cached_input_tokens);
    expect(cached.filter((tokens) => tokens > 0).length).toBeGreaterThan(5);
  });

  it('recovers from "prompt is too long" and learns the window the refusal states', async () => {
    const refusalsBefore = anthropic.refusals;
    const agentId = await agentWith({
      model: 'claude-window',
      model_characteristics: { context_window_tokens: 9000, compact_threshold: 0.9, proactive_context_management_threshold: 0.9 },
    });
    const { last } = await longThread(agentId, 14);
    expect(anthropic.refusals).toBeGreaterThan(refusalsBefore);
    expect(last.output).toBe(`The code word is ${CODE_WORD}.`);
  });
});

describe('model_characteristics validation', () => {
  it.each([
    [{ compact_threshold: 0 }, 'config.model_characteristics.compact_threshold'],
    [{ compact_threshold: 1.5 }, 'config.model_characteristics.compact_threshold'],
    [{ proactive_context_management_threshold: -0.1 }, 'config.model_characteristics.proactive_context_management_threshold'],
    [
      { compact_threshold: 0.5, proactive_context_management_threshold: 0.7 },
      'config.model_characteristics.proactive_context_management_threshold',
    ],
  ])('refuses %j with 400 naming the field', async (characteristics, field) => {
    const response = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'Bad', config: { model: 'm', model_characteristics: characteristics } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
  });

  it('accepts thresholds of 1 and proactive equal to compact', async () => {
    await agentWith({ model: 'window-4k', model_characteristics: { compact_threshold: 1, proactive_context_management_threshold: 1 } });
  });
});
