// Property-based fuzzing of every REST route (the table in rest-shim/routes.ts, so new routes are
// covered without touching this file): generated malformed requests — bad path parameters, query
// values, headers and bodies, with and without a valid key — never get a 5xx, every 4xx carries
// the documented error body of its surface, and the service is healthy afterwards.
//
// Replay a failure with the seed fast-check prints: FUZZ_SEED=<seed> npx vitest run test/api/fuzz.test.ts
// (FUZZ_RUNS=<n> changes the number of batches, each of BATCH requests sent concurrently;
// FUZZ_STATS=1 prints how the answers were distributed, to see that requests reach the handlers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { getNamedType, isInputObjectType, Kind, typeFromAST, type NamedTypeNode } from 'graphql';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { routes, type Route, type RouteRequest } from '../../rest-shim/routes.js';
import { fuzzKnown, fuzzTemplates } from './fixtures/index.js';
import { loadOperations } from '../../rest-shim/router.js';
import { ERROR_STATUS } from '../../src/lib/errors.js';
import { createApiKey } from '../../src/features/access/admin.js';

const BATCH = 8; // requests in flight at once
// The default tier sends 50 × 8 = 400 requests; the slow tier (npm run test:slow) 250 × 8 = 2,000.
const DEFAULT_RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SLOW_RUNS = Number(process.env.FUZZ_RUNS ?? 250);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 0x7fffffff);

let t: TestApp;
let readOnlyKey: string;
/** Real ids by path parameter name, so that many requests reach the handlers, not only the 404s. */
const known: Record<string, string[]> = {};

/** The query parameters each route reads (and how), learned by calling its `variables` with a recorder. */
function queryReadsOf(route: Route): { name: string; kind: string }[] {
  const query: { name: string; kind: string }[] = [];
  const recorder: RouteRequest = {
    path: () => 'x',
    header: () => null,
    query: (name) => (query.push({ name, kind: 'text' }), null),
    queryList: (name) => (query.push({ name, kind: 'list' }), null),
    queryInt: (name) => (query.push({ name, kind: 'int' }), null),
    queryBool: (name) => (query.push({ name, kind: 'bool' }), null),
    queryDate: (name) => (query.push({ name, kind: 'date' }), null),
  };
  route.variables?.(recorder);
  return query;
}

const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The body fields a route accepts (snake_case), from its GraphQL input type or its field map. */
function bodyFieldsOf(route: Route, schema: import('graphql').GraphQLSchema, documents: ReturnType<typeof loadOperations>): string[] {
  const spec = route.body;
  if (!spec || spec === 'none' || route.rawBody) return [];
  if ('fields' in spec) return Object.keys(spec.fields);
  const document = documents.get(route.operation)!.document;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    const declared = definition.variableDefinitions?.find((v) => v.variable.name.value === spec.input);
    const type = declared ? typeFromAST(schema, declared.type as NamedTypeNode) : undefined;
    const named = type ? getNamedType(type) : undefined;
    if (named && isInputObjectType(named)) return Object.keys(named.getFields()).map(camelToSnake);
  }
  return [];
}

// ── arbitraries ──

const deepJson = (depth: number, leaf = '"x"') => '{"a":'.repeat(depth) + leaf + '}'.repeat(depth);

/** Strings that have hurt before: NUL, lone surrogates, huge, control characters, unicode, id-like. */
const nastyString = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    'a\u0000b',
    '\u0000',
    '\ud800',
    'x\udc00y',
    '\udbff',
    'a\u0000\ud800',
    '',
    ' ',
    '\t\n',
    '%00',
    '"quoted"',
    'agt_01J00000000000000000000000',
    'wsp_x',
    '*',
  ),
  fc.integer({ min: 300, max: 8_000 }).map((n) => 'x'.repeat(n)),
  fc.constant('y'.repeat(200_000)),
  fc.constantFrom(
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '10000-01-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2026-01-31T12:00:00Z',
  ),
);

/** JSON values for body fields: wrong types, nasty text, deep nesting (built as text, so the generator never recurses). */
const nastyValue: fc.Arbitrary<{ json: string }> = fc.oneof(
  nastyString.map((s) => ({ json: JSON.stringify(s) })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => ({ json: JSON.stringify(v) ?? 'null' })),
  fc
    .constantFrom(
      'null',
      'true',
      '0',
      '-1',
      '1e308',
      '[]',
      '{}',
      '[null]',
      '{"model":"dev"}',
      '{"":"x"}',
      '{"a\\u0000":"b"}',
      '{"k":"\\ud800"}',
      '"\\ud800"',
      '"a\\u0000b"',
    )
    .map((json) => ({ json })),
  fc.integer({ min: 60, max: 25_000 }).map((depth) => ({ json: deepJson(depth) })),
  fc.dictionary(fc.string({ maxLength: 8 }), nastyString, { maxKeys: 4 }).map((v) => ({ json: JSON.stringify(v) })),
);

type Body = { text: string | Uint8Array; contentType?: string; contentEncoding?: string } | null;

/** Every path to a member of `value` (objects only), so a defect can be planted anywhere in a template. */
function memberPaths(value: Record<string, unknown>, prefix: string[] = [], out: string[][] = []): string[][] {
  for (const [key, member] of Object.entries(value)) {
    out.push([...prefix, key]);
    if (member && typeof member === 'object' && !Array.isArray(member))
      memberPaths(member as Record<string, unknown>, [...prefix, key], out);
  }
  return out;
}

/** The template's JSON text with `nastyJson` (raw text: it may nest 25,000 levels) at `path`. */
function plant(template: Record<string, unknown>, path: string[], nastyJson: string): string {
  const copy = structuredClone(template);
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object' || Array.isArray(node[key])) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = '\u0001planted\u0001';
  return JSON.stringify(copy).replace('"\\u0001planted\\u0001"', () => nastyJson);
}

function templatedBody(template: Record<string, unknown>): fc.Arbitrary<Body> {
  const paths = memberPaths(template);
  const where = fc.oneof(
    fc.constantFrom(...paths),
    // A new member inside an object member (labels, config.model_settings, options…) or at the top.
    fc
      .tuple(
        fc.constantFrom(
          [],
          ...paths.filter((p) => {
            let n: unknown = template;
            for (const k of p) n = (n as Record<string, unknown>)[k];
            return !!n && typeof n === 'object' && !Array.isArray(n);
          }),
        ),
        fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('a\u0000', '\ud800', 'k'.repeat(500))),
      )
      .map(([parent, key]) => [...parent, key]),
  );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ text: JSON.stringify(template) }) },
    { weight: 6, arbitrary: fc.tuple(where, nastyValue).map(([path, value]) => ({ text: plant(template, path, value.json) })) },
  );
}

function bodyArbitrary(fields: string[], template?: Record<string, unknown>): fc.Arbitrary<Body> {
  const fieldNames = fields.length
    ? fc.oneof(fc.constantFrom(...fields), fc.constantFrom(...fields), fc.string({ maxLength: 10 }))
    : fc.string({ maxLength: 10 });
  const object = fc
    .array(fc.tuple(fieldNames, nastyValue), { maxLength: 5 })
    .map((pairs) => ({ text: `{${pairs.map(([key, value]) => `${JSON.stringify(key)}:${value.json}`).join(',')}}` }));
  const rawText = fc
    .oneof(
      fc.constantFrom(
        '[]',
        '[{}]',
        '{',
        '}',
        'null',
        '"x"',
        '1',
        'not json',
        '{"a":1,}',
        '\u0000',
        '{"a":"\\ud800"}',
        '{"title":"a\\u0000b"}',
        '{"name":"\\udfff"}',
      ),
      fc.integer({ min: 1000, max: 30_000 }).map((depth) => deepJson(depth)),
      fc.integer({ min: 1000, max: 30_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
      fc.string({ maxLength: 40 }),
    )
    .map((text) => ({ text }));
  const encoded = fc
    .tuple(fc.constantFrom('deflate', 'gzip', 'br', 'compress', 'identity, gzip'), fc.boolean(), fc.string({ maxLength: 30 }))
    .map(([encoding, valid, text]) => ({
      text: valid
        ? encoding === 'br'
          ? brotliCompressSync(text)
          : encoding === 'gzip'
            ? gzipSync(text)
            : encoding === 'deflate'
              ? deflateSync(text)
              : Buffer.from(text)
        : Buffer.from(`garbage ${text}`),
      contentEncoding: encoding,
    }));
  const odd = fc.constantFrom<Body>(
    { text: '{"a":1}', contentType: 'text/plain' },
    { text: 'a=1&b=2', contentType: 'application/x-www-form-urlencoded' },
    { text: '{"a":1}', contentType: 'application/json; charset=utf-7' },
    { text: Buffer.from([0xff, 0xfe, 0x00]), contentType: 'image/png' },
    { text: Buffer.from('{"name":"\xff"}', 'latin1') },
    { text: 'x'.repeat(1_100_000) },
  );
  return fc.oneof(
    { weight: template ? 12 : 0, arbitrary: template ? templatedBody(template) : fc.constant(null) },
    { weight: 6, arbitrary: object },
    { weight: 3, arbitrary: rawText },
    { weight: 2, arbitrary: encoded },
    { weight: 1, arbitrary: odd },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

/** A path parameter: often a real id, otherwise something malformed (percent-encoded as a client would, or raw). */
function pathValue(param: string): fc.Arbitrary<string> {
  const real = known[param]?.length ? fc.constantFrom(...known[param]!).map(encodeURIComponent) : fc.constant('x');
  return fc.oneof(
    { weight: 4, arbitrary: real },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%00',
        'a%00b',
        '%E0%A4%A',
        '%ff%fe',
        '%ED%A0%80',
        '%',
        '%zz',
        '..',
        '%2F',
        '%F0%9F%98%80',
        'agt_00000000000000000000000000',
      ),
    },
    {
      weight: 2,
      arbitrary: nastyString.filter((s) => s.length < 6000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
    },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 5000 }).map((n) => 'z'.repeat(n)) },
  );
}

/** Query values: valid-looking ones and malformed ones, percent-encoded into the query string. */
function queryArbitrary(reads: { name: string; kind: string }[]): fc.Arbitrary<string> {
  if (!reads.length) return fc.constant('');
  const valid: Record<string, fc.Arbitrary<string>> = {
    int: fc.constantFrom('1', '10', '100', '0', '-1', '101', '1.5', '99999999999999999999', 'ten'),
    bool: fc.constantFrom('true', 'false', 'yes', ''),
    date: fc.constantFrom(
      '2026-01-01T00:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2026-01-01',
      'yesterday',
      '275760-09-13T00:00:00Z',
    ),
    list: fc.constantFrom('team:core', 'k:%00', ':', 'k', 'a:b,c:d'),
    text: fc.constantFrom('abc', 'queued,running', 'completed'),
  };
  const cursor = fc.oneof(
    fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(Buffer.from(s).toString('base64url'))),
    fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify({ l: 'agents', k: v }) ?? 'null').toString('base64url')),
    fc.constantFrom(
      Buffer.from('{"l":"agents","k":["\\u0000"]}').toString('base64url'),
      Buffer.from('{"l":"runs","k":[1e300]}').toString('base64url'),
      '%00',
      '!!!',
    ),
  );
  const one = fc.constantFrom(...reads).chain(({ name, kind }) =>
    fc
      .oneof(
        { weight: 3, arbitrary: name === 'cursor' ? cursor : (valid[kind] ?? valid.text!) },
        { weight: 2, arbitrary: fc.constantFrom('%00', 'a%00b', '%E0%A4%A', '%ff', '%ED%A0%80', '') },
        {
          weight: 2,
          arbitrary: nastyString.filter((s) => s.length < 4000).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
        },
      )
      .map((value) => fc.constantFrom(`${name}=${value}`, `${name}=${value}&${name}=${value}`, `${name}[x]=${value}`, `${name}[]=${value}`))
      .chain((a) => a),
  );
  return fc.array(one, { maxLength: 3 }).map((parts) => parts.join('&'));
}

interface Case {
  method: string;
  path: string;
  surface: string;
  headers: Record<string, string>;
  body: Body;
}

function caseArbitrary(schema: import('graphql').GraphQLSchema, documents: ReturnType<typeof loadOperations>): fc.Arbitrary<Case> {
  const bodies = fuzzTemplates(known);
  const perRoute = routes.map((route) => {
    const template = bodies[`${route.method} ${route.path}`];
    const params = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]!);
    const reads = queryReadsOf(route);
    const fields = bodyFieldsOf(route, schema, documents);
    const headerValue = fc.oneof(
      fc.constantFrom('*', '"x:1"', 'W/"x:1"', '"x', '\xff\xfe', 'a'.repeat(600), ''),
      fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    );
    return fc
      .record({
        params: fc.tuple(...params.map(pathValue), fc.constant('')),
        query: route.method === 'GET' || reads.length ? queryArbitrary(reads) : fc.constant(''),
        headers: fc.record({
          authorization: fc.oneof(
            { weight: 12, arbitrary: fc.constant(`Bearer ${t.apiKey}`) },
            { weight: 1, arbitrary: fc.constant(`Bearer ${readOnlyKey}`) },
            {
              weight: 1,
              arbitrary: fc.constantFrom('', 'Bearer', 'Basic abc', 'Bearer wsk_\xff', `Bearer ${t.apiKey}x`, 'Bearer wsl_nothing'),
            },
          ),
          'x-workspace-id': fc.oneof(
            { weight: 6, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom(t.workspaceId, 'wsp_x', '\xff', 'a'.repeat(300)) },
          ),
          'if-match': fc.oneof(
            { weight: 1, arbitrary: fc.constant('') },
            { weight: 3, arbitrary: fc.constant('*') },
            { weight: 1, arbitrary: headerValue },
          ),
          'idempotency-key': fc.oneof(
            { weight: 1, arbitrary: fc.constant('') },
            { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((k) => `key-${k.replace(/[^!-~]/g, '')}`) },
            { weight: 1, arbitrary: headerValue },
          ),
          'x-request-id': fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: headerValue }),
        }),
        body: route.method === 'GET' ? fc.constant<Body>(null) : bodyArbitrary(fields, template),
      })
      .map(({ params, query, headers, body }): Case => {
        let index = 0;
        const path = route.path.replace(/:([A-Za-z_]+)/g, () => params[index++]!);
        return {
          method: route.method,
          path: query ? `${path}?${query}` : path,
          surface: route.surface,
          headers: Object.fromEntries(Object.entries(headers).filter(([, value]) => value !== '')),
          body,
        };
      });
  });
  return fc.oneof(...perRoute);
}

const KNOWN_CODES = new Set(Object.keys(ERROR_STATUS));

async function send(c: Case): Promise<{ status: number; text: string; contentType: string }> {
  const headers: Record<string, string> = { ...c.headers };
  if (c.body) {
    headers['content-type'] = c.body.contentType ?? 'application/json';
    if (c.body.contentEncoding) headers['content-encoding'] = c.body.contentEncoding;
  }
  const response = await fetch(`${t.url}${c.path}`, { method: c.method, headers, body: c.body ? (c.body.text as BodyInit) : undefined });
  return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') ?? '' };
}

/** The properties: no 5xx; a 4xx has the documented body of its surface. */
function check(c: Case, response: { status: number; text: string; contentType: string }) {
  const show = () =>
    `${c.method} ${c.path.slice(0, 300)} ${JSON.stringify(c.headers).slice(0, 300)} body=${c.body ? String(typeof c.body.text === 'string' ? c.body.text : `<${c.body.text.length} bytes ${c.body.contentEncoding ?? ''}>`).slice(0, 300) : 'none'} → ${response.status} ${response.text.slice(0, 500)}`;
  expect(response.status, show()).toBeLessThan(500);
  if (response.status < 400) return;
  expect(response.contentType, show()).toMatch(/^application\/json/);
  const body = JSON.parse(response.text);
  if (c.surface === 'support' && response.status === 422) {
    expect(Array.isArray(body.detail) && body.detail.length > 0, show()).toBe(true);
    for (const problem of body.detail) {
      expect(Array.isArray(problem.loc) && typeof problem.msg === 'string' && problem.type === 'value_error', show()).toBe(true);
    }
    return;
  }
  expect(typeof body.error?.code === 'string' && typeof body.error?.message === 'string', show()).toBe(true);
  expect(KNOWN_CODES.has(body.error.code), show()).toBe(true);
  expect(ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS], show()).toBe(response.status);
  if (c.surface === 'support')
    expect(body.error.code, `${show()}: the support API answers validation failures with 422`).not.toBe('invalid_argument');
  expect(response.text.length, `${show()}: bounded echo`).toBeLessThan(4_000);
}

beforeAll(async () => {
  // Local environments, so generated environment requests reach the driver.
  t = await startTestApp({ allowLocalEnvironments: true });
  readOnlyKey = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  // A small, real workspace (each domain makes its part: test/api/fixtures/).
  const post = async (path: string, body: unknown) => {
    const response = await t.rest('POST', path, { body });
    expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBeLessThan(300);
    return response.body;
  };
  Object.assign(known, await fuzzKnown({ t, post }));
});
afterAll(async () => {
  await t?.stop();
});

/** Sends RUNS batches of generated requests; none may get a 5xx or an undocumented error body. */
async function fuzz(RUNS: number) {
  const schema = t.app.yoga.getEnveloped({}).schema;
  const arbitrary = caseArbitrary(schema, loadOperations());
  let sent = 0;
  const outcomes = new Map<string, number>();
  const details = await fc.check(
    fc.asyncProperty(fc.array(arbitrary, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
      const responses = await Promise.all(batch.map(send));
      sent += batch.length;
      for (const [index, response] of responses.entries()) {
        const code = response.status >= 400 ? (/"code":"([a-z_]+)"/.exec(response.text)?.[1] ?? 'detail') : '';
        const key = `${response.status} ${code} ${batch[index]!.surface}`;
        outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      }
      batch.forEach((c, index) => check(c, responses[index]!));
    }),
    // No shrinking by default (each step re-sends requests); FUZZ_SHRINK=1 to shrink a replayed failure.
    { numRuns: RUNS, seed: SEED, endOnFailure: !process.env.FUZZ_SHRINK },
  );
  if (details.failed) {
    // fast-check's own report prints the whole batch (bodies of hundreds of KB): report the failing request only.
    const failure = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    expect.fail(
      `fuzz failed after ${details.numRuns} batches; replay with FUZZ_SEED=${details.seed} (path ${details.counterexamplePath}):\n${failure.slice(0, 3000)}`,
    );
  }
  expect(sent).toBeGreaterThanOrEqual(RUNS * BATCH);
  if (process.env.FUZZ_STATS)
    console.log(
      [...outcomes]
        .sort((a, b) => b[1] - a[1])
        .map(([key, count]) => `${count}\t${key}`)
        .join('\n'),
    );

  // Healthy afterwards: liveness, and a normal authenticated read.
  expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
  const workspace = await t.rest('GET', '/api/v1/workspace');
  expect(workspace.status).toBe(200);
  expect(workspace.body.id).toBe(t.workspaceId);
  expect((await t.rest('GET', `/api/v1/agents/${known.agent_id![0]}`)).status).toBe(200);
}

describe('fuzzing every REST route with malformed requests', () => {
  it(`answers ${DEFAULT_RUNS * BATCH} generated requests without a 5xx, with documented error bodies, and stays healthy`, async () => {
    await fuzz(DEFAULT_RUNS);
  }, 180_000);

  it(`answers ${SLOW_RUNS * BATCH} generated requests the same way`, { tags: ['slow'], timeout: 300_000 }, async () => {
    await fuzz(SLOW_RUNS);
  });
});
