// An agent's `output_spec` reaching the model, through the real AI SDK clients against a loopback
// server that records each request: OpenAI's API gets a one-schema spec as a JSON Schema response
// format (name, description, schema) and a union as JSON mode; an OpenAI-compatible server gets no
// response format. Every model is told the spec's name, description, resources and variants in the
// system prompt, and an answer matching any variant completes the run.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer, type Recorded } from '../helpers/model-servers.js';

let t: TestApp;
let server: ModelServer;
beforeAll(async () => {
  server = await startOpenAICompatibleServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await addLoopbackModel(t, server, 'compatible');
  // The same loopback answers OpenAI's chat completions API.
  const openai = await t.rest('POST', '/api/v1/model-providers', {
    body: { type: 'openai', name: 'loopback openai', config: { base_url: `${server.url}/v1` }, credential: { api_key: server.apiKey } },
  });
  expect(openai.status, JSON.stringify(openai.body)).toBe(201);
  const model = await t.rest('POST', '/api/v1/models', {
    body: { key: 'openai', provider_id: openai.body.id, provider_model: 'loop-model', api: 'chat' },
  });
  expect(model.status, JSON.stringify(model.body)).toBe(201);
});
beforeEach(() => {
  server.turns.length = 0;
  server.requests.length = 0;
});
afterAll(async () => {
  await t?.stop();
  await server?.close();
});

// In the order PostgreSQL's jsonb keeps an object's keys (shorter first), as the configuration comes back.
const report = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } } };
const error = { type: 'object', required: ['error'], properties: { error: { type: 'string' } } };

/** Runs an agent of `model` with `outputSpec` once; the model answers `answer`. */
async function runWith(model: string, outputSpec: Record<string, unknown>, answer: string) {
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'reporter', config: { model, output_spec: outputSpec } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  server.turns.push({ text: answer });
  const run = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'go' }] } },
  });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  const settled = await settleRun(t, run.body.id);
  const requests = server.requests.filter((request) => request.path === '/v1/chat/completions');
  expect(requests).toHaveLength(1);
  return { run: settled, request: requests[0]! };
}

const systemText = (request: Recorded): string =>
  (request.body.messages as { role: string; content: string }[])
    .filter((message) => message.role === 'system')
    .map((message) => message.content)
    .join('\n');

describe('output_spec reaching the model', () => {
  it('OpenAI gets a one-schema spec as a JSON Schema response format with its name and description', async () => {
    const { run, request } = await runWith(
      'openai',
      { name: 'weekly report', description: 'What happened this week.', resources: { template: 'asset:tpl' }, schema: report },
      '{"summary": "quiet"}',
    );
    expect(run).toMatchObject({ status: 'completed', output: { summary: 'quiet' } });
    expect(request.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weekly_report', description: 'What happened this week.', schema: report, strict: false },
    });
    // The resources have no other way to the model than the instructions.
    expect(systemText(request)).toContain('Resources for it: {"template":"asset:tpl"}');
  });

  it('a union of variants is JSON mode at OpenAI, every variant described in the instructions, and any variant completes', async () => {
    const spec = {
      name: 'outcome',
      variants: [
        { name: 'report', description: 'The work was done.', schema: report },
        { name: 'failure', description: 'The work could not be done.', resources: { contact: 'ops' }, schema: error },
      ],
    };
    const { run, request } = await runWith('openai', spec, '{"error": "no access"}');
    expect(run).toMatchObject({ status: 'completed', output: { error: 'no access' } });
    expect(request.body.response_format).toEqual({ type: 'json_object' });
    expect(systemText(request)).toBe(
      [
        'Answer with JSON only.',
        'The answer "outcome"',
        'It must match one of these variants:',
        '- Variant 1 "report": The work was done.',
        `  It must match this JSON Schema: ${JSON.stringify(report)}`,
        '- Variant 2 "failure": The work could not be done.',
        '  Resources for it: {"contact":"ops"}',
        `  It must match this JSON Schema: ${JSON.stringify(error)}`,
      ].join('\n'),
    );
  });

  it('an OpenAI-compatible server gets no response format, only the instructions', async () => {
    const { run, request } = await runWith(
      'compatible',
      { name: 'weekly report', description: 'What happened this week.', schema: report },
      '{"summary": "busy"}',
    );
    expect(run).toMatchObject({ status: 'completed', output: { summary: 'busy' } });
    expect(request.body.response_format).toBeUndefined();
    expect(systemText(request)).toBe(
      [
        'Answer with JSON only.',
        'The answer "weekly report": What happened this week.',
        `It must match this JSON Schema: ${JSON.stringify(report)}`,
      ].join('\n'),
    );
  });
});
