// The published REST contract: the OpenAPI 3.1 documents served at /api/v1/openapi.json (workspace API)
// and /api/openapi.json (support API, version label "1") are valid OpenAPI 3.1 (checked by
// @seriousme/openapi-schema-validator against the official schemas), describe every route of the
// table and nothing else, and describe the answers the service really gives: every recorded answer
// of the REST golden file validates (ajv, JSON Schema 2020-12) against the response schema of its
// route and status. The API reference page at /docs and its script are served by the service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { routes, type Route } from '../../rest-shim/routes.js';
import { buildOpenApi, type OpenApiDocument } from '../../rest-shim/openapi.js';
import { createRestRouter } from '../../rest-shim/router.js';
import { deprecationHeaders } from '../../rest-shim/deprecation.js';
import { createYogaServer } from '../../src/graphql/yoga.js';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { getSchema } from '../../src/graphql/schema.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'golden', 'rest-responses.json');
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
/** A schema, or the component it refers to. */
const deref = (document: any, schema: any) => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()] : schema);
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

let t: TestApp;
const served: Partial<Record<'v1' | 'support', OpenApiDocument>> = {};
beforeAll(async () => {
  t = await startTestApp();
  for (const [surface, path] of [
    ['v1', '/api/v1/openapi.json'],
    ['support', '/api/openapi.json'],
  ] as const) {
    // Anonymous: the contract is public.
    const response = await fetch(`${t.url}${path}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    served[surface] = (await response.json()) as OpenApiDocument;
  }
});
afterAll(async () => {
  await t.stop();
});

describe('OpenAPI documents', () => {
  it.each(['v1', 'support'] as const)('the %s document is valid OpenAPI 3.1', async (surface) => {
    const validator = new Validator();
    const result = await validator.validate(served[surface]!);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(served[surface]!.openapi).toBe('3.1.0');
  });

  it('carries the version label "1" on both surfaces', () => {
    expect((served.v1!.info as { version: string }).version).toBe('1');
    expect((served.support!.info as { version: string }).version).toBe('1');
  });

  it('describes every route of the table, on its surface, and nothing else', () => {
    const described = new Set<string>();
    for (const surface of ['v1', 'support'] as const) {
      for (const [path, methods] of Object.entries(served[surface]!.paths)) {
        for (const method of Object.keys(methods)) described.add(`${surface} ${method.toUpperCase()} ${path}`);
      }
    }
    const expected = new Set(routes.map((route) => `${route.surface} ${route.method} ${openApiPath(route.path)}`));
    expect([...expected].filter((route) => !described.has(route))).toEqual([]);
    expect([...described].filter((route) => !expected.has(route))).toEqual([]);
    const ids = Object.values({ ...served.v1!.paths, ...served.support!.paths }).flatMap((methods) =>
      Object.values(methods).map((operation) => operation.operationId as string),
    );
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes headers, paging, statuses and bodies from the route flags', () => {
    const v1 = served.v1!.paths;
    // A single read: ETag header; an update: If-Match with 412/428; a list: limit/cursor and {items, next_cursor}.
    const get = v1['/api/v1/connections/{connection_id}']!.get!;
    expect((get.responses as any)['200'].headers.ETag).toBeDefined();
    const view = deref(served.v1, (get.responses as any)['200'].content['application/json'].schema);
    expect(Object.keys(view.properties)).toEqual(expect.arrayContaining(['id', 'provider_id', 'version']));
    expect(view.properties.etag).toBeUndefined();
    const patch = v1['/api/v1/connections/{connection_id}']!.patch!;
    expect((patch.parameters as any[]).map((p) => p.name)).toEqual(expect.arrayContaining(['connection_id', 'If-Match']));
    expect(Object.keys(patch.responses as object)).toEqual(expect.arrayContaining(['200', '400', '404', '412', '428']));
    expect((patch.requestBody as any).content['application/json'].schema.additionalProperties).toBe(false);
    // A change that takes If-Match without needing it (unarchive): 412, no 428, and the header says so.
    const unarchive = v1['/api/v1/agents/{agent_id}/unarchive']!.post!;
    expect(Object.keys(unarchive.responses as object)).toContain('412');
    expect(Object.keys(unarchive.responses as object)).not.toContain('428');
    expect((unarchive.parameters as any[]).find((p) => p.name === 'If-Match').description).toMatch(/^Optional here/);
    expect(Object.keys(v1['/api/v1/agents/{agent_id}/archive']!.post!.responses as object)).toContain('428');
    const list = v1['/api/v1/runs']!.get!;
    const names = (list.parameters as any[]).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['limit', 'cursor', 'status', 'created_after']));
    const status = (list.parameters as any[]).find((p) => p.name === 'status');
    expect(status.schema).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/RunStatus' } });
    expect((list.responses as any)['200'].content['application/json'].schema.required).toEqual(['items', 'next_cursor']);
    // Created, Prefer/Preference-Applied, Idempotency-Key, no content.
    const start = v1['/api/v1/runs']!.post!;
    expect(Object.keys(start.responses as object)).toContain('201');
    expect((start.parameters as any[]).map((p) => p.name)).toContain('Prefer');
    expect((start.responses as any)['201'].headers['Preference-Applied']).toBeDefined();
    const fork = v1['/api/v1/runs/{run_id}/fork']!.post!;
    expect((fork.parameters as any[]).map((p) => p.name)).toContain('Idempotency-Key');
    const delivery = deref(served.v1, (fork.responses as any)['201'].content['application/json'].schema);
    expect(Object.keys(delivery.properties).length).toBeGreaterThan(0);
    expect(delivery.properties.waited).toBeUndefined();
    const logout = served.support!.paths['/api/auth/logout']!.post!;
    expect((logout.responses as any)['204'].content).toBeUndefined();
    // Open routes need no credential; the rest do.
    expect(served.support!.paths['/api/auth/login']!.post!.security).toEqual([]);
    expect(served.support!.paths['/api/devices']!.get!.security).toBeUndefined();
    expect(served.support!.security).toEqual([{ bearer: [] }]);
    expect((served.support!.paths['/api/auth/login']!.post!.responses as any)['422']).toBeDefined();
  });

  it('describes a route added to the table without anything written for it', () => {
    const extra: Route = {
      method: 'POST',
      path: '/api/v1/widgets/:widget_id/things',
      operation: 'ThreadCreate',
      surface: 'v1',
      variables: (req) => ({ sessionId: req.path('widget_id'), idempotencyKey: req.header('idempotency-key') }),
      body: { input: 'input', required: true },
      result: 'createThread.thread',
      status: 201,
    };
    // A mapping that computes with what it reads (formats a boolean, clamps an integer) is described too.
    const computing: Route = {
      method: 'GET',
      path: '/api/v1/widgets/:widget_id',
      operation: 'ThreadGet',
      surface: 'v1',
      variables: (req) => ({ id: `${req.path('widget_id')}:${req.queryBool('deep')}:${Math.min(req.queryInt('depth') ?? 1, 5)}` }),
      result: 'thread',
    };
    const document = buildOpenApi(getSchema(), 'v1', { routes: [...routes, extra, computing] });
    expect(
      (document.paths['/api/v1/widgets/{widget_id}']!.get!.parameters as any[]).filter((p) => p.in === 'path' || p.in === 'query'),
    ).toEqual([
      { name: 'widget_id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'deep', in: 'query', required: false, schema: { type: 'boolean' } },
      { name: 'depth', in: 'query', required: false, schema: { type: 'integer' } },
    ]);
    const operation = document.paths['/api/v1/widgets/{widget_id}/things']!.post!;
    expect((operation.parameters as any[]).map((p) => p.name)).toEqual(expect.arrayContaining(['widget_id', 'Idempotency-Key']));
    const body = deref(document, (operation.responses as any)['201'].content['application/json'].schema);
    expect(body.properties).toHaveProperty('session_id');
    expect((operation.requestBody as any).required).toBe(true);
  });

  it('every recorded answer of the REST golden file matches the response schema of its route and status', () => {
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, { request: string; status: number; body?: unknown }>;
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(served.v1!, 'v1');
    ajv.addSchema(served.support!, 'support');
    const problems: string[] = [];
    let checked = 0;
    for (const [name, recorded] of Object.entries(golden)) {
      const [method, url] = recorded.request.split(' ') as [string, string];
      const path = url.split('?')[0]!;
      const surface = path.startsWith('/api/v1/') ? 'v1' : 'support';
      const document = served[surface]!;
      // The most specific template that matches (fewest parameters): `/records/search` before `/records/{record_id}`.
      const template = Object.keys(document.paths)
        .filter((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))
        .sort((a, b) => a.split('{').length - b.split('{').length)[0];
      const operation = template ? document.paths[template]![method.toLowerCase()] : undefined;
      if (!operation) {
        // A method the path does not serve (405) or a path outside the table (404): the error body.
        expect([404, 405], name).toContain(recorded.status);
        continue;
      }
      const responses = operation.responses as Record<string, { content?: Record<string, unknown> }>;
      const status = responses[String(recorded.status)] ? String(recorded.status) : 'default';
      const content = responses[status]!.content;
      if (!content) {
        expect(recorded.body ?? '', name).toBe('');
        continue;
      }
      if (!content['application/json']) continue; // bytes (an asset's content)
      const ref = `${surface}#/paths/${pointer(template!)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
      checked++;
      if (!validate(recorded.body)) problems.push(`${name} (${recorded.status}): ${ajv.errorsText(validate.errors)}`);
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });

  it('response schemas are closed: a member the service does not send is refused', () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema(served.v1!, 'v1');
    const validate = ajv.compile({ $ref: 'v1#/paths/~1api~1v1~1workspace/get/responses/200/content/application~1json/schema' });
    const view = {
      id: 'wsp_1',
      organization_id: 'org_1',
      name: 'n',
      description: '',
      labels: {},
      max_concurrent_runs: null,
      version: 1,
      created_by_id: 'system',
      updated_by_id: 'system',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
    expect(validate(view)).toBe(true);
    expect(validate({ ...view, extra: 1 })).toBe(false);
    expect(validate({ ...view, version: '1' })).toBe(false);
    const { name: _name, ...missing } = view;
    expect(validate(missing)).toBe(false);
  });
});

describe('API reference page', () => {
  it('/docs answers the page, which loads only scripts the service serves', async () => {
    const response = await fetch(`${t.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/standalone.js', '/docs/init.js']);
    expect(html).not.toMatch(/https?:\/\//);
    for (const script of scripts) {
      const asset = await fetch(`${t.url}${script}`);
      expect(asset.status, script).toBe(200);
      expect(asset.headers.get('content-type'), script).toMatch(/^(text|application)\/javascript/);
      const text = await asset.text();
      expect(text.length, script).toBeGreaterThan(script.endsWith('standalone.js') ? 100_000 : 100);
    }
    const init = await (await fetch(`${t.url}/docs/init.js`)).text();
    expect(init).toContain('/api/v1/openapi.json');
    expect(init).toContain('/api/openapi.json');
    expect(init).toContain('withDefaultFonts: false');
  });
});

describe('deprecated routes', () => {
  const deprecated: Route = {
    method: 'GET',
    path: '/api/v1/old-workspace',
    operation: 'WorkspaceGet',
    surface: 'v1',
    result: 'workspace',
    deprecated: { since: '2026-01-01', sunset: '2026-07-01', successor: '/api/v1/workspace' },
  };

  it('answer with Deprecation, Sunset and the successor Link, and are marked deprecated in the document', async () => {
    const app = express();
    app.use(createRestRouter(createYogaServer(t.app.deps), { maxBodyBytes: 1024, routes: [deprecated] }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const token of [t.apiKey, 'wrong']) {
        // Errors carry the headers too: a client learns of the deprecation whatever it gets back.
        const response = await fetch(`${base}/api/v1/old-workspace`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(token === 'wrong' ? 401 : 200);
        expect(response.headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
        expect(response.headers.get('sunset')).toBe('Wed, 01 Jul 2026 00:00:00 GMT');
        expect(response.headers.get('link')).toBe('</api/v1/workspace>; rel="successor-version"');
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const document = buildOpenApi(getSchema(), 'v1', { routes: [...routes, deprecated] });
    const operation = document.paths['/api/v1/old-workspace']!.get!;
    expect(operation.deprecated).toBe(true);
    expect(Object.keys((operation.responses as any)['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(operation.description).toMatch(/Deprecated\*\* since 2026-01-01; may be removed after 2026-07-01/);
    expect((await new Validator().validate(document)).valid).toBe(true);
  });

  it('must give the minimum notice', () => {
    expect(() => deprecationHeaders({ since: '2026-01-01', sunset: '2026-03-01' })).toThrow(/at least 180 days/);
    expect(() => deprecationHeaders({ since: '2026-1-1', sunset: '2027-03-01' })).toThrow(/YYYY-MM-DD/);
    expect(() =>
      createRestRouter(createYogaServer(t.app.deps), {
        maxBodyBytes: 1024,
        routes: [{ ...deprecated, deprecated: { since: '2026-01-01', sunset: '2026-01-02' } }],
      }),
    ).toThrow(/at least 180 days/);
  });
});
