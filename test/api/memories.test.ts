// Memories and their records on the built-in provider: CRUD, provider cursors, last writer wins,
// record id limits, lexical search with scores, provenance, tenancy; search at scale (bounded lexical
// candidates, the vector index following writes of other instances).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import pg from 'pg';
import { heldVectorIndexes, LEXICAL_CANDIDATE_CAP, loadVectors, warmVectorIndexes } from '../../src/memory-stores/builtin.js';
import { VectorIndex } from '../../src/lib/vector-index.js';
import { hashEmbedding } from '../../src/providers/hash-embeddings.js';
import { createApiKey, createUser, createWorkspace } from '../../src/features/access/admin.js';
import { sha256Hex } from '../../src/lib/canonical-json.js';

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
    const patched = await t.rest('PATCH', `/api/v1/memories/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { name: 'Runbooks' },
    });
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
    expect(added.body.provenance).toMatchObject({
      content_matches: true,
      created: { principal_id: expect.stringMatching(/^key_/), run_id: null },
      last_write: { principal_id: expect.any(String) },
    });
    // The stored provenance keeps a SHA-256 of the created text, not a second copy of it.
    const stored = await t.app.deps.db.memoryRecord.findFirstOrThrow({ where: { namespace: m.id, id: added.body.id } });
    expect(stored.provenance).toMatchObject({ created_text_sha256: sha256Hex('The deploy runbook lives in the wiki.') });
    expect(JSON.stringify(stored.provenance)).not.toContain('The deploy runbook');
    // GraphQL: the same provenance, typed.
    const typed = await t.graphql(
      `query ($m: ID!) { memoryRecords(memoryId: $m, first: 1) { nodes { id provenance { contentMatches
        created { principalId principalName runId toolCallId attemptId confirmedAt } lastWrite { principalId } } } } }`,
      { m: m.id },
    );
    expect(typed.errors).toBeUndefined();
    const [node] = typed.data.memoryRecords.nodes;
    expect(node.id).toBe(added.body.id);
    expect(node.provenance).toEqual({
      contentMatches: true,
      created: {
        principalId: added.body.provenance.created.principal_id,
        principalName: added.body.provenance.created.principal_name,
        runId: null,
        toolCallId: null,
        attemptId: null,
        confirmedAt: added.body.provenance.created.confirmed_at,
      },
      lastWrite: { principalId: added.body.provenance.last_write.principal_id },
    });
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
    const writes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        t.rest('PUT', `/api/v1/memories/${m.id}/records/${encodeURIComponent(id)}`, { body: { text: `version ${i}` } }),
      ),
    );
    expect(writes.every((w) => w.status === 200)).toBe(true);
    const finalText = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'version' } })).body.items.find(
      (r: { id: string }) => r.id === id,
    )?.text;
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

  it('refuse a replacement without text, and leave the record as it was', async () => {
    const m = (await memory()).body;
    const path = `/api/v1/memories/${m.id}/records/kept`;
    expect((await t.rest('PUT', path, { body: { text: 'original' } })).status).toBe(200);
    for (const body of [{}, { text: null }, { text: 5 }]) {
      const refused = await t.rest('PUT', path, { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_argument', details: { field: 'text' } });
    }
    expect((await t.rest('PUT', path, {})).status).toBe(400);
    const listed = (await t.rest('GET', `/api/v1/memories/${m.id}/records`)).body.items;
    expect(listed.map((record: { id: string; text: string }) => [record.id, record.text])).toEqual([['kept', 'original']]);
  });

  it('score is 0 outside search; provenance names the writing principal (key name, user name, else email)', async () => {
    const m = (await memory('Who')).body;
    const writer = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write', name: 'ci-writer' })).token;
    const added = await t.rest('POST', `/api/v1/memories/${m.id}/records`, { token: writer, body: { text: 'Backups run nightly.' } });
    expect(added.status).toBe(201);
    expect(added.body.score).toBe(0);
    expect(added.body.provenance.created).toMatchObject({
      principal_name: 'ci-writer',
      run_id: null,
      attempt_id: null,
      tool_call_id: null,
    });
    expect((await t.rest('GET', `/api/v1/memories/${m.id}/records`)).body.items.map((r: { score: number }) => r.score)).toEqual([0]);
    expect(
      (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'backups nightly' } })).body.items[0].score,
    ).toBeGreaterThan(0);

    const login = async (email: string, name?: string) => {
      await createUser(t.app.deps, {
        email,
        password: 'correct horse',
        workspaceId: t.workspaceId,
        role: 'writer',
        ...(name ? { name } : {}),
      });
      const session = await t.rest('POST', '/api/auth/login', { token: null, body: { email, password: 'correct horse' } });
      expect(session.status, JSON.stringify(session.body)).toBe(200);
      return session.body.token as string;
    };
    const ada = await login('ada@example.com', 'Ada Lovelace');
    const path = `/api/v1/memories/${m.id}/records/${added.body.id}`;
    const byAda = await t.rest('PUT', path, {
      token: ada,
      headers: { 'x-workspace-id': t.workspaceId },
      body: { text: 'Backups run at 02:00.' },
    });
    expect(byAda.body.provenance).toMatchObject({
      created: { principal_name: 'ci-writer' },
      last_write: { principal_name: 'Ada Lovelace', principal_id: expect.stringMatching(/^usr_/) },
    });
    const nameless = await login('grace@example.com');
    const byGrace = await t.rest('PUT', path, {
      token: nameless,
      headers: { 'x-workspace-id': t.workspaceId },
      body: { text: 'Backups run at 03:00.' },
    });
    expect(byGrace.body.provenance.last_write.principal_name).toBe('grace@example.com');
  });

  it('search by similarity: relevant records first, with scores; typos still match', async () => {
    const m = (await memory('Search')).body;
    const texts = [
      'Postgres backups run nightly at 02:00 UTC',
      'The cafeteria serves lunch at noon',
      'Restore a postgres backup with pg_restore',
      'Kubernetes pods restart on failure',
    ];
    for (const text of texts) await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text } });
    const result = await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgres backup' } });
    expect(result.status).toBe(200);
    const found = result.body.items as { text: string; score: number }[];
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(
      found
        .slice(0, 2)
        .map((r) => r.text)
        .sort(),
    ).toEqual([texts[0], texts[2]].sort());
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

  it('search only with the query in the body: a query string is not served', async () => {
    const m = (await memory('Query string')).body;
    await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'Postgres backups run nightly' } });
    const search = `/api/v1/memories/${m.id}/records/search`;
    // The query travels in the body so that it stays out of URLs (logs, proxies): in the URL it is not read.
    const asGet = await t.rest('GET', `${search}?query=postgres`);
    expect(asGet.status).toBe(405);
    expect(asGet.body.error.code).toBe('method_not_allowed');
    // Allow names the search's POST, and the PUT of the record row whose path `search` also matches.
    expect(asGet.headers.get('allow')).toBe('POST, PUT');
    const noBody = await t.rest('POST', `${search}?query=postgres`);
    expect(noBody.status).toBe(400);
    expect(noBody.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'query' } });
    const emptyBody = await t.rest('POST', `${search}?query=postgres`, { body: {} });
    expect(emptyBody.status).toBe(400);
    expect(emptyBody.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'query' } });
    // The same query in the body is served.
    const served = await t.rest('POST', search, { body: { query: 'postgres' } });
    expect(served.body.items.map((record: { text: string }) => record.text)).toEqual(['Postgres backups run nightly']);
  });

  it('with an embedding model: records are embedded and search fuses vector and lexical scores', async () => {
    const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev' } })).body;
    await t.rest('POST', '/api/v1/models', { body: { key: 'embedder', provider_id: provider.id, provider_model: 'hash-256' } });
    const created = await t.rest('POST', '/api/v1/memories', { body: { name: 'Vectors', embedding_model: 'embedder' } });
    expect(created.status).toBe(201);
    expect(created.body.embedding_model).toBe('embedder');
    const m = created.body;
    const texts = [
      'Nightly PostgreSQL backups are kept for thirty days',
      'Lunch is served at noon in the cafeteria',
      'Restoring databases from backups takes an hour',
    ];
    for (const text of texts) await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text } });
    const stored = await t.app.deps.db.memoryRecord.findMany({ where: { namespace: m.id }, select: { embedding: true } });
    expect(stored.every((row) => row.embedding.length === 256)).toBe(true);
    const result = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgresql backup retention' } }))
      .body.items as { text: string; score: number }[];
    expect(result[0]!.text).toBe(texts[0]);
    expect(result.map((r) => r.text)).not.toContain(texts[1]);
    expect([...result].sort((a, b) => b.score - a.score)).toEqual(result);
    // A later write is seen by the next search (the in-process vector index follows the table).
    await t.rest('PUT', `/api/v1/memories/${m.id}/records/late`, { body: { text: 'PostgreSQL backup retention policy: thirty days' } });
    const again = (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'postgresql backup retention' } })).body
      .items;
    expect(again[0].id).toBe('late');
    // Embedding models must exist and be able to embed.
    const anthropic = (
      await t.rest('POST', '/api/v1/model-providers', { body: { type: 'anthropic', name: 'a', credential: { api_key: 'k' } } })
    ).body;
    await t.rest('POST', '/api/v1/models', { body: { key: 'claude', provider_id: anthropic.id, provider_model: 'claude' } });
    expect((await t.rest('POST', '/api/v1/memories', { body: { name: 'x', embedding_model: 'claude' } })).status).toBe(400);
    expect((await t.rest('POST', '/api/v1/memories', { body: { name: 'x', embedding_model: 'nope' } })).status).toBe(404);
  });

  it('stay in their workspace, and need write to change', async () => {
    const m = (await memory()).body;
    const record = (await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'secret plan' } })).body;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/memories/${m.id}`],
      ['PATCH', `/api/v1/memories/${m.id}`, { name: 'x' }],
      ['GET', `/api/v1/memories/${m.id}/records`],
      ['POST', `/api/v1/memories/${m.id}/records`, { text: 'x' }],
      ['PUT', `/api/v1/memories/${m.id}/records/${record.id}`, { text: 'x' }],
      ['POST', `/api/v1/memories/${m.id}/records/search`, { query: 'plan' }],
    ];
    for (const [method, path, body] of calls) {
      expect((await t.rest(method, path, { token: otherKey, headers: { 'if-match': '*' }, body })).status, `${method} ${path}`).toBe(404);
    }
    expect((await t.rest('GET', '/api/v1/memories', { token: otherKey })).body.items).toEqual([]);
    for (const [method, path, body] of [
      ['PATCH', `/api/v1/memories/${m.id}`, { name: 'x' }],
      ['POST', `/api/v1/memories/${m.id}/records`, { text: 'x' }],
      ['PUT', `/api/v1/memories/${m.id}/records/${record.id}`, { text: 'overwritten' }],
    ] as const) {
      const refused = await t.rest(method, path, { token: readOnly, headers: { 'if-match': '*' }, body });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'permission_denied', details: { permission: 'write' } });
    }
    const kept = (await t.rest('GET', `/api/v1/memories/${m.id}/records`)).body.items;
    expect(kept.map((r: { text: string }) => r.text)).toEqual(['secret plan']);
    expect((await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { token: readOnly, body: { query: 'plan' } })).status).toBe(
      200,
    );
  });
});

describe('search at scale', () => {
  let embedderReady = false;
  async function vectorMemory(name: string) {
    if (!embedderReady) {
      const provider = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev for scale' } })).body;
      expect(
        (await t.rest('POST', '/api/v1/models', { body: { key: 'scale-embedder', provider_id: provider.id, provider_model: 'hash-256' } }))
          .status,
      ).toBe(201);
      embedderReady = true;
    }
    const created = await t.rest('POST', '/api/v1/memories', { body: { name, embedding_model: 'scale-embedder' } });
    expect(created.status).toBe(201);
    return created.body as { id: string };
  }
  const search = async (app: TestApp, memoryId: string, query: string, limit = 10) => {
    const response = await app.rest('POST', `/api/v1/memories/${memoryId}/records/search`, { body: { query, limit } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.items as { id: string; text: string; score: number }[];
  };
  async function addMany(app: TestApp, memoryId: string, texts: string[]) {
    for (let i = 0; i < texts.length; i += 20) {
      const added = await Promise.all(
        texts.slice(i, i + 20).map((text) => app.rest('POST', `/api/v1/memories/${memoryId}/records`, { body: { text } })),
      );
      expect(added.every((r) => r.status === 201)).toBe(true);
    }
  }

  it('sees adds, replacements and deletions made through another instance on the same database', async () => {
    const other = await startTestApp({}, t);
    try {
      const m = await vectorMemory('Shared');
      await addMany(t, m.id, [
        'Invoices are sent on the first of the month',
        'The VPN needs a hardware token',
        'Coffee machine on floor three',
      ]);
      expect((await search(t, m.id, 'hardware token for the vpn'))[0]!.text).toBe('The VPN needs a hardware token'); // this instance's index is built
      // A record added through the other instance is found by this one's next search...
      const added = await other.rest('POST', `/api/v1/memories/${m.id}/records`, {
        body: { text: 'Quarterly budget review with finance' },
      });
      expect(added.status).toBe(201);
      expect((await search(t, m.id, 'quarterly budget review finance'))[0]!.id).toBe(added.body.id);
      // ...and so is a replacement: the old text's vector is gone, the new one is found.
      const vpn = (await search(t, m.id, 'hardware token for the vpn'))[0]!;
      expect(
        (await other.rest('PUT', `/api/v1/memories/${m.id}/records/${vpn.id}`, { body: { text: 'Parking permits are renewed in March' } }))
          .status,
      ).toBe(200);
      const afterReplace = await search(t, m.id, 'parking permits renewed march');
      expect(afterReplace[0]).toMatchObject({ id: vpn.id, text: 'Parking permits are renewed in March' });
      expect((await search(t, m.id, 'hardware token for the vpn')).map((r) => r.text)).not.toContain('The VPN needs a hardware token');
      // The other instance searches the same records (its own index, built on first use).
      expect((await search(other, m.id, 'parking permits renewed march'))[0]!.id).toBe(vpn.id);
      // A deletion (no API deletes records; storage may) makes indexes reload rather than serve it.
      await t.app.deps.db.memoryRecord.delete({
        where: {
          providerId_namespace_id: {
            providerId: (await t.rest('GET', `/api/v1/memories/${m.id}`)).body.provider_id,
            namespace: m.id,
            id: added.body.id,
          },
        },
      });
      for (const app of [t, other])
        expect((await search(app, m.id, 'quarterly budget review finance')).map((r) => r.id)).not.toContain(added.body.id);
      expect((await search(t, m.id, 'parking permits renewed march'))[0]!.id).toBe(vpn.id);
    } finally {
      await other.stop();
    }
  });

  it('a search whose index is still loading answers 503 index_loading (Retry-After) at once; recently searched memories warm at a start', async () => {
    const m = await vectorMemory('Loading');
    await addMany(t, m.id, ['Invoices are sent on the first of the month', 'The VPN needs a hardware token']);
    expect((await search(t, m.id, 'hardware token'))[0]!.text).toBe('The VPN needs a hardware token'); // records it as searched
    // A second instance with a cold index (no warm-up) and a short bound; its load is held by a lock
    // on the records table (the signal), so the search cannot finish before the bound.
    const cold = await startTestApp({ memoryIndexWaitMs: 200, memoryIndexWarmHours: 0 }, t);
    const locker = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE memory_records IN ACCESS EXCLUSIVE MODE');
      const loading = await cold.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'hardware token' } });
      expect(loading.status, JSON.stringify(loading.body)).toBe(503);
      expect(loading.body).toMatchObject({ error: { code: 'unavailable', details: { reason: 'index_loading' } } });
      expect(loading.headers.get('retry-after')).toBe('5');
      await locker.query('COMMIT');
      // The load went on: the search answers once it is done (each try is bounded by 200 ms).
      let answered = loading;
      for (let attempt = 0; attempt < 100 && answered.status === 503; attempt++)
        answered = await cold.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query: 'hardware token' } });
      expect(answered.status, JSON.stringify(answered.body)).toBe(200);
      expect(answered.body.items[0].text).toBe('The VPN needs a hardware token');
    } finally {
      await locker.end();
      await cold.stop();
    }
    // A third instance warms the memories searched lately: the memory's index is held before any search.
    const warm = await startTestApp({ memoryIndexWarmHours: 1 }, t);
    try {
      const budget = { maxMemories: 256, maxBytes: 2 ** 30 };
      await warmVectorIndexes(warm.app.deps.db, budget, { since: new Date(Date.now() - 3_600_000) });
      const providerId = (await t.rest('GET', `/api/v1/memories/${m.id}`)).body.provider_id;
      expect(heldVectorIndexes(warm.app.deps.db)).toContain(`${providerId}:${m.id}`);
    } finally {
      await warm.stop();
    }
    // A memory whose index would not fit the budget is not warmed (it would evict those warmed before it).
    const small = await startTestApp({ memoryIndexWarmHours: 0 }, t);
    try {
      const since = new Date(Date.now() - 3_600_000);
      expect(await warmVectorIndexes(small.app.deps.db, { maxMemories: 256, maxBytes: 1024 }, { since })).toEqual({ warmed: 0 });
      expect(heldVectorIndexes(small.app.deps.db)).toEqual([]);
    } finally {
      await small.stop();
    }
  });

  it("loads a memory's vectors page by page into the same index as one load, and only the changes after it", async () => {
    const m = await vectorMemory('Paged');
    const texts = Array.from({ length: 23 }, (_, i) => `note ${i} about ${['backups', 'invoices', 'tokens', 'parking'][i % 4]}`);
    await addMany(t, m.id, texts);
    const where = { providerId: (await t.rest('GET', `/api/v1/memories/${m.id}`)).body.provider_id as string, namespace: m.id };
    const db = t.app.deps.db;
    const whole = new VectorIndex(false);
    await loadVectors(db, where, -1, whole, 1000);
    const paged = new VectorIndex(false);
    await loadVectors(db, where, -1, paged, 4); // 6 pages, the last one short
    expect(paged.size).toBe(texts.length);
    const query = hashEmbedding('tokens note');
    expect(paged.topK(query, 30)).toEqual(whole.topK(query, 30));
    // Sized to the memory at once (no doubling): 23 rows of 256 floats, then the query and scores scratch.
    expect(paged.bytes).toBe((23 * 256 + 256 + 23) * 4);
    // Only the records stamped after a version: a replacement is applied in place.
    const [counter] = await db.$queryRaw<{ version: bigint }[]>`
      SELECT version FROM memory_record_versions WHERE provider_id = ${where.providerId} AND namespace = ${where.namespace}`;
    const first = (await search(t, m.id, 'note 0 about backups'))[0]!;
    await t.rest('PUT', `/api/v1/memories/${m.id}/records/${first.id}`, { body: { text: 'the cafeteria opens at noon' } });
    await loadVectors(db, where, Number(counter!.version), paged, 4);
    expect(paged.size).toBe(texts.length);
    expect(paged.topK(hashEmbedding('the cafeteria opens at noon'), 1)[0]).toMatchObject({ id: first.id });
  });

  it("corrects misspelled words against the memory's own words, also words of replaced records", async () => {
    const m = (await memory('Spelling')).body;
    const texts = [
      'Restore a postgres backup with pg_restore',
      'Rotate the API tokens every quarter',
      'The cafeteria serves lunch at noon',
    ];
    const ids: string[] = [];
    for (const text of texts) ids.push((await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text } })).body.id);
    const search = async (query: string) =>
      (await t.rest('POST', `/api/v1/memories/${m.id}/records/search`, { body: { query } })).body.items as {
        id: string;
        text: string;
        score: number;
      }[];
    // One misspelled word among correct ones, and two misspelled words.
    expect((await search('restor postgres'))[0]?.text).toBe(texts[0]);
    expect((await search('rotat the api tokns'))[0]?.text).toBe(texts[1]);
    expect((await search('rotat the api tokns')).map((r) => r.text)).not.toContain(texts[2]);
    // Corrected words find candidates; what counts is still the lexical score: the query's trigram
    // word similarity with the text (≥ 0.6) — scattered misspellings of a long text do not reach it.
    expect(await search('rotat tokens quartr')).toEqual([]);
    // Words that resemble nothing in the memory find nothing.
    expect(await search('xylophone zebra')).toEqual([]);
    // A replaced record's new words are known at once.
    await t.rest('PUT', `/api/v1/memories/${m.id}/records/${ids[2]}`, { body: { text: 'Kubernetes upgrades happen on Tuesdays' } });
    expect((await search('kuberntes upgrade'))[0]).toMatchObject({ id: ids[2], text: 'Kubernetes upgrades happen on Tuesdays' });
  });

  it(
    'bounds the lexical work yet ranks by exact scores: a strong match outside the full-text candidates still comes first',
    { tags: ['slow'] },
    async () => {
      // More records match the query word than the full-text candidate cap; the best record is written
      // last, so it is not among the candidates taken from the index — the vector part finds it and its
      // lexical score is computed exactly.
      const m = await vectorMemory('Crowded');
      await addMany(
        t,
        m.id,
        Array.from(
          { length: LEXICAL_CANDIDATE_CAP + 20 },
          (_, i) => `entry ${i} of the ledger mentions kiwi among other things like pears and plums`,
        ),
      );
      const best = (await t.rest('POST', `/api/v1/memories/${m.id}/records`, { body: { text: 'kiwi' } })).body;
      const found = await search(t, m.id, 'kiwi', 5);
      expect(found).toHaveLength(5);
      expect(found[0]!.id).toBe(best.id);
      expect(found.every((r) => r.text.includes('kiwi') && r.score > 0 && r.score <= 1)).toBe(true);
      expect([...found].sort((a, b) => b.score - a.score)).toEqual(found);
      // Without an embedding model: full-text matches beyond the cap are not all ranked, but every
      // result matches, and a limit beyond the candidates still answers with what matched.
      const plain = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Crowded, lexical' } })).body;
      await addMany(
        t,
        plain.id,
        Array.from({ length: LEXICAL_CANDIDATE_CAP + 20 }, (_, i) => `entry ${i} mentions kiwi`),
      );
      const lexical = await search(t, plain.id, 'kiwi', 100);
      expect(lexical).toHaveLength(100);
      expect(lexical.every((r) => r.text.includes('kiwi') && r.score > 0 && r.score <= 1)).toBe(true);
      // A repeated query word changes nothing (the full-text query uses distinct words).
      expect((await search(t, plain.id, 'kiwi KIWI kiwi', 100)).map((r) => r.score)).toEqual(lexical.map((r) => r.score));
    },
  );
});
