// Memories on an external vector database (the `pinecone` memory provider type) against a loopback
// server speaking Pinecone's data-plane API: records through REST, the provider's cursor, search by
// cosine, provenance, errors, the provider test, tenancy, and a run with a memory mount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startVectorDbServer, type VectorDbServer } from '../helpers/vector-db-server.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { openPineconeStore, PINECONE_API_VERSION } from '../../src/memory-stores/pinecone.js';
import { hashEmbedding } from '../../src/providers/hash-embeddings.js';
import { rememberingRun } from '../helpers/memory-runs.js';

let t: TestApp;
let db: VectorDbServer;
let providerId: string;
let otherKey: string;
const logLines: string[] = [];

beforeAll(async () => {
  db = await startVectorDbServer();
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] }, undefined, { logLines });
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  const dev = (await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'dev' } })).body;
  expect(
    (await t.rest('POST', '/api/v1/models', { body: { key: 'embedder', provider_id: dev.id, provider_model: 'hash-256' } })).status,
  ).toBe(201);
  const provider = await t.rest('POST', '/api/v1/memory-providers', {
    body: { type: 'pinecone', name: 'vectors', config: { index_host: db.url }, credential: { api_key: db.apiKey } },
  });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t.stop();
  await db.close();
});

async function memory(name = 'Vectors', provider = providerId) {
  const response = await t.rest('POST', '/api/v1/memories', { body: { name, provider_id: provider, embedding_model: 'embedder' } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}
const records = (memoryId: string) => `/api/v1/memories/${memoryId}/records`;

describe('the pinecone memory provider type', () => {
  it('is described, needs an index host and a key, and its memories need an embedding model', async () => {
    const types = (await t.rest('GET', '/api/v1/provider-types/memory')).body.items;
    expect(types.find((p: { type: string }) => p.type === 'pinecone')).toMatchObject({
      title: 'Pinecone (or a compatible vector database)',
      credential_required: true,
      test_supported: true,
      embedding_model_required: true,
      configuration_schema: { required: ['index_host'] },
    });
    expect(types.find((p: { type: string }) => p.type === 'builtin').embedding_model_required).toBe(false);
    const noHost = await t.rest('POST', '/api/v1/memory-providers', {
      body: { type: 'pinecone', name: 'x', config: {}, credential: { api_key: 'k' } },
    });
    expect(noHost.status).toBe(400);
    const plain = await t.rest('POST', '/api/v1/memory-providers', {
      body: { type: 'pinecone', name: 'x', config: { index_host: 'http://example.com' }, credential: { api_key: 'k' } },
    });
    expect(plain.body.error.details.field).toBe('config.index_host');
    expect(
      (await t.rest('POST', '/api/v1/memory-providers', { body: { type: 'pinecone', name: 'x', config: { index_host: db.url } } })).status,
    ).toBe(400);

    const refused = await t.rest('POST', '/api/v1/memories', { body: { name: 'no model', provider_id: providerId } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'embedding_model' } });
    const created = await t.rest('POST', '/api/v1/memories', {
      body: { name: 'with model', provider_id: providerId, embedding_model: 'embedder' },
    });
    expect(created.body).toMatchObject({ provider_id: providerId, embedding_model: 'embedder' });
    const removed = await t.rest('PATCH', `/api/v1/memories/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { embedding_model: null },
    });
    expect(removed.status).toBe(400);
    expect(removed.body.error.details.field).toBe('embedding_model');
  });
});

describe('records in the vector database', () => {
  it('add, list with the provider cursor across pages, replace keeping the created provenance', async () => {
    const m = await memory();
    const added = await t.rest('POST', records(m.id), { body: { text: 'The deploy runbook lives in the wiki.' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.stringMatching(/^rec_/), text: 'The deploy runbook lives in the wiki.', score: 0 });
    expect(added.body.provenance).toMatchObject({
      content_matches: true,
      created: { principal_id: expect.stringMatching(/^key_/), run_id: null, tool_call_id: null },
      last_write: { principal_id: expect.any(String) },
    });
    // Stored at the provider: one vector in the memory's namespace, text and provenance as metadata.
    const upsert = db.requests.at(-1)!;
    expect(upsert).toMatchObject({
      method: 'POST',
      path: '/vectors/upsert',
      headers: { 'api-key': db.apiKey, 'x-pinecone-api-version': PINECONE_API_VERSION },
      body: { namespace: m.id },
    });
    const stored = db.namespaces.get(m.id)!.get(added.body.id)!;
    expect(stored.values).toHaveLength(256);
    expect(stored.metadata).toMatchObject({
      text: 'The deploy runbook lives in the wiki.',
      provenance: expect.any(String),
      updated_at: added.body.updated_at,
    });

    for (let i = 0; i < 6; i++) expect((await t.rest('POST', records(m.id), { body: { text: `note ${i}` } })).status).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { status: number; body: { items: { id: string; text: string }[]; next_cursor: string | null } } = await t.rest(
        'GET',
        `${records(m.id)}?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.items.every((r) => r.text.length > 0)).toBe(true);
      seen.push(...page.body.items.map((r) => r.id));
      if (cursor) {
        // The provider's own pagination token went through, wrapped in an opaque cursor.
        const list = db.requests.filter((r) => r.path === '/vectors/list').at(-1)!;
        expect(list.query.get('paginationToken')).toBeTruthy();
        expect(cursor).not.toBe(list.query.get('paginationToken'));
      }
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(seen).toEqual([...seen].sort());
    expect((await t.rest('GET', records(m.id))).body.items).toHaveLength(7);
    // Over GraphQL every edge has a cursor, though the database pages by token only: the page after
    // any edge starts with the record that follows it (within a page and across the token).
    const connection = await t.graphql(
      'query ($id: ID!, $after: String) { memoryRecords(memoryId: $id, first: 3, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage endCursor } } }',
      { id: m.id },
    );
    expect(connection.errors).toBeUndefined();
    const edges = connection.data.memoryRecords.edges as { cursor: string; node: { id: string } }[];
    expect(edges.map((edge) => edge.node.id)).toEqual(seen.slice(0, 3));
    expect(connection.data.memoryRecords.pageInfo.endCursor).toBe(edges[2]!.cursor);
    for (const [index, edge] of edges.entries()) {
      const after = await t.graphql(
        'query ($id: ID!, $after: String) { memoryRecords(memoryId: $id, first: 3, after: $after) { nodes { id } } }',
        {
          id: m.id,
          after: edge.cursor,
        },
      );
      expect(after.errors).toBeUndefined();
      expect(
        after.data.memoryRecords.nodes.map((node: { id: string }) => node.id),
        `after edge ${index}`,
      ).toEqual(seen.slice(index + 1, index + 4));
    }
    for (const bad of ['limit=0', 'limit=101', 'cursor=bogus'])
      expect((await t.rest('GET', `${records(m.id)}?${bad}`)).status, bad).toBe(400);
    const other = await memory('Other');
    const first = (await t.rest('GET', `${records(m.id)}?limit=1`)).body.next_cursor;
    expect((await t.rest('GET', `${records(other.id)}?cursor=${encodeURIComponent(first)}`)).status).toBe(400);
    expect((await t.rest('GET', records(other.id))).body).toEqual({ items: [], next_cursor: null });

    // Replace: the text moves, `created` stays, `last_write` is the new write; no version.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const replaced = await t.rest('PUT', `${records(m.id)}/${added.body.id}`, {
      body: { text: 'The deploy runbook moved to the handbook.' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id: added.body.id,
      text: 'The deploy runbook moved to the handbook.',
      provenance: { content_matches: false, created: added.body.provenance.created },
    });
    expect(replaced.body.provenance.last_write.confirmed_at > added.body.provenance.created.confirmed_at).toBe(true);
    expect(replaced.body).not.toHaveProperty('version');
    // Writing the first text back makes the content match again.
    expect(
      (await t.rest('PUT', `${records(m.id)}/${added.body.id}`, { body: { text: 'The deploy runbook lives in the wiki.' } })).body
        .provenance.content_matches,
    ).toBe(true);
    // PUT of a new id creates it; ids up to 256 characters.
    const named = await t.rest('PUT', `${records(m.id)}/${encodeURIComponent('runbook/deploy')}`, { body: { text: 'first' } });
    expect(named.body).toMatchObject({ id: 'runbook/deploy', provenance: { content_matches: true } });
    expect(named.body.provenance.created).toEqual(named.body.provenance.last_write);
    expect((await t.rest('PUT', `${records(m.id)}/${'x'.repeat(256)}`, { body: { text: 'ok' } })).status).toBe(200);
    const tooLong = await t.rest('PUT', `${records(m.id)}/${'x'.repeat(257)}`, { body: { text: 'no' } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details.field).toBe('record_id');
    expect(db.namespaces.get(m.id)!.has('x'.repeat(257))).toBe(false);
    // Last writer wins under concurrent PUTs.
    const writes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => t.rest('PUT', `${records(m.id)}/race`, { body: { text: `version ${i}` } })),
    );
    expect(writes.every((w) => w.status === 200)).toBe(true);
    expect(writes.map((w) => w.body.text)).toContain(db.namespaces.get(m.id)!.get('race')!.metadata!.text);
    // Text beyond what the provider's metadata holds is refused before it is sent.
    const big = await t.rest('POST', records(m.id), { body: { text: 'é'.repeat(20_000) } });
    expect(big.status).toBe(400);
    expect(big.body.error.details.field).toBe('text');
  });

  it('search by similarity: best first, scores in [0, 1], limit and min_score', async () => {
    const m = await memory('Search');
    const texts = [
      'Nightly PostgreSQL backups are kept for thirty days',
      'Lunch is served at noon in the cafeteria',
      'Restoring databases from PostgreSQL backups takes an hour',
      'Kubernetes pods restart on failure',
    ];
    for (const text of texts) await t.rest('POST', records(m.id), { body: { text } });
    const result = await t.rest('POST', `${records(m.id)}/search`, { body: { query: 'postgresql backup retention days' } });
    expect(result.status).toBe(200);
    const found = result.body.items as { id: string; text: string; score: number; provenance: { content_matches: boolean } }[];
    expect(result.body.next_cursor).toBeNull();
    expect(found[0]!.text).toBe(texts[0]);
    expect(
      found
        .slice(0, 2)
        .map((r) => r.text)
        .sort(),
    ).toEqual([texts[0], texts[2]].sort());
    expect(found.every((r) => r.score >= 0.05 && r.score <= 1 && r.provenance.content_matches)).toBe(true);
    expect([...found].sort((a, b) => b.score - a.score)).toEqual(found);
    // The score is the database's cosine (clamped), computed from the memory's embedding model.
    const expected = hashEmbedding(texts[0]!).reduce(
      (sum, value, i) => sum + value * hashEmbedding('postgresql backup retention days')[i]!,
      0,
    );
    expect(found[0]!.score).toBeCloseTo(expected, 3);
    const query = db.requests.filter((r) => r.path === '/query').at(-1)!;
    expect(query.body).toMatchObject({ namespace: m.id, topK: 10, includeMetadata: true });
    expect((await t.rest('POST', `${records(m.id)}/search`, { body: { query: 'postgresql backup', limit: 1 } })).body.items).toHaveLength(
      1,
    );
    const strict = (
      await t.rest('POST', `${records(m.id)}/search`, {
        body: { query: 'postgresql backup retention days', min_score: (found[0]!.score + found[1]!.score) / 2 },
      })
    ).body.items;
    expect(strict.map((r: { text: string }) => r.text)).toEqual([texts[0]]);
    expect((await t.rest('POST', `${records(m.id)}/search`, { body: {} })).status).toBe(400);
    expect((await t.rest('POST', `${records(m.id)}/search`, { body: { query: 'x', min_score: 2 } })).status).toBe(400);
    expect((await t.rest('POST', `${records(m.id)}/search`, { body: { query: 'x', limit: 101 } })).status).toBe(400);
  });

  it('provider failures are clear errors, never internal ones, and never show the key', async () => {
    const m = await memory('Failing');
    db.failures.push({ status: 500, body: { code: 13, message: 'internal error' } });
    const down = await t.rest('GET', records(m.id));
    expect(down.status).toBe(503);
    expect(down.body.error).toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('500'),
      details: { provider_status: 500 },
    });
    db.failures.push({ status: 429, body: { code: 8, message: 'too many requests' } });
    expect((await t.rest('POST', records(m.id), { body: { text: 'x' } })).body.error).toMatchObject({
      code: 'unavailable',
      details: { provider_status: 429 },
    });
    db.failures.push({ status: 400, body: { code: 3, message: 'Vector dimension 256 does not match the dimension of the index 1536' } });
    const mismatch = await t.rest('POST', `${records(m.id)}/search`, { body: { query: 'x' } });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.error).toMatchObject({
      code: 'failed_precondition',
      message: expect.stringContaining('dimension 256'),
      details: { provider_status: 400 },
    });

    const wrongKey = 'pc-wrong-key-0000';
    const wrong = (
      await t.rest('POST', '/api/v1/memory-providers', {
        body: { type: 'pinecone', name: 'wrong', config: { index_host: db.url }, credential: { api_key: wrongKey } },
      })
    ).body;
    const onWrong = await memory('Wrong key', wrong.id);
    for (const [method, path, body] of [
      ['GET', records(onWrong.id)],
      ['POST', records(onWrong.id), { text: 'x' }],
      ['POST', `${records(onWrong.id)}/search`, { query: 'x' }],
    ] as const) {
      const response = await t.rest(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(409);
      expect(response.body.error).toMatchObject({
        code: 'failed_precondition',
        message: expect.stringContaining('refused the credential (401)'),
        details: { provider_status: 401 },
      });
      expect(JSON.stringify(response.body)).not.toContain(wrongKey);
    }
    const gone = (
      await t.rest('POST', '/api/v1/memory-providers', {
        body: { type: 'pinecone', name: 'gone', config: { index_host: 'http://127.0.0.1:1' }, credential: { api_key: wrongKey } },
      })
    ).body;
    const onGone = await memory('Unreachable', gone.id);
    const unreachable = await t.rest('GET', records(onGone.id));
    expect(unreachable.status).toBe(503);
    expect(unreachable.body.error.message).toMatch(/could not reach the memory provider/);
    expect(logLines.join('')).not.toContain(wrongKey);
    expect(logLines.join('')).not.toContain(db.apiKey);
  });

  it('a provider that does not answer times out', async () => {
    const store = openPineconeStore(
      {
        config: { index_host: db.url },
        credential: { api_key: db.apiKey },
        fetch,
        extraHeaders: {},
        namespace: 'timeouts',
        cursorList: 'records:x',
        embed: async (text) => hashEmbedding(text),
      },
      { timeoutMs: 200 },
    );
    db.stall = true;
    try {
      const started = Date.now();
      await expect(store.list(10, null)).rejects.toMatchObject({
        code: 'unavailable',
        message: expect.stringContaining('did not answer within 0.2 s'),
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      db.stall = false;
    }
    expect((await store.list(10, null)).items).toEqual([]);
  });

  it('long ids are fetched in several requests; vectors written by other tools show what they have', async () => {
    const ns = new Map(
      Array.from({ length: 40 }, (_, i) => {
        const id = `${String(i).padStart(2, '0')}${'long-id/'.repeat(31)}`;
        return [id, { id, values: hashEmbedding(`text ${i}`), metadata: { text: `text ${i}` } }] as const;
      }),
    );
    db.namespaces.set('long-ids', ns);
    const store = openPineconeStore({
      config: { index_host: db.url },
      credential: { api_key: db.apiKey },
      extraHeaders: {},
      fetch,
      namespace: 'long-ids',
      cursorList: 'records:y',
      embed: async (text) => hashEmbedding(text),
    });
    const before = db.requests.length;
    const page = await store.list(40, null);
    expect(page.items.map((r) => r.id)).toEqual([...ns.keys()].sort());
    expect(page.items[3]).toMatchObject({ text: 'text 3', provenance: { created: null, last_write: null, content_matches: false } });
    const fetches = db.requests.slice(before).filter((r) => r.path === '/vectors/fetch');
    expect(fetches.length).toBeGreaterThan(1);
    expect(fetches.reduce((n, r) => n + r.query.getAll('ids').length, 0)).toBe(40);
  });

  it('the provider test lists one page of a namespace no memory uses', async () => {
    const before = db.requests.length;
    expect((await t.rest('POST', `/api/v1/memory-providers/${providerId}/test`)).body).toEqual({ status: 'succeeded', message: null });
    const sent = db.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'GET',
      path: '/vectors/list',
      headers: { 'api-key': db.apiKey, 'x-pinecone-api-version': PINECONE_API_VERSION },
    });
    expect(sent[0]!.query.get('limit')).toBe('1');
    const namespace = sent[0]!.query.get('namespace')!;
    expect(namespace).toMatch(/^wsa-probe-[0-9a-f]+$/);
    const namespaces = (await t.app.deps.db.memory.findMany({ select: { namespace: true } })).map((row) => row.namespace);
    expect(namespaces).not.toContain(namespace);
    // A second test uses another namespace; nothing was written.
    await t.rest('POST', `/api/v1/memory-providers/${providerId}/test`);
    expect(db.requests.at(-1)!.query.get('namespace')).not.toBe(namespace);
    expect(db.requests.slice(before).every((r) => r.path === '/vectors/list')).toBe(true);

    const wrong = (
      await t.rest('POST', '/api/v1/memory-providers', {
        body: { type: 'pinecone', name: 'p', config: { index_host: db.url }, credential: { api_key: 'pc-another-wrong-key' } },
      })
    ).body;
    const failed = (await t.rest('POST', `/api/v1/memory-providers/${wrong.id}/test`)).body;
    expect(failed).toMatchObject({ status: 'failed', message: expect.stringContaining('401') });
    expect(failed.message).not.toContain('pc-another-wrong-key');
  });

  it('stay in their workspace', async () => {
    const m = await memory('Private');
    const record = (await t.rest('POST', records(m.id), { body: { text: 'secret plan' } })).body;
    const calls: [string, string, unknown?][] = [
      ['GET', records(m.id)],
      ['POST', records(m.id), { text: 'x' }],
      ['PUT', `${records(m.id)}/${record.id}`, { text: 'x' }],
      ['POST', `${records(m.id)}/search`, { query: 'plan' }],
    ];
    const before = db.requests.length;
    for (const [method, path, body] of calls)
      expect((await t.rest(method, path, { token: otherKey, body })).status, `${method} ${path}`).toBe(404);
    expect(db.requests.length).toBe(before);
    // Another workspace cannot put a memory on this workspace's provider either.
    expect(
      (
        await t.rest('POST', '/api/v1/memories', {
          token: otherKey,
          body: { name: 'x', provider_id: providerId, embedding_model: 'embedder' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('a run with a memory mount on the vector database', () => {
  it('recalls, searches and writes with the run provenance', async () => {
    await insertModel(t, 'dev');
    const m = await memory('Team Notes');
    await t.rest('POST', records(m.id), { body: { text: 'Deploys happen on Tuesdays after the standup' } });
    await t.rest('POST', records(m.id), { body: { text: 'The office plant needs water on Mondays' } });
    const { run, done } = await rememberingRun(t, m.id, { searchQuery: 'office plant water', added: 'Deploy freeze starts Friday' });
    expect(done).toMatchObject({ status: 'completed', output: 'Noted.' });
    const items = (await t.rest('GET', `/api/v1/runs/${run.id}/items`)).body.items;
    const recalled = items.find((i: { kind: string }) => i.kind === 'memory_recall');
    expect(recalled.content.records[0].text).toBe('Deploys happen on Tuesdays after the standup');
    const results = items.filter((i: { kind: string }) => i.kind === 'tool_result');
    expect(results[0].content.result[0].text).toBe('The office plant needs water on Mondays');
    const written = (await t.rest('GET', records(m.id))).body.items.find((r: { text: string }) => r.text === 'Deploy freeze starts Friday');
    expect(written.provenance.created).toMatchObject({
      run_id: run.id,
      tool_call_id: 'a1',
      attempt_id: done.current_attempt_id,
      principal_id: run.principal_id,
    });
  });
});
