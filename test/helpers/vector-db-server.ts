// A loopback server speaking the subset of Pinecone's data-plane HTTP API the memory store uses:
// POST /vectors/upsert, GET /vectors/list (sorted ids, pagination tokens), GET /vectors/fetch,
// POST /query (cosine), namespaces, the Api-Key header and the API version header. Vectors live in
// memory; every request is recorded; failures and stalls can be scripted.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VectorRecord {
  id: string;
  values: number[];
  metadata?: Record<string, unknown>;
}

export interface VectorDbRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: any;
}

export interface VectorDbServer {
  url: string;
  apiKey: string;
  /** The index dimension; upserts and queries of another dimension are refused with 400. */
  dimension: number;
  namespaces: Map<string, Map<string, VectorRecord>>;
  requests: VectorDbRequest[];
  /** The next requests answer with these (status, body), in order, instead of being served. */
  failures: { status: number; body: unknown }[];
  /** While set, requests get no answer (to exercise client time-outs). */
  stall: boolean;
  close(): Promise<void>;
}

const send = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

function cosine(a: number[], b: number[]) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export async function startVectorDbServer(options: { apiKey?: string; dimension?: number } = {}): Promise<VectorDbServer> {
  const state: VectorDbServer = {
    url: '',
    apiKey: options.apiKey ?? 'pc-test-key-5678',
    dimension: options.dimension ?? 256,
    namespaces: new Map(),
    requests: [],
    failures: [],
    stall: false,
    close: async () => undefined,
  };
  const namespace = (name: unknown) => {
    const key = typeof name === 'string' ? name : '';
    if (!state.namespaces.has(key)) state.namespaces.set(key, new Map());
    return state.namespaces.get(key)!;
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url!, 'http://loopback');
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      return send(res, 400, { code: 3, message: 'request body is not JSON' });
    }
    state.requests.push({ method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body });
    if (state.stall) return; // never answers (the client's time-out ends it)
    const failure = state.failures.shift();
    if (failure) return send(res, failure.status, failure.body);
    if (req.headers['api-key'] !== state.apiKey) return send(res, 401, { code: 16, message: 'Invalid API Key', details: [] });
    if (!req.headers['x-pinecone-api-version']) return send(res, 400, { code: 3, message: 'missing X-Pinecone-API-Version' });

    if (req.method === 'POST' && url.pathname === '/vectors/upsert') {
      const vectors = (body?.vectors ?? []) as VectorRecord[];
      for (const v of vectors) {
        if (typeof v.id !== 'string' || !v.id || v.id.length > 512)
          return send(res, 400, { code: 3, message: 'Vector ID must be 1 to 512 characters' });
        if (!Array.isArray(v.values) || v.values.length !== state.dimension)
          return send(res, 400, {
            code: 3,
            message: `Vector dimension ${v.values?.length ?? 0} does not match the dimension of the index ${state.dimension}`,
          });
        for (const value of Object.values(v.metadata ?? {})) {
          if (value !== null && typeof value === 'object' && !Array.isArray(value))
            return send(res, 400, { code: 3, message: 'Metadata values must be strings, numbers, booleans or lists of strings' });
        }
      }
      const ns = namespace(body?.namespace);
      for (const v of vectors) ns.set(v.id, { id: v.id, values: v.values, metadata: v.metadata });
      return send(res, 200, { upsertedCount: vectors.length });
    }
    if (req.method === 'GET' && url.pathname === '/vectors/list') {
      const limit = Number(url.searchParams.get('limit') ?? 100);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100) return send(res, 400, { code: 3, message: 'limit must be from 1 to 100' });
      const token = url.searchParams.get('paginationToken');
      let after = '';
      if (token) {
        try {
          after = String(JSON.parse(Buffer.from(token, 'base64').toString('utf8')).skip_past);
        } catch {
          return send(res, 400, { code: 3, message: 'invalid pagination token' });
        }
      }
      const ids = [...namespace(url.searchParams.get('namespace')).keys()].sort().filter((id) => !token || id > after);
      const page = ids.slice(0, limit);
      const next = ids.length > limit ? Buffer.from(JSON.stringify({ skip_past: page.at(-1) })).toString('base64') : null;
      return send(res, 200, {
        vectors: page.map((id) => ({ id })),
        ...(next ? { pagination: { next } } : {}),
        namespace: url.searchParams.get('namespace') ?? '',
        usage: { readUnits: 1 },
      });
    }
    if (req.method === 'GET' && url.pathname === '/vectors/fetch') {
      const ns = namespace(url.searchParams.get('namespace'));
      const vectors: Record<string, VectorRecord> = {};
      for (const id of url.searchParams.getAll('ids')) if (ns.has(id)) vectors[id] = ns.get(id)!;
      return send(res, 200, { vectors, namespace: url.searchParams.get('namespace') ?? '', usage: { readUnits: 1 } });
    }
    if (req.method === 'POST' && url.pathname === '/query') {
      if (!Array.isArray(body?.vector) || body.vector.length !== state.dimension)
        return send(res, 400, {
          code: 3,
          message: `Vector dimension ${body?.vector?.length ?? 0} does not match the dimension of the index ${state.dimension}`,
        });
      const topK = Number(body.topK);
      if (!Number.isInteger(topK) || topK < 1 || topK > 10_000) return send(res, 400, { code: 3, message: 'topK must be from 1 to 10000' });
      const matches = [...namespace(body.namespace).values()]
        .map((v) => ({
          id: v.id,
          score: cosine(v.values, body.vector),
          ...(body.includeValues ? { values: v.values } : {}),
          ...(body.includeMetadata ? { metadata: v.metadata } : {}),
        }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, topK);
      return send(res, 200, { matches, namespace: body.namespace ?? '', usage: { readUnits: 5 } });
    }
    send(res, 404, { code: 5, message: `no route ${req.method} ${url.pathname}` });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      state.close = () =>
        new Promise((done) => {
          server.closeAllConnections();
          server.close(() => done());
        });
      resolve(state);
    });
  });
}
