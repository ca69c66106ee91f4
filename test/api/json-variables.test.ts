// v1 clients keep working where inputs became document scalars: an operation that declares its
// document variables `JSON` (as v1's schema typed those inputs) still validates and gets the same
// answer as one that passes the whole input object, over HTTP and over graphql-ws alike; one that
// declares the new scalar validates too; a bad document is still refused with invalid_argument,
// naming the field; and every other variable-position mismatch is still refused as graphql-js does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let ws: Client;
let agentId: string;

interface Answer {
  data?: any;
  errors?: { message: string; extensions?: { code?: string; details?: { field?: string } } }[];
}

beforeAll(async () => {
  t = await startTestApp();
  const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'offline' } });
  await t.rest('POST', '/api/v1/models', { body: { key: 'dev', provider_id: provider.body.id, provider_model: 'echo' } });
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'V1 variables', config: { model: 'dev' } } });
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
  ws = createClient({
    url: t.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${t.apiKey}` },
    retryAttempts: 0,
    lazy: true,
    lazyCloseTimeout: 60_000,
  });
});
afterAll(async () => {
  await ws?.dispose();
  await t.stop();
});

/** One operation over graphql-ws: its single result, or the errors the server refused it with. */
function overSocket(query: string, variables: Record<string, unknown>): Promise<Answer> {
  return new Promise((resolve) => {
    let result: Answer | undefined;
    ws.subscribe(
      { query, variables },
      {
        next: (value) => {
          result = value as Answer;
        },
        error: (error) => resolve({ errors: error as Answer['errors'] }),
        complete: () => resolve(result ?? {}),
      },
    );
  });
}

/** The operation over HTTP and over graphql-ws: both answers. */
async function both(query: string, variables: Record<string, unknown>): Promise<[Answer, Answer]> {
  const http = await t.graphql(query, variables);
  return [{ data: http.data, errors: http.errors }, await overSocket(query, variables)];
}

const ok = (answer: Answer) => {
  expect(answer.errors, JSON.stringify(answer.errors)).toBeUndefined();
  return answer.data;
};

describe('variables declared JSON where a document scalar is expected', () => {
  it('create an agent as the whole input object does', async () => {
    const v1 =
      'mutation($name: String!, $config: JSON!, $labels: JSON) { createAgent(input: {name: $name, config: $config, labels: $labels}) { agent { labels defaultRevision { config { instructions } } } } }';
    const whole =
      'mutation($input: CreateAgentInput!) { createAgent(input: $input) { agent { labels defaultRevision { config { instructions } } } } }';
    const config = { model: 'dev', instructions: 'Be brief.' };
    const labels = { team: 'a' };
    const expected = ok(await t.graphql(whole, { input: { name: 'whole', config, labels } }));
    expect(expected.createAgent.agent).toEqual({ labels, defaultRevision: { config: { instructions: 'Be brief.' } } });
    const overHttp = await t.graphql(v1, { name: 'v1-http', config, labels });
    expect(ok({ data: overHttp.data, errors: overHttp.errors })).toEqual(expected);
    expect(ok(await overSocket(v1, { name: 'v1-ws', config, labels }))).toEqual(expected);
  });

  it('start a run with a message, options and labels, and update its labels', async () => {
    const v1 =
      'mutation($agentId: String!, $input: JSON!, $options: JSON, $labels: JSON) { startRun(input: {agentId: $agentId, input: $input, options: $options, labels: $labels}, wait: 60) { run { id status input optionsDocument labels } } }';
    const update =
      'mutation($id: ID!, $ifMatch: String, $labels: JSON!) { updateRun(id: $id, ifMatch: $ifMatch, input: {labels: $labels}) { run { labels } } }';
    const input = { content: [{ type: 'text', text: 'hi' }] };
    const options = { labels: { a: 'b' }, max_usage: { requests: 3 } };
    for (const answer of await both(v1, { agentId, input, options, labels: { via: 'v1' } })) {
      const { run } = ok(answer).startRun;
      expect(run).toMatchObject({ status: 'completed', input, optionsDocument: options, labels: { via: 'v1' } });
      // The start waited for the run to be sealed, so nothing else changes it now.
      const http = await t.graphql(update, { id: run.id, ifMatch: '*', labels: { via: 'http' } });
      expect(ok({ data: http.data, errors: http.errors }).updateRun.run.labels).toEqual({ via: 'http' });
    }
    const { run } = ok(await overSocket(v1, { agentId, input, options })).startRun;
    expect(run.status).toBe('completed');
    expect(ok(await overSocket(update, { id: run.id, ifMatch: '*', labels: { via: 'ws' } })).updateRun.run.labels).toEqual({
      via: 'ws',
    });
  });

  it('may declare the new scalar instead', async () => {
    const typed = 'mutation($labels: Labels) { createSession(input: {labels: $labels}) { session { labels } } }';
    for (const answer of await both(typed, { labels: { team: 'b' } }))
      expect(ok(answer).createSession.session.labels).toEqual({ team: 'b' });
  });

  it('still check the document: a bad one is invalid_argument naming the field', async () => {
    const v1 = 'mutation($labels: JSON) { createSession(input: {labels: $labels}) { session { id } } }';
    for (const answer of await both(v1, { labels: { team: 1 } })) {
      expect(answer.errors).toHaveLength(1);
      expect(answer.errors![0]).toMatchObject({
        message: 'labels.team must be a string',
        extensions: { code: 'invalid_argument', details: { field: 'labels.team' } },
      });
    }
    const message = 'mutation($agentId: String!, $input: JSON!) { startRun(input: {agentId: $agentId, input: $input}) { run { id } } }';
    for (const answer of await both(message, { agentId, input: { content: [] } })) {
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'invalid_argument',
        details: { field: expect.stringMatching(/^input/) },
      });
    }
  });

  it('keep every other position rule: another scalar, or a nullable JSON where a document is required', async () => {
    const cases: [string, string][] = [
      [
        'mutation($labels: String) { createSession(input: {labels: $labels}) { session { id } } }',
        'Variable "$labels" of type "String" used in position expecting type "Labels".',
      ],
      [
        'mutation($id: ID!, $labels: JSON) { updateRun(id: $id, input: {labels: $labels}) { run { id } } }',
        'Variable "$labels" of type "JSON" used in position expecting type "Labels!".',
      ],
      [
        'mutation($labels: [JSON]) { createSession(input: {labels: $labels}) { session { id } } }',
        'Variable "$labels" of type "[JSON]" used in position expecting type "Labels".',
      ],
    ];
    for (const [query, message] of cases) {
      const http = await t.graphql(query, { id: 'run_x', labels: null });
      expect(http.status).toBe(400);
      expect(http.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([[message, 'invalid_argument']]);
      const socket = await overSocket(query, { id: 'run_x', labels: null });
      expect(socket.errors?.map((error) => error.message)).toEqual([message]);
    }
  });
});
