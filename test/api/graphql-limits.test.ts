// The GraphQL abuse guards over real HTTP (and graphql-ws): who may ask what without a credential,
// introspection, suggestions, the document limits (tokens, aliases, depth, cost, directives, root
// fields), the per-request deadline, the status of invalid documents, and /healthz staying
// responsive while abusive requests arrive.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { getIntrospectionQuery } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createUser } from '../../src/features/access/admin.js';
import { GRAPHIQL_AUTHORIZATION_PLACEHOLDER } from '../../src/graphql/graphiql.js';

let t: TestApp;
const logLines: string[] = [];

beforeAll(async () => {
  t = await startTestApp({}, undefined, { logLines });
  await createUser(t.app.deps, { email: 'limits@example.com', password: 'limits password', workspaceId: t.workspaceId, role: 'writer' });
});
afterAll(async () => {
  await t?.stop();
});

const anonymous = { token: null };
const messages = (response: { errors?: { message: string }[] }) => (response.errors ?? []).map((error) => error.message).join('\n');

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  // Server-sent events carry each result as `data: {…}`; the first one is the answer here.
  const json = contentType.startsWith('text/event-stream') ? (/^data: (.*)$/m.exec(text)?.[1] ?? '{}') : text;
  return {
    status: response.status,
    contentType,
    body: JSON.parse(json) as { data?: unknown; errors?: { message: string; extensions?: Record<string, any> }[] },
  };
}

describe('anonymous callers', () => {
  it('answer 401 unauthenticated unless the document selects only open fields', async () => {
    for (const query of [
      '{ workspace { id } }',
      'mutation { createSession(input: {}) { session { id } } }',
      // An open field does not carry a closed one along.
      'mutation { login(email: "limits@example.com", password: "limits password") { token } createSession(input: {}) { session { id } } }',
      'query A { __typename } query B { agents { nodes { id } } }',
      '{ ...Q } fragment Q on Query { viewer { principalId } }',
    ]) {
      const response = await t.graphql(query, {}, anonymous);
      expect(response.status, query).toBe(401);
      expect(response.errors?.[0]?.extensions?.code, query).toBe('unauthenticated');
      expect(response.data ?? null, query).toBeNull();
    }
    // Open fields, one per operation: one sign-in attempt per request, not ten.
    const twice = await t.graphql(
      'mutation { a: login(email: "limits@example.com", password: "x") { token } b: login(email: "limits@example.com", password: "y") { token } }',
      {},
      anonymous,
    );
    expect(twice.status).toBe(400);
    expect(twice.errors?.[0]?.message).toMatch(/without a credential an operation may select one root field/);
    // An unknown credential is no better than none.
    const unknown = await t.graphql('{ workspace { id } }', {}, { token: 'wsk_unknownunknownunknown' });
    expect(unknown.status).toBe(401);
  });

  it('may log in and use the envd pairing mutations without a credential', async () => {
    const login = await t.graphql('mutation { login(email: "limits@example.com", password: "limits password") { token } }', {}, anonymous);
    expect(login.errors).toBeUndefined();
    expect(login.data.login.token).toMatch(/^wsl_/);
    const pairing = await t.graphql(
      'mutation($input: PairingRequestInput!) { requestDevicePairing(input: $input) { pairingId pollSecret } }',
      {
        input: {
          deviceName: 'limits-box',
          platform: 'linux-x64',
          publicKey: 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=',
        },
      },
      anonymous,
    );
    expect(pairing.errors).toBeUndefined();
    const poll = await t.graphql(
      'mutation($s: String!) { pollDevicePairing(pollSecret: $s) { status } }',
      { s: pairing.data.requestDevicePairing.pollSecret },
      anonymous,
    );
    expect(poll.data.pollDevicePairing.status).toBe('pending');
  });

  it('get no field suggestions; authenticated callers do', async () => {
    const hidden = await t.graphql('mutation { login(email: "a@example.com", password: "x") { tokn } }', {}, anonymous);
    expect(hidden.status).toBe(400);
    expect(messages(hidden)).toMatch(/Cannot query field "tokn"/);
    expect(messages(hidden)).not.toMatch(/Did you mean/);
    // Variables are checked during execution: no suggestions there either.
    const variables = await t.graphql(
      'mutation($input: PairingRequestInput!) { requestDevicePairing(input: $input) { pairingId } }',
      { input: { deviceNam: 'x', platform: 'p', publicKey: 'k' } },
      anonymous,
    );
    expect(variables.status).toBe(400);
    expect(messages(variables)).toMatch(/deviceNam/);
    expect(messages(variables)).not.toMatch(/Did you mean/);

    const shown = await t.graphql('{ viewer { principalI } }');
    expect(shown.status).toBe(400);
    expect(messages(shown)).toMatch(/Did you mean "principalId"/);
  });
});

describe('introspection', () => {
  it('is refused to anonymous callers and answered for authenticated ones', async () => {
    for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
      const refused = await t.graphql(query, {}, anonymous);
      expect(refused.status, query).toBe(401);
      expect(refused.errors?.[0]?.extensions?.code).toBe('unauthenticated');
    }
    const full = await t.graphql(getIntrospectionQuery());
    expect(full.status).toBe(200);
    expect(full.data.__schema.queryType.name).toBe('Query');
  });

  it('is executed once per document and variables, then answered from memory, still gated and counted', async () => {
    // The pipeline itself (what HTTP, graphql-ws and the REST shim all run): the second execution
    // of the same introspection gives back the very result the first made, so it did not run again.
    const enveloped = () => t.app.yoga.getEnveloped({ restCredentials: { authorization: `Bearer ${t.apiKey}` } });
    const document = enveloped().parse(getIntrospectionQuery());
    const run = async (variableValues: Record<string, unknown> = {}, doc = document) => {
      const e = enveloped();
      return e.execute({ schema: e.schema, document: doc, contextValue: await e.contextFactory(), variableValues });
    };
    const first = await run();
    expect(await run()).toBe(first);
    // A different selection is another entry; so are other variables of the same document.
    const byName = enveloped().parse('query T($name: String!) { __type(name: $name) { name } }');
    const query = (await run({ name: 'Query' }, byName)) as { data: { __type: { name: string } } };
    const mutation = (await run({ name: 'Mutation' }, byName)) as { data: { __type: { name: string } } };
    expect([query.data.__type.name, mutation.data.__type.name]).toEqual(['Query', 'Mutation']);
    expect(await run({ name: 'Query' }, byName)).toBe(query);
    // An operation selecting anything else is executed as usual, every time.
    const mixed = enveloped().parse('{ __schema { queryType { name } } viewer { principalId } }');
    expect(await run({}, mixed)).not.toBe(await run({}, mixed));
    // Over HTTP: the same answer for every caller allowed to introspect, refused to the others.
    const over = await t.graphql(getIntrospectionQuery());
    expect(over.data).toEqual(JSON.parse(JSON.stringify((first as { data: unknown }).data)));
    const refused = await t.graphql(getIntrospectionQuery(), {}, anonymous);
    expect(refused.status).toBe(401);
  });

  it('answers a repeated HTTP introspection with the same bytes and headers as one serialized afresh', async () => {
    // A second instance on the same database with the cache off: every answer executed and serialized.
    const uncached = await startTestApp({ graphqlIntrospectionCache: false }, t);
    try {
      const raw = async (app: TestApp, accept: string | undefined) => {
        const response = await fetch(`${app.url}/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${t.apiKey}`,
            'content-type': 'application/json',
            ...(accept ? { accept } : {}),
          },
          body: JSON.stringify({ query: getIntrospectionQuery() }),
        });
        const body = Buffer.from(await response.arrayBuffer());
        // Headers that differ per request whatever the answer (the clock, the request's id).
        const perRequest = new Set(['date', 'x-request-id', 'traceparent', 'ratelimit', 'ratelimit-policy']);
        const headers = [...response.headers].filter(([name]) => !perRequest.has(name) && !name.startsWith('x-ratelimit'));
        return { status: response.status, headers, body };
      };
      for (const accept of [undefined, 'application/json', 'application/graphql-response+json', 'text/event-stream']) {
        const fresh = await raw(uncached, accept);
        expect(fresh.status, accept).toBe(200);
        // The first cached answer (executed, then kept) and repeated ones (answered from memory).
        for (let i = 0; i < 3; i++) {
          const cached = await raw(t, accept);
          expect(cached.status, accept).toBe(fresh.status);
          expect(cached.headers, accept).toEqual(fresh.headers);
          expect(cached.body.equals(fresh.body), accept).toBe(true);
        }
      }
      const contentLength = (await raw(t, undefined)).headers.find(([name]) => name === 'content-length');
      expect(Number(contentLength?.[1])).toBeGreaterThan(100_000);
    } finally {
      await uncached.stop();
    }
  });

  it('allows one __schema per operation and bounds its nesting', async () => {
    const twice = await t.graphql('{ a: __schema { queryType { name } } b: __schema { queryType { name } } }');
    expect(twice.status).toBe(400);
    expect(messages(twice)).toMatch(/__schema may be selected once per operation/);
    const nested = await t.graphql('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }');
    expect(nested.status).toBe(400);
    expect(messages(nested)).toMatch(/Maximum introspection depth exceeded/);
  });
});

describe('document limits (defaults)', () => {
  const fields = (n: number, field: (i: number) => string) => Array.from({ length: n }, (_, i) => field(i)).join(' ');

  it('tokens: at most 2000 per document, counted while parsing', async () => {
    const over = await t.graphql(`{ viewer { ${'principalId '.repeat(2001)} } }`);
    expect(over.status).toBe(400);
    expect(over.errors?.[0]?.extensions?.code).toBe('invalid_argument');
    expect(messages(over)).toMatch(/Token limit of 2000 exceeded/);
  });

  it('aliases: at most 100 per operation', async () => {
    const atLimit = await t.graphql(`{ viewer { ${fields(100, (i) => `a${i}: principalId`)} } }`);
    expect(atLimit.status).toBe(200);
    const over = await t.graphql(`{ viewer { ${fields(101, (i) => `a${i}: principalId`)} } }`);
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/Aliases limit of 100 exceeded, found 101/);
  });

  it('depth: at most 12', async () => {
    const chain = (depth: number) => `{ __type(name: "Query") { ${'ofType { '.repeat(depth - 2)}name${' }'.repeat(depth - 2)} } }`;
    expect((await t.graphql(chain(12))).status).toBe(200);
    const over = await t.graphql(chain(13));
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/depth limit of 12 exceeded/);
  });

  it('cost: at most 20,000 (objects 2, scalars 1, times 1.5 per level, times a literal `first`)', async () => {
    const spreads = (n: number) =>
      `{ viewer { ${'...V '.repeat(n)} } } fragment V on Viewer { principalId principalKind workspaceId organizationId permissions }`;
    expect((await t.graphql(spreads(800))).status).toBe(200); // cost 18,302
    const over = await t.graphql(spreads(900));
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/Query Cost limit of 20000 exceeded/);
    // A connection's literal `first` multiplies what it selects: 100 runs with nested objects cost more than 5 do.
    const page = (first: number) =>
      `{ runs(first: ${first}) { nodes { ${fields(90, (i) => `a${i}: id`)} thread { id session { id } } } } }`;
    expect((await t.graphql(page(5))).status).toBe(200);
    expect(messages(await t.graphql(page(100)))).toMatch(/Query Cost limit of 20000 exceeded/);
  });

  it('directives: at most 50', async () => {
    const over = await t.graphql(`{ viewer { ${fields(51, (i) => `a${i}: principalId @include(if: true)`)} } }`);
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/Directives limit of 50 exceeded/);
  });

  it('root fields: at most 20 per query', async () => {
    expect((await t.graphql(`{ ${fields(20, (i) => `v${i}: viewer { principalId }`)} }`)).status).toBe(200);
    const over = await t.graphql(`{ ${fields(21, (i) => `v${i}: viewer { principalId }`)} }`);
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/Root field limit of 20 per query exceeded, found 21/);
  });

  it('root fields: at most 10 per mutation, and a refused mutation runs none of them', async () => {
    const count = async () => (await t.rest('GET', '/api/v1/sessions?limit=100')).body.items.length;
    const before = await count();
    const over = await t.graphql(`mutation { ${fields(11, (i) => `s${i}: createSession(input: {}) { session { id } }`)} }`);
    expect(over.status).toBe(400);
    expect(messages(over)).toMatch(/Root field limit of 10 per mutation exceeded, found 11/);
    expect(await count()).toBe(before);
    const atLimit = await t.graphql(`mutation { ${fields(10, (i) => `s${i}: createSession(input: {}) { session { id } }`)} }`);
    expect(atLimit.errors).toBeUndefined();
    expect(await count()).toBe(before + 10);
  });

  it('subscriptions: one root field, over SSE and graphql-ws alike; limits hold on graphql-ws too', async () => {
    const sse = await post(
      { query: 'subscription { a: runStatus(runId: "run_x") { status } b: runStatus(runId: "run_y") { status } }' },
      { authorization: `Bearer ${t.apiKey}`, accept: 'text/event-stream' },
    );
    expect(messages(sse.body)).toMatch(/must select only one top level field/);
    expect(sse.status).toBe(400);

    const ws = createClient({
      url: t.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
      retryAttempts: 0,
      lazy: true,
      lazyCloseTimeout: 60_000,
    });
    // One connection for both operations (a lazy client would otherwise close it between them).
    const outcome = (query: string) =>
      new Promise<unknown>((resolve) => {
        ws.subscribe(
          { query },
          { next: (value) => resolve({ next: value }), error: (error) => resolve(error), complete: () => resolve('complete') },
        );
      });
    // Each refusal is the operation's error (the socket stays open), never a closed connection.
    const refused = async (query: string, message: RegExp) => {
      const errors = (await outcome(query)) as { message: string; extensions?: { code?: string } }[];
      expect(Array.isArray(errors), JSON.stringify(errors)).toBe(true);
      expect(errors[0]!.message).toMatch(message);
      expect(errors[0]!.extensions).toEqual({ code: 'invalid_argument' });
    };
    await refused(
      'subscription { a: runStatus(runId: "run_x") { status } b: runStatus(runId: "run_y") { status } }',
      /must select only one top level field/,
    );
    await refused(`{ viewer { ${fields(101, (i) => `a${i}: principalId`)} } }`, /Aliases limit of 100 exceeded/);
    await refused(`{ viewer { ${'principalId '.repeat(2001)} } }`, /Token limit of 2000 exceeded/);
    await refused('{ viewer { principalId ', /Syntax Error/);
    expect(await outcome('{ viewer { principalId } }')).toEqual({
      next: { data: { viewer: { principalId: expect.stringMatching(/^key_/) } } },
    });
    await ws.dispose();
  });
});

describe('invalid documents', () => {
  it('answer 400 invalid_argument with either Accept type', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json', '*/*']) {
      for (const query of ['{ viewer { principalId ', '{ viewer { nope } }']) {
        const response = await post({ query }, { authorization: `Bearer ${t.apiKey}`, accept });
        expect(response.status, `${accept} ${query}`).toBe(400);
        expect(response.body.errors?.[0]?.extensions?.code).toBe('invalid_argument');
      }
    }
  });
});

describe('request log', () => {
  it('names the real path of /graphql requests', async () => {
    await t.graphql('{ viewer { principalId } }', {}, { headers: { 'x-request-id': 'limits-log-path' } });
    const line = logLines.map((text) => JSON.parse(text)).find((entry) => entry.msg === 'request' && entry.requestId === 'limits-log-path');
    expect(line).toMatchObject({ method: 'POST', path: '/graphql', status: 200 });
  });
});

describe('/healthz during abusive requests', () => {
  it('stays responsive while 100-fold introspection requests are refused', async () => {
    // 100 aliased full introspections in one document (what took 9.5 MB of answer before).
    const introspection = getIntrospectionQuery();
    const fragmentsAt = introspection.indexOf('fragment FullType');
    const operation = introspection.slice(0, fragmentsAt);
    const schemaSelection = operation.slice(operation.indexOf('{') + 1, operation.lastIndexOf('}')).trim();
    const abusive = `{ ${Array.from({ length: 100 }, (_, i) => `i${i}: ${schemaSelection}`).join('\n')} }\n${introspection.slice(fragmentsAt)}`;
    expect(abusive.length).toBeGreaterThan(20_000);
    const inFlight = [
      ...Array.from({ length: 4 }, () => post({ query: abusive })),
      ...Array.from({ length: 4 }, () => post({ query: abusive }, { authorization: `Bearer ${t.apiKey}` })),
    ];
    const started = Date.now();
    const health = await fetch(`${t.url}/healthz`);
    const healthMs = Date.now() - started;
    const answers = await Promise.all(inFlight);
    expect(health.status).toBe(200);
    // Generous: before the limits this took ~10 s; a refused document takes milliseconds.
    expect(healthMs).toBeLessThan(5000);
    for (const [index, answer] of answers.entries()) {
      expect(answer.status, String(index)).toBe(index < 4 ? 401 : 400);
      expect(answer.body.data ?? null).toBeNull();
    }
  });
});

describe('a configured service: GRAPHQL_TIMEOUT_MS=4000, GRAPHQL_INTROSPECTION=public, GraphiQL on', () => {
  let slow: TestApp;
  let hanging: Server;
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    // A model server that never answers until the test is over: a probe against it can only end
    // by the deadline (4 s) or by the probe's own timeout (10 s), so the outcome is not a race.
    hanging = createServer(
      (_req, res) => void released.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}')),
    );
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    slow = await startTestApp({
      graphqlTimeoutMs: 4000,
      graphqlIntrospection: 'public',
      graphiql: true,
      allowPlainHttpEndpoints: ['127.0.0.1'],
    });
  });
  afterAll(async () => {
    release();
    await slow?.stop();
    await new Promise((resolve) => hanging.close(resolve));
  });

  it('stops a query or mutation after GRAPHQL_TIMEOUT_MS with 504 deadline_exceeded, on GraphQL and REST', async () => {
    const base = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`;
    // Set up through a second instance on the same database without the deadline: on a loaded
    // machine even a quick write may take longer than the deadline under test.
    const setup = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] }, slow);
    const created = await setup.rest('POST', '/api/v1/model-providers', {
      body: { name: 'hangs', type: 'openai_compatible', config: { base_url: base } },
    });
    await setup.stop();
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const viaGraphQL = await slow.graphql('mutation($id: ID!) { testProvider(kind: "model", id: $id) { status } }', {
      id: created.body.id,
    });
    expect(viaGraphQL.status).toBe(504);
    expect(viaGraphQL.errors?.[0]?.extensions?.code).toBe('deadline_exceeded');
    const viaRest = await slow.rest('POST', `/api/v1/model-providers/${created.body.id}/test`);
    expect(viaRest.status).toBe(504);
    expect(viaRest.body.error.code).toBe('deadline_exceeded');
    // Quick operations are untouched.
    expect((await slow.graphql('{ viewer { principalId } }')).status).toBe(200);
  });

  it('answers introspection without a credential when it is public; other fields still need one', async () => {
    const open = await slow.graphql('{ __schema { queryType { name } } }', {}, anonymous);
    expect(open.status).toBe(200);
    expect(open.data.__schema.queryType.name).toBe('Query');
    expect((await slow.graphql('{ __schema { queryType { name } } viewer { principalId } }', {}, anonymous)).status).toBe(401);
  });

  it('serves GraphiQL with its assets from the service and the Authorization header to fill in', async () => {
    const page = await fetch(`${slow.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('YogaGraphiQL.renderYogaGraphiQL');
    expect(html).toContain(JSON.stringify(JSON.stringify({ Authorization: GRAPHIQL_AUTHORIZATION_PLACEHOLDER }, null, 2)).slice(1, -1));
    // Nothing is loaded from another host: no external script, style sheet, font or image.
    expect(html).not.toMatch(/<(script|link|img)\b[^>]*\b(src|href)=["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import\s+url\(["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|fonts\.googleapis|esm\.sh/);
  });
});
