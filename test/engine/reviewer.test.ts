// The reviewer over the public API with scripted models: a second model call rates each allowed
// server call (here the http_request plugin against a loopback server) before it runs; flagged
// calls are denied or wait for approval with the verdict in `presentation`; errors and timeouts
// apply `on_error`; per-tool rules; the verdict is a `review` run item.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
let server: Server;
let targetUrl: string;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url!);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => server.close(resolve));
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
/** The reviewer's scripted model answers every review with these steps. */
const rating = (risk: string, reason = 'because') => ({ script: [[{ text: JSON.stringify({ risk, reason }) }]] });

/** An agent whose model calls http_request on `path` once, then answers "done". */
async function reviewedRun(path: string, reviewer: Record<string, unknown>) {
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'reviewed',
      config: {
        model: 'dev',
        plugins: [{ plugin_key: 'http_request' }],
        reviewer: { model: 'dev', ...reviewer },
        model_settings: {
          script: [
            [{ tool_call: { id: 'rv1', name: 'http_request', arguments: { method: 'DELETE', url: `${targetUrl}${path}` } } }],
            [{ text: 'done' }],
          ],
        },
      },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, input: text('go') } });
  expect(run.status).toBe(201);
  return { run: run.body as { id: string; thread_id: string }, done: await settleRun(t, run.body.id) };
}
const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];

describe('the reviewer', () => {
  it('a call rated below the threshold runs; the verdict is a review item before it', async () => {
    const { run, done } = await reviewedRun('/low', { model_settings: rating('low', 'a harmless read'), risk_threshold: 'medium' });
    expect(done).toMatchObject({ status: 'completed', output: 'done' });
    expect(paths).toContain('/low');
    const items = await itemsOf(run.id);
    expect(items.map((i) => i.kind)).toEqual(['user_message', 'review', 'tool_call', 'tool_result', 'text_message']);
    expect(items[1]).toMatchObject({
      state: 'completed',
      content: {
        tool_call_id: 'rv1',
        tool_name: 'http_request',
        risk: 'low',
        reason: 'a harmless read',
        flagged: false,
        action: 'allow',
        model: 'dev',
      },
    });
  });

  it("counts the reviewer's tokens and cost in the run's usage, under the reviewer's model in the usage ledger", async () => {
    const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'judge provider' } });
    const judge = await t.rest('POST', '/api/v1/models', {
      body: {
        key: 'judge',
        provider_id: provider.body.id,
        provider_model: 'echo',
        pricing: { input_per_mtok: 1000, output_per_mtok: 1000 },
      },
    });
    expect(judge.status, JSON.stringify(judge.body)).toBe(201);
    const { done } = await reviewedRun('/priced', { model: 'judge', model_settings: rating('low') });
    expect(done.status).toBe('completed');
    const [review] = (await t.rest('GET', '/api/v1/usage?group_by=model&model=judge')).body.items;
    expect(review).toMatchObject({ key: 'judge', requests: 1, cost: { currency: 'USD', complete: true } });
    expect(review.input_tokens).toBeGreaterThan(0);
    // 1,000 per million tokens: a thousandth per token, exactly.
    expect(review.cost.amount).toBe(((review.input_tokens + review.output_tokens) / 1000).toFixed(6));
    // The run counts the review's tokens and cost, not its request; its own model ('dev') has no price.
    expect(done.usage_at_seal.requests).toBe(2);
    expect(done.usage_at_seal.input_tokens).toBeGreaterThan(review.input_tokens);
    expect(done.usage_at_seal.cost).toEqual({ amount: review.cost.amount, currency: 'USD', complete: false });
  });

  it('flagged with on_flagged deny: the call is refused and the model is told why', async () => {
    const { run, done } = await reviewedRun('/denied', {
      model_settings: rating('high', 'it deletes data'),
      on_flagged: 'deny',
      risk_threshold: 'high',
    });
    expect(done).toMatchObject({ status: 'completed', output: 'done' });
    expect(paths).not.toContain('/denied');
    const items = await itemsOf(run.id);
    expect(items.find((i) => i.kind === 'review').content).toMatchObject({ risk: 'high', flagged: true, action: 'deny' });
    expect(items.find((i) => i.kind === 'tool_result').content).toMatchObject({ denied: true, denied_by: 'reviewer' });
    const history = JSON.stringify((await t.rest('GET', `/api/v1/threads/${run.thread_id}`)).body.message_history);
    expect(history).toContain('The reviewer refused this tool call (risk high: it deletes data).');
  });

  it('flagged with on_flagged ask: the run waits for approval with the verdict in presentation; approved, it runs unreviewed', async () => {
    const { run, done } = await reviewedRun('/asked', { model_settings: rating('critical', 'irreversible'), on_flagged: 'ask' });
    expect(done).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: {
        approvals: [
          {
            tool_call_id: 'rv1',
            tool_name: 'http_request',
            presentation: {
              kind: 'approval',
              title: 'http_request',
              review: { risk: 'critical', reason: 'irreversible', flagged: true, action: 'ask' },
            },
          },
        ],
      },
    });
    expect(paths).not.toContain('/asked');
    const successor = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
      headers: { 'idempotency-key': 'approve-review' },
      body: { approvals: { rv1: { action: 'approve' } } },
    });
    expect(await settleRun(t, successor.body.id)).toMatchObject({ status: 'completed', output: 'done' });
    expect(paths).toContain('/asked');
    expect((await itemsOf(successor.body.id)).map((i) => i.kind)).toEqual(['tool_call', 'tool_result', 'text_message']);
  });

  it('a rule for the tool overrides the threshold and the action', async () => {
    const { done } = await reviewedRun('/ruled', {
      model_settings: rating('high'),
      on_flagged: 'deny',
      risk_threshold: 'low',
      rules: { http_request: { risk_threshold: 'critical' } },
    });
    expect(done).toMatchObject({ status: 'completed' });
    expect(paths).toContain('/ruled');
  });

  it('an error applies on_error: deny by default, allow when configured; the item records the error', async () => {
    const broken = { script: [[{ error: { message: 'reviewer model down' } }]] };
    const denied = await reviewedRun('/error-denied', { model_settings: broken });
    expect(denied.done).toMatchObject({ status: 'completed' });
    expect(paths).not.toContain('/error-denied');
    const review = (await itemsOf(denied.run.id)).find((i) => i.kind === 'review');
    expect(review).toMatchObject({ state: 'failed', content: { error: expect.stringContaining('reviewer model down'), action: 'deny' } });

    const allowed = await reviewedRun('/error-allowed', { model_settings: broken, on_error: 'allow' });
    expect(allowed.done).toMatchObject({ status: 'completed' });
    expect(paths).toContain('/error-allowed');

    // An answer that is not the verdict's shape is an error too.
    const garbled = await reviewedRun('/garbled', { model_settings: { script: [[{ text: 'looks fine to me' }]] } });
    expect(garbled.done).toMatchObject({ status: 'completed' });
    expect(paths).not.toContain('/garbled');
  });

  it('a timeout applies on_error (here ask: the run waits with the error in presentation)', async () => {
    const { done } = await reviewedRun('/slow', {
      model_settings: { script: [[{ delay_ms: 30_000 }, { text: '{"risk":"none","reason":"late"}' }]] },
      timeout_seconds: 1,
      on_error: 'ask',
    });
    expect(done).toMatchObject({
      status: 'waiting',
      pending: { approvals: [{ presentation: { review: { error: 'the reviewer did not answer within 1 s', action: 'ask' } } }] },
    });
    expect(paths).not.toContain('/slow');
  });
});
