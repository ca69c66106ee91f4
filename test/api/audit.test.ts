// The audit trail's read interface: tenancy, filters and keyset paging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let other: { id: string; apiKey: string };
const CHANGES = 500;

beforeAll(async () => {
  t = await startTestApp();
  const created = await createWorkspace(t.app.deps, { name: 'other' });
  other = { id: created.workspace.id, apiKey: created.apiKey.token };
  // 500 effective changes, each audited once (through the public API).
  for (let i = 0; i < CHANGES; i++) {
    const response = await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': '*' }, body: { description: `change ${i}` } });
    expect(response.status).toBe(200);
  }
  await t.rest('PATCH', '/api/v1/workspace', { token: other.apiKey, headers: { 'if-match': '*' }, body: { name: 'B changed' } });
}, 180_000);
afterAll(async () => {
  await t.stop();
});

describe('GET /api/v1/audit-events', () => {
  it('walks every event exactly once with keyset cursors, newest first', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?resource_kind=workspace&action=update&limit=37${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const response = await t.rest('GET', `/api/v1/audit-events${query}`);
      expect(response.status).toBe(200);
      expect(response.body.items.length).toBeLessThanOrEqual(37);
      seen.push(...response.body.items.map((item: { id: string }) => item.id));
      cursor = response.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(CHANGES / 37));
    expect(seen).toHaveLength(CHANGES);
    expect(new Set(seen).size).toBe(CHANGES);
    expect([...seen].sort().reverse()).toEqual(seen);
  });

  it('keeps later pages stable while new events arrive', async () => {
    const first = await t.rest('GET', '/api/v1/audit-events?limit=10');
    await t.rest('PATCH', '/api/v1/workspace', { headers: { 'if-match': '*' }, body: { description: 'arrives mid-walk' } });
    const second = await t.rest('GET', `/api/v1/audit-events?limit=10&cursor=${first.body.next_cursor}`);
    const ids = [...first.body.items, ...second.body.items].map((item: { id: string }) => item.id);
    expect(new Set(ids).size).toBe(20);
    expect(second.body.items[0].id < first.body.items[9].id).toBe(true);
  });

  it("never shows another workspace's events", async () => {
    const mine = await t.rest('GET', '/api/v1/audit-events?limit=100', { token: other.apiKey });
    expect(mine.body.items.length).toBeGreaterThan(0);
    for (const item of mine.body.items) expect(item.workspace_id).toBe(other.id);
    const theirs = await t.rest('GET', `/api/v1/audit-events?resource_id=${t.workspaceId}`, { token: other.apiKey });
    expect(theirs.body.items).toEqual([]);
  });

  it('filters by resource, kind, principal and time range', async () => {
    const byPrincipal = await t.rest('GET', `/api/v1/audit-events?principal_id=system&limit=100`);
    expect(byPrincipal.body.items.length).toBeGreaterThan(0);
    for (const item of byPrincipal.body.items) expect(item.principal_id).toBe('system');
    const byKind = await t.rest('GET', `/api/v1/audit-events?resource_kind=api_key`);
    expect(byKind.body.items.map((item: { resource_kind: string }) => item.resource_kind)).toEqual(['api_key']);
    const newest = (await t.rest('GET', '/api/v1/audit-events?limit=1')).body.items[0];
    const at = new Date(newest.created_at);
    const before = await t.rest('GET', `/api/v1/audit-events?created_before=${encodeURIComponent(at.toISOString())}&limit=100`);
    for (const item of before.body.items) expect(new Date(item.created_at).getTime()).toBeLessThan(at.getTime());
    const after = await t.rest('GET', `/api/v1/audit-events?created_after=${encodeURIComponent(new Date(at.getTime() - 1).toISOString())}`);
    expect(after.body.items.map((item: { id: string }) => item.id)).toContain(newest.id);
  });

  it('refuses bad limits, cursors and timestamps with 400 naming the parameter', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['cursor=not-a-cursor!', 'cursor'],
      ['cursor=eyJsIjoib3RoZXIiLCJrIjpbXX0', 'cursor'],
      ['created_after=yesterday', 'created_after'],
    ] as const) {
      const response = await t.rest('GET', `/api/v1/audit-events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    expect((await t.rest('GET', '/api/v1/audit-events?limit=1')).status).toBe(200);
    expect((await t.rest('GET', '/api/v1/audit-events?limit=100')).status).toBe(200);
  });

  it('is served by GraphQL too', async () => {
    const { data, errors } = await t.graphql(
      '{ auditEvents(first: 2, resourceKind: "workspace") { nodes { id action resourceId } pageInfo { hasNextPage endCursor } } }',
    );
    expect(errors).toBeUndefined();
    expect(data.auditEvents.nodes).toHaveLength(2);
    expect(data.auditEvents.pageInfo).toEqual({ hasNextPage: true, endCursor: expect.any(String) });
  });
});
