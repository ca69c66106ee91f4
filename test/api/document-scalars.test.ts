// The document scalars (Labels, MessageContent, RunOptionsDocument, ExtraHeaders, McpHeaders): a value
// is checked while the variables are coerced, by the services' own check, so GraphQL (a variable or a
// literal) and REST refuse a bad document with the same invalid_argument, message and field — the
// field named after the input field the value sat in (`payload.content`, not `input.content`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let agentId: string;
let threadId: string;
let providerId: string;

beforeAll(async () => {
  t = await startTestApp();
  const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'offline' } });
  providerId = provider.body.id;
  await t.rest('POST', '/api/v1/models', { body: { key: 'dev', provider_id: providerId, provider_model: 'echo' } });
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Documents', config: { model: 'dev' } } });
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
  const thread = await t.rest('POST', '/api/v1/threads', { body: {} });
  expect(thread.status).toBe(201);
  threadId = thread.body.id;
});
afterAll(async () => {
  await t.stop();
});

type GraphQLAnswer = Awaited<ReturnType<TestApp['graphql']>>;
type RestAnswer = { status: number; body: any };

/** The GraphQL refusal's code, field and message, for comparing with the REST one. */
function graphqlRefusal(answer: GraphQLAnswer) {
  expect(answer.errors, JSON.stringify(answer.data)).toHaveLength(1);
  const [error] = answer.errors!;
  return { code: error!.extensions?.code, field: error!.extensions?.details?.field, message: error!.message };
}
function restRefusal(answer: RestAnswer) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  return { code: answer.body.error.code, field: answer.body.error.details?.field, message: answer.body.error.message };
}

describe('Labels', () => {
  const createSession = 'mutation($input: SessionInput!) { createSession(input: $input) { session { id labels labelList { key } } } }';

  it('takes and answers a label map', async () => {
    const answer = await t.graphql(createSession, { input: { labels: { team: 'a', 'example.com/tier': 'gold' } } });
    expect(answer.errors).toBeUndefined();
    expect(answer.data.createSession.session.labels).toEqual({ team: 'a', 'example.com/tier': 'gold' });
    expect(answer.data.createSession.session.labelList.map((label: { key: string }) => label.key)).toEqual(['example.com/tier', 'team']);
  });

  it('refuses a bad map as the service does, through a variable, a literal and REST alike', async () => {
    for (const labels of [{ '-team': 'a' }, { team: 1 }, { team: 'a\u0001' }, ['team'], 'team']) {
      const viaVariable = graphqlRefusal(await t.graphql(createSession, { input: { labels } }));
      const viaRest = restRefusal(await t.rest('POST', '/api/v1/sessions', { body: { labels } }));
      expect(viaVariable).toEqual(viaRest);
      expect(viaVariable.code).toBe('invalid_argument');
      expect(viaVariable.field).toMatch(/^labels/);
    }
    const literal = graphqlRefusal(await t.graphql('mutation { createSession(input: {labels: {team: 1}}) { session { id } } }'));
    expect(literal).toEqual({ code: 'invalid_argument', field: 'labels.team', message: 'labels.team must be a string' });
  });

  it('refuses more labels than allowed before anything is written', async () => {
    const before = (await t.rest('GET', '/api/v1/sessions?limit=100')).body.items.length;
    const labels = Object.fromEntries(Array.from({ length: 33 }, (_, index) => [`k${index}`, 'v']));
    const refusal = graphqlRefusal(await t.graphql(createSession, { input: { labels } }));
    expect(refusal).toEqual({ code: 'invalid_argument', field: 'labels', message: 'labels may carry at most 32 labels' });
    expect((await t.rest('GET', '/api/v1/sessions?limit=100')).body.items.length).toBe(before);
  });
});

describe('MessageContent and RunOptionsDocument', () => {
  const startRun = 'mutation($input: StartRunInput!) { startRun(input: $input) { run { id } } }';
  const deliver = 'mutation($threadId: ID!, $input: DeliverInput!) { deliverToInbox(threadId: $threadId, input: $input) { entry { id } } }';

  it('names the field the message sat in: input for a run, payload for an inbox entry', async () => {
    const empty = { content: [] };
    const run = graphqlRefusal(await t.graphql(startRun, { input: { agentId, input: empty } }));
    expect(run).toEqual(restRefusal(await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: empty } })));
    expect(run.field).toBe('input.content');
    const delivered = graphqlRefusal(await t.graphql(deliver, { threadId, input: { agentId, payload: empty } }));
    expect(delivered).toEqual(
      restRefusal(await t.rest('POST', `/api/v1/threads/${threadId}/inbox`, { body: { agent_id: agentId, payload: empty } })),
    );
    expect(delivered.field).toBe('payload.content');
    const part = { content: [{ type: 'text', text: 'hi', extra: 1 }] };
    expect(graphqlRefusal(await t.graphql(deliver, { threadId, input: { agentId, payload: part } })).field).toBe(
      'payload.content[0].extra',
    );
  });

  it('refuses run options as the service does, naming the member at fault', async () => {
    const input = { content: [{ type: 'text', text: 'hi' }] };
    for (const options of [{ max_usage: { requests: 0 } }, { unknown_member: true }, { overrides: { model: 5 } }, []]) {
      const viaGraphQL = graphqlRefusal(await t.graphql(startRun, { input: { agentId, input, options } }));
      const viaRest = restRefusal(await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input, options } }));
      expect(viaGraphQL).toEqual(viaRest);
      expect(viaGraphQL.field).toMatch(/^options/);
    }
  });

  it('takes a valid message and options unchanged', async () => {
    const answer = await t.graphql(
      'mutation($input: StartRunInput!) { startRun(input: $input) { run { input optionsDocument labels } } }',
      {
        input: { agentId, input: { content: [{ type: 'text', text: 'hi' }] }, options: { labels: { a: 'b' }, max_usage: { requests: 3 } } },
      },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data.startRun.run.input).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(answer.data.startRun.run.optionsDocument).toEqual({ labels: { a: 'b' }, max_usage: { requests: 3 } });
    expect(answer.data.startRun.run.labels).toEqual({ a: 'b' });
  });
});

describe('ExtraHeaders and McpHeaders', () => {
  it('refuses a header map as the service does', async () => {
    const extraHeaders = { Host: 'example.com' };
    const viaGraphQL = graphqlRefusal(
      await t.graphql('mutation($input: CreateProviderInput!) { createProvider(kind: "model", input: $input) { provider { id } } }', {
        input: { type: 'development', name: 'headers', extraHeaders },
      }),
    );
    const viaRest = restRefusal(
      await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'headers', extra_headers: extraHeaders } }),
    );
    expect(viaGraphQL).toEqual(viaRest);
    expect(viaGraphQL.field).toBe('extra_headers.Host');

    const mcpHeaders = { con_1: { 'X-Key': 1 } };
    const thread = graphqlRefusal(
      await t.graphql('mutation($input: CreateThreadInput!) { createThread(input: $input) { thread { id } } }', { input: { mcpHeaders } }),
    );
    expect(thread).toEqual(restRefusal(await t.rest('POST', '/api/v1/threads', { body: { mcp_headers: mcpHeaders } })));
    expect(thread.field).toBe('mcp_headers.con_1.X-Key');
  });
});

describe('ModelPricingDocument and EnvironmentMounts', () => {
  it('refuses prices and mounts as the services do', async () => {
    for (const pricing of [{ input_per_mtok: -1 }, { currency: 'usd' }, { per_token: 1 }, 5]) {
      const body = { key: `priced-${Math.random().toString(36).slice(2, 8)}`, provider_id: providerId, provider_model: 'echo', pricing };
      const viaGraphQL = graphqlRefusal(
        await t.graphql('mutation($input: ModelInput!) { createModel(input: $input) { model { key } } }', {
          input: { key: body.key, providerId, providerModel: 'echo', pricing },
        }),
      );
      expect(viaGraphQL).toEqual(restRefusal(await t.rest('POST', '/api/v1/models', { body })));
      expect(viaGraphQL.field).toMatch(/^pricing/);
    }
    const input = { content: [{ type: 'text', text: 'hi' }] };
    for (const mounts of [
      [{ name: 'a' }],
      [{ environment_id: 'env_1', extra: 1 }],
      [{ environment_id: 'env_1' }, { environment_id: 'env_2', name: 'default' }],
      {},
    ]) {
      const viaGraphQL = graphqlRefusal(
        await t.graphql('mutation($input: StartRunInput!) { startRun(input: $input) { run { id } } }', {
          input: { agentId, input, environmentMounts: mounts },
        }),
      );
      const viaRest = restRefusal(await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input, environment_mounts: mounts } }));
      expect(viaGraphQL).toEqual(viaRest);
      expect(viaGraphQL.field).toMatch(/^environment_mounts/);
    }
  });
});
