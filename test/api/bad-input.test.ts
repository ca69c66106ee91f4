// Regression tests for bad input that once answered 500: NUL bytes, malformed percent-encoding,
// undecodable Content-Encoding bodies, lone surrogates, deep JSON, out-of-range dates — through
// REST and, for the rules GraphQL shares, through /graphql with a variable. Plus the limits that
// came with them: `[]` bodies, text lengths, bounded echo, oversized headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { deflateSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { MAX_ECHO_CHARS } from '../../src/lib/errors.js';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/app.js';

let t: TestApp;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp();
  const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'offline' } });
  await t.rest('POST', '/api/v1/models', { body: { key: 'dev', provider_id: provider.body.id, provider_model: 'echo' } });
  const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Bad input', config: { model: 'dev' } } });
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
});
afterAll(async () => {
  await t.stop();
});

/** Sends `body` as raw text (so `\u0000` and `\ud800` escapes arrive exactly as written). */
async function raw(
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string>; token?: string | null } = {},
) {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
  const token = options.token === undefined ? t.apiKey : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${t.url}${path}`, { method, headers, body: options.body as BodyInit | undefined });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: text ? JSON.parse(text) : null };
}

function expectInvalid(response: { status: number; body: any }, field: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.error.code).toBe('invalid_argument');
  expect(response.body.error.details.field).toBe(field);
}

const graphqlInvalid = (result: { status: number; errors?: { extensions?: Record<string, any> }[] }, field: string) => {
  expect(result.errors?.[0]?.extensions?.code, JSON.stringify(result.errors)).toBe('invalid_argument');
  expect(result.errors![0]!.extensions!.details?.field).toBe(field);
};

describe('1. NUL bytes never reach PostgreSQL', () => {
  it('refuses NUL in a query parameter, a path parameter, a body field and a label selector, naming each', async () => {
    expectInvalid(await raw('GET', '/api/v1/agents?q=%00'), 'q');
    expectInvalid(await raw('GET', '/api/v1/agents/%00'), 'agent_id');
    expectInvalid(await raw('POST', '/api/v1/sessions', { body: '{"title":"a\\u0000b"}' }), 'title');
    expectInvalid(await raw('GET', '/api/v1/agents?label=k:%00'), 'label');
    expectInvalid(await raw('POST', '/api/v1/sessions', { body: '{"labels":{"team":"a\\u0000"}}' }), 'labels.team');
  });

  it('refuses a cursor that decodes to NUL, or to a position we never issue', async () => {
    for (const k of [['\u0000'], [1e300], [], [{ a: 1 }]]) {
      const cursor = Buffer.from(JSON.stringify({ l: 'agents', k })).toString('base64url');
      expectInvalid(await raw('GET', `/api/v1/agents?cursor=${cursor}`), 'cursor');
    }
    const revisions = Buffer.from(JSON.stringify({ l: `agent-revisions:${agentId}`, k: ['not a number'] })).toString('base64url');
    expectInvalid(await raw('GET', `/api/v1/agents/${agentId}/revisions?cursor=${revisions}`), 'cursor');
  });

  it('answers an unauthenticated login with NUL in the email with the support API’s 422', async () => {
    const response = await raw('POST', '/api/auth/login', { body: '{"email":"a\\u0000b","password":"x"}', token: null });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(['body', 'email']);
  });

  it('refuses NUL in a GraphQL variable and in a string literal, naming the argument', async () => {
    graphqlInvalid(await t.graphql('query($q: String) { agents(q: $q) { nodes { id } } }', { q: 'a\u0000' }), 'q');
    graphqlInvalid(await t.graphql('query { agents(q: "a\\u0000") { nodes { id } } }'), 'q');
    graphqlInvalid(
      await t.graphql('mutation($input: SessionInput!) { createSession(input: $input) { session { id } } }', {
        input: { title: 'a\u0000' },
      }),
      'title',
    );
  });

  it('refuses an X-Workspace-ID with NUL sent by a graphql-ws-style caller (the check is in authentication)', async () => {
    const { authenticate } = await import('../../src/features/access/auth.js');
    await expect(authenticate(t.app.deps, `Bearer ${t.apiKey}`, 'wsp_\u0000')).rejects.toMatchObject({
      code: 'invalid_argument',
      details: { field: 'X-Workspace-ID' },
    });
  });
});

describe('2. malformed percent-encoding in a path', () => {
  it('answers 400 with the documented body before authentication', async () => {
    for (const path of ['/api/v1/agents/%E0%A4%A', '/api/v1/agents/%ff%fe', '/api/v1/agents/%ED%A0%80/revisions']) {
      for (const token of [t.apiKey, null]) {
        const response = await raw('GET', path, { token });
        expectInvalid(response, 'path');
        expect(response.body.error.message).not.toContain('%');
      }
    }
  });
});

describe('3. bodies that do not decode under their Content-Encoding', () => {
  it('answers 400 on workspace routes and 422 on the unauthenticated login', async () => {
    for (const encoding of ['deflate', 'gzip', 'br']) {
      expectInvalid(
        await raw('POST', '/api/v1/sessions', { body: Buffer.from('garbage'), headers: { 'content-encoding': encoding } }),
        'body',
      );
      const login = await raw('POST', '/api/auth/login', {
        body: Buffer.from('garbage'),
        headers: { 'content-encoding': encoding },
        token: null,
      });
      expect(login.status).toBe(422);
      expect(login.body.detail[0].loc).toEqual(['body']);
    }
    // A body that does decode is read as usual.
    const ok = await raw('POST', '/api/v1/sessions', {
      body: deflateSync('{"title":"compressed"}'),
      headers: { 'content-encoding': 'deflate' },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.title).toBe('compressed');
  });
});

describe('4. lone surrogates', () => {
  it('refuses them in text, labels and free-form payloads (REST) and in a GraphQL variable', async () => {
    expectInvalid(await raw('POST', '/api/v1/sessions', { body: '{"title":"a\\ud800b"}' }), 'title');
    expectInvalid(await raw('POST', '/api/v1/sessions', { body: '{"labels":{"team":"\\udc00"}}' }), 'labels.team');
    expectInvalid(
      await raw('POST', '/api/v1/agents', { body: `{"name":"x","config":{"model":"dev","model_settings":{"stop":["\\ud83d"]}}}` }),
      'config.model_settings.stop.0',
    );
    graphqlInvalid(
      await t.graphql('mutation($input: SessionInput!) { createSession(input: $input) { session { id } } }', {
        input: { labels: { a: '\ud800' } },
      }),
      'labels.a',
    );
    // A surrogate pair is a character like any other.
    const ok = await raw('POST', '/api/v1/sessions', { body: '{"title":"\\ud83d\\ude00"}' });
    expect(ok.status).toBe(201);
    expect(ok.body.title).toBe('😀');
  });
});

describe('5. deeply nested JSON', () => {
  const deep = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

  it('refuses free-form members nested deeper than 64 levels (REST), without overflowing the stack', async () => {
    const agent = await raw('POST', '/api/v1/agents', { body: `{"name":"x","config":{"model":"dev","model_settings":${deep(3000)}}}` });
    expect(agent.status).toBe(400);
    expect(agent.body.error.details).toMatchObject({ field: 'config.model_settings.a.a…', max_depth: 64 });
    const resume = await raw('POST', '/api/v1/runs/run_00000000000000000000000000/resume', {
      body: `{"calls":${deep(5000)}}`,
      headers: { 'idempotency-key': 'k1' },
    });
    expect(resume.status).toBe(400);
    expect(resume.body.error.details.max_depth).toBe(64);
    // 60 levels inside the body are fine.
    const fine = await raw('POST', '/api/v1/agents', { body: `{"name":"x","config":{"model":"dev","model_settings":${deep(60)}}}` });
    expect(fine.status, JSON.stringify(fine.body)).toBe(201);
  });

  it('refuses a GraphQL variable nested 20,000 levels, and a document nested too deep', async () => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` },
      body: `{"query":"mutation($input: SessionInput!) { createSession(input: $input) { session { id } } }","variables":{"input":{"labels":${deep(20_000)}}}}`,
    });
    const body = (await response.json()) as { errors: { extensions: Record<string, any> }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'invalid_argument', details: { max_depth: 64 } });
    const document = await t.graphql(
      `mutation { createSession(input: { labels: ${'['.repeat(5000)}${']'.repeat(5000)} }) { session { id } } }`,
    );
    expect(document.errors?.[0]?.extensions?.code).toBe('invalid_argument');
    expect(document.errors?.[0]?.message).toMatch(/nests deeper than 128 levels/);
  });
});

describe('6. timestamps out of range', () => {
  it('refuses created_after outside years 0001–9999 on the run and audit lists, and accepts the range', async () => {
    for (const path of ['/api/v1/runs', '/api/v1/audit-events']) {
      for (const value of ['0000-01-01T00:00:00Z', '10000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-01-01']) {
        expectInvalid(await raw('GET', `${path}?created_after=${encodeURIComponent(value)}`), 'created_after');
      }
      for (const value of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2026-01-31T12:00:00+01:00']) {
        const response = await raw('GET', `${path}?created_after=${encodeURIComponent(value)}`);
        expect(response.status, `${path} ${value} ${JSON.stringify(response.body)}`).toBe(200);
      }
    }
    const graphql = await t.graphql('query($after: DateTime) { runs(createdAfter: $after) { nodes { id } } }', {
      after: '0000-01-01T00:00:00Z',
    });
    graphqlInvalid(graphql, 'after');
  });
});

describe('idle connections', () => {
  it('are kept longer than clients and proxies keep theirs, and say so in Keep-Alive', async () => {
    // A server that closes an idle connection first races the client's next request on it (a reset,
    // or a 502 from a proxy): the client's side must be the one to close.
    const response = await fetch(`${t.url}/healthz`);
    expect(response.headers.get('keep-alive')).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
  });
});

describe('limits that came with these fixes', () => {
  it('refuses a [] body where no body is taken, and still takes {}', async () => {
    expectInvalid(await raw('POST', `/api/v1/agents/${agentId}/archive`, { body: '[]', headers: { 'if-match': '*' } }), 'body');
    const archived = await raw('POST', `/api/v1/agents/${agentId}/archive`, { body: '{}', headers: { 'if-match': '*' } });
    expect(archived.status).toBe(200);
    expect((await raw('POST', `/api/v1/agents/${agentId}/unarchive`, { headers: { 'if-match': '*' } })).status).toBe(200);
  });

  it('enforces the documented length limits on names, descriptions and provider_model', async () => {
    const big = 'x'.repeat(900_000);
    expectInvalid(
      await raw('POST', '/api/v1/model-providers', { body: JSON.stringify({ type: 'development', name: 'p', description: big }) }),
      'description',
    );
    expectInvalid(
      await raw('POST', '/api/v1/model-providers', { body: JSON.stringify({ type: 'development', name: 'n'.repeat(201) }) }),
      'name',
    );
    const provider = await raw('POST', '/api/v1/model-providers', {
      body: JSON.stringify({ type: 'development', name: 'p', description: 'd'.repeat(4000) }),
    });
    expect(provider.status).toBe(201);
    expectInvalid(
      await raw('POST', '/api/v1/models', {
        body: JSON.stringify({ key: 'm1', provider_id: provider.body.id, provider_model: 'm'.repeat(257) }),
      }),
      'provider_model',
    );
    expectInvalid(
      await raw('POST', '/api/v1/models', {
        body: JSON.stringify({ key: 'm1', provider_id: provider.body.id, provider_model: 'echo', name: 'n'.repeat(201) }),
      }),
      'name',
    );
    expectInvalid(
      await raw('PATCH', '/api/v1/models/dev', { body: JSON.stringify({ provider_model: big }), headers: { 'if-match': '*' } }),
      'provider_model',
    );
    expectInvalid(await raw('POST', '/api/v1/memories', { body: JSON.stringify({ name: 'm', description: big }) }), 'description');
    expectInvalid(await raw('POST', '/api/v1/sessions', { body: JSON.stringify({ title: 't'.repeat(501) }) }), 'title');
  });

  it('refuses ids longer than 256 characters on both surfaces', async () => {
    expectInvalid(await raw('GET', `/api/v1/agents/${'a'.repeat(257)}`), 'agent_id');
    expect((await raw('GET', `/api/v1/agents/${'a'.repeat(256)}`)).status).toBe(404);
    graphqlInvalid(await t.graphql('query($id: ID!) { agent(id: $id) { id } }', { id: 'a'.repeat(257) }), 'id');
  });

  it('quotes at most a short prefix of what the caller sent', async () => {
    const id = `agt_${'z'.repeat(250)}`;
    const response = await raw('GET', `/api/v1/agents/${id}`);
    expect(response.status).toBe(404);
    expect(response.body.error.message).toContain(`"${id.slice(0, MAX_ECHO_CHARS)}…"`);
    expect(response.body.error.message.length).toBeLessThan(MAX_ECHO_CHARS + 40);
    // graphql-js quotes a refused variable whole; the message keeps a prefix.
    const graphql = await t.graphql('query($first: Int) { agents(first: $first) { nodes { id } } }', { first: 'n'.repeat(100_000) });
    expect(graphql.errors?.[0]?.extensions?.code).toBe('invalid_argument');
    expect(graphql.errors![0]!.message.length).toBeLessThan(400);
    // An unknown body field is named by a prefix too.
    const unknown = await raw('POST', '/api/v1/sessions', { body: JSON.stringify({ ['k'.repeat(10_000)]: 1 }) });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body).length).toBeLessThan(400);
  });

  it('answers headers over the limit with 431 and the JSON error body', async () => {
    const answer = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = request(
        `${t.url}/api/v1/workspace`,
        { headers: { authorization: `Bearer ${t.apiKey}`, 'x-padding': 'p'.repeat(20_000) } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(answer.type).toMatch(/^application\/json/);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'headers_too_large', details: { field: 'headers', limit_bytes: 16_384 } });
    // The service carries on.
    expect((await raw('GET', '/api/v1/workspace')).status).toBe(200);
  });
});
