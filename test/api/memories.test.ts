// Memories and their records on the built-in provider: CRUD, provider cursors, last writer wins,
// record id limits, lexical search with scores, provenance, tenancy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createApiKey, createWorkspace } from '../../src/services/admin.js';

let t: TestApp;
let otherKey: string;
let readOnly: string;
beforeAll(async () => {
  t = await startTestApp();
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
});
afterAll(async () => {
  await t.stop();
});

async function memory(name = 'Notes') {
  const response = await t.rest('POST', '/api/v1/memories', { body: { name, description: 'team notes', labels: { area: 'ops' } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response;
}

describe('memories', () => {
  it('are live resources on the built-in provider by default', async () => {
    const created = await memory();
    expect(created.body).toMatchObject({ name: 'Notes', labels: { area: 'ops' }, enabled: true, version: 1, embedding_model: null });
    expect(created.body.id).toMatch(/^mem_/);
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    const provider = await t.rest('GET', `/api/v1/memory-providers/${created.body.provider_id}`);
    expect(provider.body).toMatchObject({ type: 'builtin', kind: 'memory' });
    const patched = await t.rest('PATCH', `/api/v1/memories/${created.body.id}`, { headers: { 'if-match': created.headers.get('etag')! }, body: { name: 'Runbooks' } });
    expect(patched.body).toMatchObject({ name: 'Runbooks', version: 2 });
    expect((await t.rest('GET', '/api/v1/memories?q=runbook')).body.items.map((m: { id: string }) => m.id)).toContain(created.body.id);
    expect((await t.rest('DELETE', `/api/v1/memories/${created.body.id}`)).status).toBe(405);
  });
});

describe('records', () => {
  it('add, list with the provider cursor, and replace (last writer wins)', async () => {
    const m = (await memory()).body;
    const added = await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'The deploy runbook lives in the wiki.' } });
    expect(added.status).toBe(201);
    expect(added.body.id.length).toBeLessThanOrEqual(256);
    expect(added.body.provenance).toMatchObject({ content_matches: true, created: { principal_id: expect.stringMatching(/^key_/), run_id: null }, last_write: { principal_id: expect.any(String) } });
    for (let i = 0; i < 55; i++) await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: `note ${i}` } });
    const first = await t.rest('GET', `/api/v1/memories/${m.id}/records`);
    expect(first.body.items).toHaveLength(50);
    const second = await t.rest('GET', `/api/v1/memories/${m.id}/records?cursor=${encodeURIComponent(first.body.next_cursor)}`);
    expect(second.body.items).toHaveLength(6);
    expect(second.body.next_cursor).toBeNull();
    expect(new Set([...first.body.items, ...second.body.items].map((r: { id: string }) => r.id)).size).toBe(56);
    expect((await t.rest('GET', `/api/v1/memories/${m.id}/records?limit=1`)).body.items).toHaveLength(1);
    for (const bad of ['limit=0', 'limit=101']) expect((await t.rest('GET', `/api/v1/memories/${m.id}/records?${bad}`)).status).toBe(400);
    // Replace: last writer wins under concurrent PUTs; no version.
    const id = 'runbook/deploy';
    const writes = await Promise.all(Array.from({ length: 8 }, (_, i) => t.rest('PUT', `/api/v1/memories/${m.id}/records/${encodeURIComponent(id)}`, { body: { text: `version ${i}` } })));
    expect(writes.every((w) => w.status === 200)).toBe(true);
    const finalText = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'version' } })).body.items.find((r: { id: string }) => r.id === id)?.text;
    expect(writes.map((w) => w.body.text)).toContain(finalText);
    const replaced = await t.rest('PUT', `/api/v1/memories/${m.id}/records/${encodeURIComponent(id)}`, { body: { text: 'final' } });
    expect(replaced.body).toMatchObject({ id, text: 'final', provenance: { content_matches: false } });
    expect(replaced.body).not.toHaveProperty('version');
    expect((await t.rest('PUT', `/api/v1/memories/${m.id}/records/${'x'.repeat(256)}`, { body: { text: 'ok' } })).status).toBe(200);
    const tooLong = await t.rest('PUT', `/api/v1/memories/${m.id}/records/${'x'.repeat(257)}`, { body: { text: 'no' } });
    expect(tooLong.status).toBe(400);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: {} })).status).toBe(400);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'x', extra: 1 } })).status).toBe(400);
  });

  it('search by similarity: relevant records first, with scores; typos still match', async () => {
    const m = (await memory('Search')).body;
    const texts = ['Postgres backups run nightly at 02:00 UTC', 'The cafeteria serves lunch at noon', 'Restore a postgres backup with pg_restore', 'Kubernetes pods restart on failure'];
    for (const text of texts) await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text } });
    const result = await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgres backup' } });
    expect(result.status).toBe(200);
    const found = result.body.items as { text: string; score: number }[];
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.slice(0, 2).map((r) => r.text).sort()).toEqual([texts[0], texts[2]].sort());
    expect(found.every((r) => r.score > 0 && r.score <= 1)).toBe(true);
    expect([...found].sort((a, b) => b.score - a.score)).toEqual(found);
    expect(found.map((r) => r.text)).not.toContain(texts[1]);
    const typo = await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'kubernets' } });
    expect(typo.body.items[0]?.text).toBe(texts[3]);
    const limited = await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgres', limit: 1 } });
    expect(limited.body.items).toHaveLength(1);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: {} })).status).toBe(400);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'x', min_score: 2 } })).status).toBe(400);
  });

  it('with an embedding model: records are embedded and search fuses vector and lexical scores', async () => {
    const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev' } })).body;
    await t.rest('POST', '/api/v1/models', { body: { key: 'embedder', provider_id: provider.id, provider_model: 'hash-256' } });
    const created = await t.rest('POST', '/api/v1/memories', { body: { name: 'Vectors', embedding_model: 'embedder' } });
    expect(created.status).toBe(201);
    expect(created.body.embedding_model).toBe('embedder');
    const m = created.body;
    const texts = ['Nightly PostgreSQL backups are kept for thirty days', 'Lunch is served at noon in the cafeteria', 'Restoring databases from backups takes an hour'];
    for (const text of texts) await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text } });
    const stored = await t.app.deps.db.memoryRecord.findMany({ where: { namespace: m.id }, select: { embedding: true } });
    expect(stored.every((row) => row.embedding.length === 256)).toBe(true);
    const result = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgresql backup retention' } })).body.items as { text: string; score: number }[];
    expect(result[0]!.text).toBe(texts[0]);
    expect(result.map((r) => r.text)).not.toContain(texts[1]);
    expect([...result].sort((a, b) => b.score - a.score)).toEqual(result);
    // A later write is seen by the next search (the in-process vector index follows the table).
    await t.rest('PUT', `/api/v1/memories/${m.id}/records/late`, { body: { text: 'PostgreSQL backup retention policy: thirty days' } });
    const again = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgresql backup retention' } })).body.items;
    expect(again[0].id).toBe('late');
    // Embedding models must exist and be able to embed.
    const anthropic = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'anthropic', name: 'a', credential: { api_key: 'k' } } })).body;
    await t.rest('POST', '/api/v1/models', { body: { key: 'claude', provider_id: anthropic.id, provider_model: 'claude' } });
    expect((await t.rest('POST', '/api/v1/memories', { body: { name: 'x', embedding_model: 'claude' } })).status).toBe(400);
    expect((await t.rest('POST', '/api/v1/memories', { body: { name: 'x', embedding_model: 'nope' } })).status).toBe(404);
  });

  it('stay in their workspace, and need write to change', async () => {
    const m = (await memory()).body;
    const record = (await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'secret plan' } })).body;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/memories/${m.id}`], ['PATCH', `/api/v1/memories/${m.id}`, { name: 'x' }], ['GET', `/api/v1/memories/${m.id}/records`],
      ['POST', `/api/v1/memories/${m.id}/records`, { text: 'x' }], ['PUT', `/api/v1/memories/${m.id}/records/${record.id}`, { text: 'x' }],
      ['POST', `/api/v1/memories/${m.id}/records/search`, { query: 'plan' }],
    ];
    for (const [method, path, body] of calls) {
      expect((await t.rest(method, path, { token: otherKey, headers: { 'if-match': '*' }, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await t.rest('GET', '/api/v1/memories', { token: otherKey })).body.items).toEqual([]);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records`, { token: readOnly, body: { text: 'x' } })).status).toBe(403);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { token: readOnly, body: { query: 'plan' } })).status).toBe(200);
  });
});
