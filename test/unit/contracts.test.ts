// The compatibility check (docs/api/compatibility.md): the current GraphQL schema and OpenAPI documents
// make no breaking change against the committed baseline in contracts/, and the check itself tells
// breaking changes from additive ones. When this fails, either undo the breaking change, or — only for
// a change the policy allows (a removal after its sunset, or a new major version) — record the new
// baseline with `npm run contracts:baseline` and say why in the commit.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getSchema, printSortedSchema } from '../../src/graphql/schema.js';
import { isDocumentScalar } from '../../src/graphql/json-variables.js';
import { buildOpenApi } from '../../rest-shim/openapi.js';
import { graphqlBreakingChanges, openApiBreakingChanges } from '../../rest-shim/breaking-changes.js';

const CONTRACTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'contracts');
const baseline = (file: string) => readFileSync(join(CONTRACTS, file), 'utf8');
const clone = <T>(value: T): T => structuredClone(value);

describe('against the committed baseline', () => {
  it('the GraphQL schema makes no breaking change', () => {
    // Input fields that went from JSON to a document scalar are allowed (docs/api/compatibility.md):
    // v1 variables declared JSON stay valid there.
    const documentScalars = new Set(Object.values(getSchema().getTypeMap()).flatMap((type) => (isDocumentScalar(type) ? [type.name] : [])));
    expect(graphqlBreakingChanges(baseline('schema.graphql'), printSortedSchema(), documentScalars)).toEqual([]);
  });

  it.each([
    ['v1', 'openapi-v1.json'],
    ['support', 'openapi-support.json'],
  ] as const)('the %s OpenAPI document makes no breaking change', (surface, file) => {
    expect(openApiBreakingChanges(JSON.parse(baseline(file)), buildOpenApi(getSchema(), surface))).toEqual([]);
  });
});

describe('the GraphQL check', () => {
  const sdl =
    'type Query { thing(id: ID!, q: String): Thing }\ntype Thing { id: ID!, name: String, status: Status! }\nenum Status { ON OFF }';
  it('flags removed fields, removed enum values, newly required arguments and changed types', () => {
    expect(graphqlBreakingChanges(sdl, sdl.replace('name: String, ', ''))).toEqual([expect.stringMatching(/^FIELD_REMOVED: Thing\.name/)]);
    expect(graphqlBreakingChanges(sdl, sdl.replace('ON OFF', 'ON'))).toEqual([expect.stringMatching(/^VALUE_REMOVED_FROM_ENUM/)]);
    expect(graphqlBreakingChanges(sdl, sdl.replace('q: String', 'q: String!'))).toEqual([expect.stringMatching(/^ARG_CHANGED_KIND/)]);
    expect(graphqlBreakingChanges(sdl, sdl.replace('status: Status!', 'status: Status'))).toEqual([
      expect.stringMatching(/^FIELD_CHANGED_KIND/),
    ]);
  });
  it('lets an input go from JSON to a document scalar, and nothing else', () => {
    const json =
      'scalar JSON\nscalar Labels\ntype Query { thing(labels: JSON, tags: [JSON!]): Thing }\ninput ThingInput { labels: JSON! }\ntype Thing { labels: JSON }';
    const documents = new Set(['Labels']);
    expect(
      graphqlBreakingChanges(json, json.replace('labels: JSON,', 'labels: Labels,').replace('labels: JSON!', 'labels: Labels!'), documents),
    ).toEqual([]);
    expect(graphqlBreakingChanges(json, json.replace('[JSON!]', '[Labels!]'), documents)).toEqual([]);
    // Not a document scalar, another nullability, an output field: still breaking.
    expect(graphqlBreakingChanges(json, json.replace('labels: JSON!', 'labels: Labels!'), new Set())).toHaveLength(1);
    expect(graphqlBreakingChanges(json, json.replace('labels: JSON!', 'labels: Labels'), documents)).toHaveLength(1);
    expect(graphqlBreakingChanges(json, json.replace('labels: JSON }', 'labels: Labels }'), documents)).toEqual([
      expect.stringMatching(/^FIELD_CHANGED_KIND: Thing\.labels/),
    ]);
  });
  it('accepts additions', () => {
    const added = sdl
      .replace('ON OFF', 'ON OFF PAUSED')
      .replace('q: String', 'q: String, limit: Int')
      .replace('name: String,', 'name: String, note: String,');
    expect(graphqlBreakingChanges(sdl, added)).toEqual([]);
  });
});

describe('the OpenAPI check', () => {
  const document = buildOpenApi(getSchema(), 'v1');
  const workspace = (d: any) => d.paths['/api/v1/workspace'];
  // The workspace's REST view: a component (shared by the routes that answer it).
  const workspaceView = (d: any) => {
    const schema = workspace(d).get.responses['200'].content['application/json'].schema;
    return schema.$ref ? d.components.schemas[schema.$ref.split('/').pop()] : schema;
  };

  it('finds nothing between a document and itself', () => {
    expect(openApiBreakingChanges(document, clone(document))).toEqual([]);
  });

  it('flags a removed operation, a removed or loosened answer member, and a changed success status', () => {
    const removed = clone(document) as any;
    delete removed.paths['/api/v1/connections/{connection_id}'].patch;
    expect(openApiBreakingChanges(document, removed)).toEqual(['PATCH /api/v1/connections/{connection_id}: operation removed']);

    const member = clone(document) as any;
    delete workspaceView(member).properties.description;
    expect(openApiBreakingChanges(document, member)).toContain('GET /api/v1/workspace 200.description: removed');

    const optional = clone(document) as any;
    workspaceView(optional).required = workspaceView(optional).required.filter((name: string) => name !== 'name');
    expect(openApiBreakingChanges(document, optional)).toContain('GET /api/v1/workspace 200.name: no longer always present');

    const nullable = clone(document) as any;
    workspaceView(nullable).properties.name.type = ['string', 'null'];
    expect(openApiBreakingChanges(document, nullable)).toContain(
      'GET /api/v1/workspace 200.name: type null is now sent but was not described',
    );

    const status = clone(document) as any;
    workspace(status).get.responses['201'] = workspace(status).get.responses['200'];
    delete workspace(status).get.responses['200'];
    expect(openApiBreakingChanges(document, status)).toEqual(['GET /api/v1/workspace: no longer answers 200 (now 201)']);

    const etag = clone(document) as any;
    delete workspace(etag).get.responses['200'].headers.ETag;
    expect(openApiBreakingChanges(document, etag)).toEqual(['GET /api/v1/workspace 200: header ETag removed']);
  });

  it('flags requests the baseline accepted that are refused now', () => {
    const required = clone(document) as any;
    const body = workspace(required).patch.requestBody.content['application/json'].schema;
    body.required = [...(body.required ?? []), 'name'];
    expect(openApiBreakingChanges(document, required)).toContain('PATCH /api/v1/workspace body.name: newly required');

    const enumValue = clone(document) as any;
    enumValue.components.schemas.RunStatus.enum = enumValue.components.schemas.RunStatus.enum.filter((v: string) => v !== 'failed');
    expect(openApiBreakingChanges(document, enumValue)).toContain(
      'GET /api/v1/runs parameter query status[]: enum value(s) removed: "failed"',
    );

    const parameter = clone(document) as any;
    parameter.paths['/api/v1/runs'].get.parameters = parameter.paths['/api/v1/runs'].get.parameters.filter(
      (p: any) => p.name !== 'q' && p.name !== 'label',
    );
    expect(openApiBreakingChanges(document, parameter)).toContain('GET /api/v1/runs: parameter query label removed');

    const header = clone(document) as any;
    header.paths['/api/v1/runs/{run_id}/fork'].post.parameters.push({
      name: 'X-Extra',
      in: 'header',
      required: true,
      schema: { type: 'string' },
    });
    expect(openApiBreakingChanges(document, header)).toEqual(['POST /api/v1/runs/{run_id}/fork: new required parameter header x-extra']);

    const narrowed = clone(document) as any;
    narrowed.paths['/api/v1/runs'].get.parameters.find((p: any) => p.name === 'limit').schema = { type: 'string', enum: ['10'] };
    expect(openApiBreakingChanges(document, narrowed)).toEqual(
      expect.arrayContaining([expect.stringMatching(/parameter query limit: type integer is no longer accepted/)]),
    );
  });

  it('accepts additions: a new operation, a new answer member, a new optional parameter, a new enum value', () => {
    const added = clone(document) as any;
    added.paths['/api/v1/widgets'] = { get: clone(workspace(document).get) };
    workspaceView(added).properties.color = { type: 'string' };
    added.paths['/api/v1/runs'].get.parameters.push({ name: 'color', in: 'query', required: false, schema: { type: 'string' } });
    added.components.schemas.RunStatus.enum.push('paused_forever');
    const body = workspace(added).patch.requestBody.content['application/json'].schema;
    body.properties.color = { type: 'string' };
    expect(openApiBreakingChanges(document, added)).toEqual([]);
  });
});
