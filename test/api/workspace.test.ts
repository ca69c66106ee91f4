// The workspace resource exercises every convention: ETag/If-Match, versions, audit, no-op
// updates, validation of bodies, concurrency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ maxBodyBytes: 64 * 1024 });
});
afterAll(async () => {
  await t.stop();
});

async function current() {
  const response = await t.rest('GET', '/api/v1/workspace');
  expect(response.status).toBe(200);
  return response;
}

async function auditCount(resourceId: string) {
  const response = await t.rest('GET', `/api/v1/audit-events?resource_id=${resourceId}&limit=100`);
  return response.body.items.length as number;
}

describe('GET /api/v1/workspace', () => {
  it('returns the view with an ETag of the form "{id}:{version}"', async () => {
    const { body, headers } = await current();
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({ id: t.workspaceId, name: 'default', description: '', labels: {}, version: 1 });
    expect(headers.get('etag')).toBe(`"${body.id}:${body.version}"`);
    for (const field of ['organization_id', 'created_by_id', 'updated_by_id']) expect(typeof body[field]).toBe('string');
    for (const field of ['created_at', 'updated_at']) expect(new Date(body[field]).toISOString()).toBe(body[field]);
    expect(body).not.toHaveProperty('etag');
  });
});

describe('PATCH /api/v1/workspace', () => {
  it('applies an effective change: version +1, new ETag, one audit row', async () => {
    const before = await current();
    const audits = await auditCount(t.workspaceId);
    const response = await t.rest('PATCH', '/api/v1/workspace', {
      headers: { 'if-match': before.headers.get('etag')! },
      body: { name: 'Acme', description: 'the team', labels: { team: 'core', 'example.com/tier': 'gold' } },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'Acme',
      description: 'the team',
      labels: { team: 'core', 'example.com/tier': 'gold' },
      version: before.body.version + 1,
    });
    expect(response.headers.get('etag')).toBe(`"${t.workspaceId}:${before.body.version + 1}"`);
    expect(new Date(response.body.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(before.body.updated_at).getTime());
    expect(await auditCount(t.workspaceId)).toBe(audits + 1);
    const events = await t.rest('GET', `/api/v1/audit-events?resource_id=${t.workspaceId}&limit=1`);
    expect(events.body.items[0]).toMatchObject({ action: 'update', resource_kind: 'workspace', version: before.body.version + 1 });
    expect(events.body.items[0].changes.name).toEqual({ from: before.body.name, to: 'Acme' });
  });

  it('keeps the version and records nothing for a no-op change (label order does not matter)', async () => {
    const before = await current();
    const audits = await auditCount(t.workspaceId);
    const reordered = Object.fromEntries(Object.entries(before.body.labels).reverse());
    const response = await t.rest('PATCH', '/api/v1/workspace', {
      headers: { 'if-match': before.headers.get('etag')! },
      body: { name: before.body.name, labels: reordered },
    });
    expect(response.status).toBe(200);
    expect(response.body.version).toBe(before.body.version);
    expect(response.headers.get('etag')).toBe(before.headers.get('etag'));
    expect(response.body.updated_at).toBe(before.body.updated_at);
    expect(await auditCount(t.workspaceId)).toBe(audits);
  });

  it('refuses a missing If-Match with 428 and a stale or foreign one with 412', async () => {
    const before = await current();
    const missing = await t.rest('PATCH', '/api/v1/workspace', { body: { name: 'x' } });
    expect(missing.status).toBe(428);
    expect(missing.body.error.code).toBe('precondition_required');
    const stale = await t.rest('PATCH', '/api/v1/workspace', {
      headers: { 'if-match': `"${t.workspaceId}:${before.body.version - 1}"` },
      body: { name: 'x' },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error.code).toBe('precondition_failed');
    const foreign = await t.rest('PATCH', '/api/v1/workspace', {
      headers: { 'if-match': `"wsp_other:${before.body.version}"` },
      body: { name: 'x' },
    });
    expect(foreign.status).toBe(412);
    expect((await current()).body.name).toBe(before.body.name);
  });

  it('lets exactly one of several concurrent writers holding the same ETag win', async () => {
    const before = await current();
    const etag = before.headers.get('etag')!;
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { name: `writer-${i}` } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(7);
    const after = await current();
    expect(after.body.version).toBe(before.body.version + 1);
    expect(after.body.name).toBe(results.find((r) => r.status === 200)!.body.name);
  });

  it('refuses unknown fields, wrong types, malformed JSON and oversize bodies with 400 naming the problem', async () => {
    const etag = (await current()).headers.get('etag')!;
    const unknown = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { name: 'ok', colour: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'colour' } });
    const wrongType = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { name: 42 } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'name' } });
    const badLabel = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { labels: { team: 7 } } });
    expect(badLabel.status).toBe(400);
    expect(badLabel.body.error.details.field).toBe('labels.team');
    const malformed = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, rawBody: '{"name": "x"' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'body' } });
    expect(malformed.body.error.message).toMatch(/not valid JSON/);
    const oversize = await t.rest('PATCH', '/api/v1/workspace', {
      headers: { 'if-match': etag },
      body: { description: 'x'.repeat(70 * 1024) },
    });
    expect(oversize.status).toBe(400);
    expect(oversize.body.error.details).toMatchObject({ field: 'body', limit_bytes: 64 * 1024 });
    const notObject = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: [1, 2] });
    expect(notObject.status).toBe(400);
    expect((await current()).headers.get('etag')).toBe(etag);
  });

  it('limits labels to 32 with valid keys', async () => {
    const etag = (await current()).headers.get('etag')!;
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
    const tooMany = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { labels: labels(33) } });
    expect(tooMany.status).toBe(400);
    const badKey = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { labels: { 'bad key': 'x' } } });
    expect(badKey.status).toBe(400);
    const ok = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': etag }, body: { labels: labels(32) } });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.labels)).toHaveLength(32);
  });

  it('answers an operation the path does not serve with 405 and Allow', async () => {
    const response = await t.rest('DELETE', '/api/v1/workspace');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PATCH');
    expect(response.body.error.code).toBe('method_not_allowed');
    const unknown = await t.rest('GET', '/api/v1/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('is the same resource through GraphQL, with etag as a field', async () => {
    const { data } = await t.graphql('{ workspace { id version etag name } }');
    const rest = await current();
    expect(data.workspace.etag).toBe(rest.headers.get('etag'));
    const { data: updated, errors } = await t.graphql(
      'mutation($ifMatch: String, $input: UpdateWorkspaceInput!) { updateWorkspace(ifMatch: $ifMatch, input: $input) { workspace { version name } } }',
      { ifMatch: data.workspace.etag, input: { name: 'via graphql' } },
    );
    expect(errors).toBeUndefined();
    expect(updated.updateWorkspace.workspace).toEqual({ version: data.workspace.version + 1, name: 'via graphql' });
    const stale = await t.graphql('mutation($i: String) { updateWorkspace(ifMatch: $i, input: {name: "x"}) { workspace { version } } }', {
      i: data.workspace.etag,
    });
    expect(stale.errors?.[0]?.extensions?.code).toBe('precondition_failed');
  });
});
