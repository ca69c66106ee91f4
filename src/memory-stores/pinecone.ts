// Pinecone's data-plane HTTP API (or a vector database that speaks it) as a memory's record store.
// One namespace per memory (the memory's `namespace`); a record is a vector from the memory's
// embedding model whose metadata carries the text, the provenance (a JSON string: Pinecone metadata
// holds no nested objects) and the time of the last write. Upsert is the database's own last-writer-
// wins; list pages are the database's, its pagination token wrapped in our opaque cursor.
import Type from 'typebox';
import { decodeCursor, encodeCursor } from '../lib/cursor.js';
import { readDocument } from '../lib/json-documents.js';
import { AppError, invalidArgument } from '../lib/errors.js';
import { createdProvenance, provenanceView, replacedProvenance, type StoredProvenance } from './provenance.js';
import { bestFirst, clampCosine } from './ranking.js';
import { roundScore, type ExternalStoreContext, type RecordStore, type StoredRecord, type WriterStamp } from './record-store.js';
import { fetchFailure } from '../lib/outbound-policy.js';

export const PINECONE_API_VERSION = '2025-04';
export const PINECONE_TIMEOUT_MS = 15_000;
/** Pinecone keeps at most 40 KB of metadata per record; the text may use this much of it. */
export const PINECONE_MAX_TEXT_BYTES = 32_000;
/** Fetch takes its ids in the query string: keep each request's URL well below common limits. */
const MAX_FETCH_IDS_CHARS = 6_000;

export interface PineconeVector {
  id: string;
  values?: number[];
  metadata?: Record<string, unknown>;
}

export interface PineconeOptions {
  indexHost: string;
  apiKey: string;
  timeoutMs?: number;
  /** The outbound policy's fetch. */
  fetch: typeof fetch;
}

export class PineconeClient {
  private readonly root: string;
  private readonly timeoutMs: number;

  constructor(private readonly options: PineconeOptions) {
    this.root = options.indexHost.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? PINECONE_TIMEOUT_MS;
  }

  private scrub(text: string) {
    return this.options.apiKey.length >= 4 ? text.split(this.options.apiKey).join('[redacted]') : text;
  }

  /** One call; every failure becomes an AppError the caller can act on (never an internal error). */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let status: number;
    let text: string;
    try {
      const response = await this.options.fetch(`${this.root}${path}`, {
        method,
        signal: timeout,
        headers: {
          'api-key': this.options.apiKey,
          'x-pinecone-api-version': PINECONE_API_VERSION,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (timeout.aborted)
        throw new AppError('unavailable', `the memory provider did not answer within ${this.timeoutMs / 1000} s`, {
          provider_status: null,
        });
      throw new AppError('unavailable', this.scrub(`could not reach the memory provider: ${fetchFailure(error)}`), {
        provider_status: null,
      });
    }
    if (status < 200 || status > 299) throw this.failure(status, text);
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch {
      throw new AppError('unavailable', `the memory provider answered ${status} with something other than JSON`, {
        provider_status: status,
      });
    }
  }

  private failure(status: number, body: string): AppError {
    let said = body.trim();
    try {
      const parsed = JSON.parse(body) as { message?: unknown; error?: { message?: unknown } };
      said = String(parsed.message ?? parsed.error?.message ?? said);
    } catch {
      /* plain text */
    }
    said = this.scrub(said.slice(0, 300));
    const suffix = said ? `: ${said}` : '';
    const details = { provider_status: status };
    if (status === 401 || status === 403)
      return new AppError('failed_precondition', `the memory provider refused the credential (${status})${suffix}`, details);
    if (status === 429 || status >= 500) return new AppError('unavailable', `the memory provider answered ${status}${suffix}`, details);
    return new AppError('failed_precondition', `the memory provider refused the request (${status})${suffix}`, details);
  }

  /** GET /vectors/list: one page of ids (sorted by the database) and the token of the next. */
  async list(namespace: string, limit: number, paginationToken?: string): Promise<{ ids: string[]; next: string | null }> {
    const query = new URLSearchParams({ namespace, limit: String(limit), ...(paginationToken ? { paginationToken } : {}) });
    const answer = await this.call<{ vectors?: { id: string }[]; pagination?: { next?: string } }>('GET', `/vectors/list?${query}`);
    return { ids: (answer.vectors ?? []).map((v) => v.id), next: answer.pagination?.next || null };
  }

  /** GET /vectors/fetch, in as many requests as the ids need. */
  async fetch(namespace: string, ids: string[]): Promise<Map<string, PineconeVector>> {
    const batches: string[][] = [];
    let size = Infinity;
    for (const id of ids) {
      const length = encodeURIComponent(id).length + 5;
      if (size + length > MAX_FETCH_IDS_CHARS) {
        batches.push([]);
        size = 0;
      }
      batches.at(-1)!.push(id);
      size += length;
    }
    const answers = await Promise.all(
      batches.map((batch) => {
        const query = new URLSearchParams([...batch.map((id) => ['ids', id]), ['namespace', namespace]]);
        return this.call<{ vectors?: Record<string, PineconeVector> }>('GET', `/vectors/fetch?${query}`);
      }),
    );
    return new Map(answers.flatMap((answer) => Object.values(answer.vectors ?? {}).map((v) => [v.id, v] as const)));
  }

  async upsert(namespace: string, vectors: PineconeVector[]): Promise<void> {
    await this.call('POST', '/vectors/upsert', { vectors, namespace });
  }

  /** POST /query: nearest vectors with their metadata; `score` is the index metric's (cosine). */
  async query(namespace: string, vector: number[], topK: number): Promise<(PineconeVector & { score: number })[]> {
    const answer = await this.call<{ matches?: (PineconeVector & { score?: number })[] }>('POST', '/query', {
      namespace,
      vector,
      topK,
      includeMetadata: true,
      includeValues: false,
    });
    return (answer.matches ?? []).map((m) => ({ ...m, score: Number(m.score ?? 0) }));
  }
}

function provenanceOf(vector: PineconeVector): StoredProvenance {
  try {
    const parsed = JSON.parse(String(vector.metadata?.provenance ?? '{}')) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as StoredProvenance) : {};
  } catch {
    return {};
  }
}

/** The record view; vectors written by other tools show what they have (no provenance). */
function view(vector: PineconeVector, score: number | null = null): StoredRecord {
  const text = typeof vector.metadata?.text === 'string' ? vector.metadata.text : '';
  const updated = typeof vector.metadata?.updated_at === 'string' ? new Date(vector.metadata.updated_at) : null;
  return {
    id: vector.id,
    text,
    score,
    updatedAt: updated && !Number.isNaN(updated.getTime()) ? updated : new Date(0),
    provenance: provenanceView(provenanceOf(vector), text),
  };
}

/** A records cursor's position: the database's page token (null: the start) and ids to skip after it (0 to 99). */
function pineconePosition(position: (string | number | null)[] | null): { token: string | null; skip: number } {
  if (!position) return { token: null, skip: 0 };
  const [token, skip = 0] = position;
  if (position.length > 2 || (token !== null && typeof token !== 'string') || typeof skip !== 'number' || skip < 0 || skip > 99)
    throw invalidArgument('cursor is not a cursor returned by this list', 'cursor');
  return { token, skip };
}

/** The configuration of a Pinecone memory provider: the index host its memories' namespaces live in. */
export const PineconeConfig = Type.Object(
  {
    index_host: Type.String({
      format: 'uri',
      pattern: '^https?://',
      description:
        'the index host, e.g. https://my-index-abc123.svc.aped-4627-b74a.pinecone.io (cosine or dotproduct metric, dimension of the embedding model)',
    }),
  },
  { additionalProperties: false },
);

export function openPineconeStore(ctx: ExternalStoreContext, options: { timeoutMs?: number } = {}): RecordStore {
  const apiKey = ctx.credential?.api_key;
  if (typeof apiKey !== 'string' || !apiKey) throw new AppError('failed_precondition', 'the memory provider has no credential');
  const embed = ctx.embed;
  if (!embed) throw new AppError('failed_precondition', 'a vector-database memory needs an embedding_model');
  const config = readDocument(PineconeConfig, ctx.config, 'providers.config');
  const client = new PineconeClient({ indexHost: config.index_host, apiKey, timeoutMs: options.timeoutMs, fetch: ctx.fetch });
  const namespace = ctx.namespace;
  const get = async (id: string) => (await client.fetch(namespace, [id])).get(id) ?? null;

  async function write(id: string, text: string, stamp: WriterStamp, isNew: boolean): Promise<StoredRecord> {
    if (Buffer.byteLength(text) > PINECONE_MAX_TEXT_BYTES) {
      throw invalidArgument(
        `text is at most ${PINECONE_MAX_TEXT_BYTES} bytes in a vector-database memory (its metadata holds at most 40 KB per record)`,
        'text',
      );
    }
    // Replacing keeps the `created` provenance: read it first. Concurrent writers each upsert the
    // whole record, so the last one wins, as the database does.
    const [values, existing] = await Promise.all([embed!(text), isNew ? null : get(id)]);
    const provenance = existing ? replacedProvenance(provenanceOf(existing), stamp, text) : createdProvenance(stamp, text);
    const vector: PineconeVector = {
      id,
      values,
      metadata: { text, provenance: JSON.stringify(provenance), updated_at: stamp.confirmed_at },
    };
    await client.upsert(namespace, [vector]);
    return view(vector);
  }

  return {
    // The database pages by token only, so a position is its token (the page after a whole page), or
    // a token (null: the start) and how many ids after it the page starts (after any record of a page).
    async list(size, cursor) {
      const list = ctx.cursorList;
      const { token, skip } = pineconePosition(decodeCursor(list, cursor));
      let start = token;
      if (skip > 0) {
        const skipped = await client.list(namespace, skip, start ?? undefined);
        if (skipped.ids.length < skip || !skipped.next) return { items: [], nextCursor: null, cursorAt: () => cursor! };
        start = skipped.next;
      }
      const page = await client.list(namespace, size, start ?? undefined);
      const vectors = await client.fetch(namespace, page.ids);
      // An id listed but gone by the fetch was deleted in between: skipped (its place still counts).
      const listed = page.ids.flatMap((id, at) => (vectors.has(id) ? [{ at, record: view(vectors.get(id)!) }] : []));
      const cursorAt = (index: number) => {
        const at = listed[index]!.at;
        return at === page.ids.length - 1 && page.next ? encodeCursor(list, [page.next]) : encodeCursor(list, [start, at + 1]);
      };
      return { items: listed.map((entry) => entry.record), nextCursor: page.next ? encodeCursor(list, [page.next]) : null, cursorAt };
    },

    async get(id) {
      const vector = await get(id);
      return vector ? view(vector) : null;
    },

    add: (id, text, stamp) => write(id, text, stamp, true),
    replace: (id, text, stamp) => write(id, text, stamp, false),

    // Vector only (no lexical part), whatever the mode: the database's cosine similarity, clamped.
    async search(query, { limit, minScore }) {
      const matches = await client.query(namespace, await embed!(query), limit);
      const scored = bestFirst(
        matches.map((match) => ({ id: match.id, match, score: clampCosine(match.score) })),
        minScore,
        limit,
      );
      return scored.map((m) => view(m.match, roundScore(m.score)));
    },
  };
}
