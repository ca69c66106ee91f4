// Exact cosine similarity without pgvector: a memory's unit vectors kept in one float32 matrix per
// memory in this process (inside a WebAssembly memory, scored by the SIMD kernel of simd-dot.ts), and
// kept in step with the database incrementally: every record write stamps the record with the next
// value of its namespace's change counter (memory_record_versions, bumped by a trigger in the writing
// statement), so a search reads that one counter row and, when it moved, loads only the records
// stamped after the version the index holds. A deletion marks the counter as reset: the next search
// reloads the whole memory. Writes by other instances are seen the same way.

import { loadDotKernel, type DotKernel } from './simd-dot.js';

export interface VectorRow {
  id: string;
  embedding: ArrayLike<number>;
}

export interface Neighbour {
  id: string;
  cosine: number;
}

const PAGE = 65_536;

/** One memory's vectors: rows addressed by record id, scored all at once. */
export class VectorIndex {
  /** The change-counter value this index reflects (−1: nothing loaded yet). */
  version = -1;
  dimensions = 0;
  private stride = 0; // floats per row: dimensions rounded up to 16 for the kernel
  private ids: string[] = [];
  private rowOf = new Map<string, number>();
  private live = new Uint8Array(0);
  private liveCount = 0;
  private capacity = 0;
  private memory: WebAssembly.Memory | null = null;
  private kernel: DotKernel | null = null;
  private data: Float32Array = new Float32Array(0); // the matrix, then query and scores scratch

  constructor(private readonly useKernel = true) {}

  get size(): number {
    return this.liveCount;
  }

  /** Bytes held for the matrix and its scratch space. */
  get bytes(): number {
    return this.memory ? this.memory.buffer.byteLength : this.data.byteLength;
  }

  /**
   * Room for `rows` rows in all, made at once: a whole-memory load sizes the matrix to the memory
   * instead of doubling its way there (doubling can leave up to half of it unused, and copies it
   * each time).
   */
  reserve(rows: number, dimensions: number): void {
    if (this.ids.length > 0 || rows <= this.capacity || dimensions <= 0) return;
    this.dimensions = dimensions;
    this.stride = Math.ceil(dimensions / 16) * 16;
    this.grow(rows);
  }

  has(id: string): boolean {
    return this.rowOf.has(id);
  }

  /** Adds or replaces a record's vector; an empty or differently sized vector removes it. */
  upsert(id: string, embedding: ArrayLike<number>): void {
    if (embedding.length === 0) return this.remove(id);
    if (this.ids.length === 0 && (this.dimensions === 0 || this.capacity === 0)) {
      this.dimensions = embedding.length;
      this.stride = Math.ceil(embedding.length / 16) * 16;
    }
    if (embedding.length !== this.dimensions) return this.remove(id);
    let row = this.rowOf.get(id);
    if (row === undefined) {
      row = this.ids.length;
      if (row >= this.capacity) this.grow(Math.max(1024, this.capacity * 2));
      this.ids.push(id);
      this.rowOf.set(id, row);
    }
    if (!this.live[row]) {
      this.live[row] = 1;
      this.liveCount++;
    }
    const offset = row * this.stride;
    this.data.set(embedding, offset);
    if (this.stride > this.dimensions) this.data.fill(0, offset + this.dimensions, offset + this.stride);
  }

  /** The cosine of one record's vector with a unit `query` vector (0 when the record has none). */
  cosine(id: string, query: ArrayLike<number>): number {
    const row = this.rowOf.get(id);
    if (row === undefined || !this.live[row] || query.length !== this.dimensions) return 0;
    let dot = 0;
    for (let d = 0, offset = row * this.stride; d < this.dimensions; d++) dot += this.data[offset + d]! * query[d]!;
    return dot;
  }

  remove(id: string): void {
    const row = this.rowOf.get(id);
    if (row === undefined || !this.live[row]) return;
    this.live[row] = 0;
    this.liveCount--;
    this.data.fill(0, row * this.stride, (row + 1) * this.stride);
  }

  /** The `k` rows most similar to a unit `query` vector, best first (ties: lower id first). */
  topK(query: ArrayLike<number>, k: number): Neighbour[] {
    const rows = this.ids.length;
    if (this.dimensions === 0 || query.length !== this.dimensions || k <= 0 || rows === 0) return [];
    const scores = this.score(query);
    const { indexes, values, size } = selectTop(scores, rows, Math.min(k, this.liveCount), this.live);
    const found: Neighbour[] = [];
    for (let i = 0; i < size; i++) found.push({ id: this.ids[indexes[i]!]!, cosine: values[i]! });
    return found.sort((a, b) => b.cosine - a.cosine || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Dot products of `query` with every row (row order), in a scratch array reused by the next call. */
  private score(query: ArrayLike<number>): Float32Array {
    const rows = this.ids.length;
    const { stride } = this;
    const queryAt = this.capacity * stride; // scratch after the matrix
    const scoresAt = queryAt + stride;
    this.data.fill(0, queryAt, queryAt + stride);
    this.data.set(query, queryAt);
    if (this.kernel) {
      this.kernel(0, queryAt * 4, scoresAt * 4, rows, stride);
      return this.data.subarray(scoresAt, scoresAt + rows);
    }
    const m = this.data;
    const q = this.data.subarray(queryAt, queryAt + stride);
    const out = this.data.subarray(scoresAt, scoresAt + rows);
    for (let row = 0, offset = 0; row < rows; row++, offset += stride) {
      let a = 0,
        b = 0,
        c = 0,
        d = 0;
      for (let i = 0; i < stride; i += 4) {
        a += m[offset + i]! * q[i]!;
        b += m[offset + i + 1]! * q[i + 1]!;
        c += m[offset + i + 2]! * q[i + 2]!;
        d += m[offset + i + 3]! * q[i + 3]!;
      }
      out[row] = a + b + c + d;
    }
    return out;
  }

  private grow(capacity: number): void {
    // Layout (floats): matrix [capacity × stride] | query [stride] | scores [capacity]
    const floats = capacity * this.stride + this.stride + capacity;
    if (this.useKernel && this.memory === null && this.capacity === 0) {
      try {
        this.memory = new WebAssembly.Memory({ initial: Math.ceil((floats * 4) / PAGE) });
        this.kernel = loadDotKernel(this.memory);
      } catch {
        this.memory = null;
      }
      if (!this.kernel) this.memory = null;
    }
    if (this.memory) {
      const needed = Math.ceil((floats * 4) / PAGE) - this.memory.buffer.byteLength / PAGE;
      try {
        if (needed > 0) this.memory.grow(needed);
        this.data = new Float32Array(this.memory.buffer);
      } catch {
        // Beyond what a wasm memory may hold: continue on an ordinary array and the JavaScript loop.
        const matrix = new Float32Array(this.memory.buffer, 0, this.capacity * this.stride);
        this.memory = null;
        this.kernel = null;
        this.data = new Float32Array(floats);
        this.data.set(matrix);
      }
    } else {
      const next = new Float32Array(floats);
      next.set(this.data.subarray(0, this.capacity * this.stride));
      this.data = next;
    }
    const live = new Uint8Array(capacity);
    live.set(this.live);
    this.live = live;
    this.capacity = capacity;
  }
}

/**
 * The `k` largest of `scores[0..rows)` (skipping rows whose `live` flag is 0): a bounded min-heap in
 * typed arrays, O(rows + k·log k·(replacements)), no allocation per row. Unordered on return.
 */
export function selectTop(
  scores: ArrayLike<number>,
  rows: number,
  k: number,
  live?: Uint8Array,
): { indexes: Int32Array; values: Float64Array; size: number } {
  const indexes = new Int32Array(Math.max(0, k));
  const values = new Float64Array(Math.max(0, k));
  let size = 0;
  if (k <= 0) return { indexes, values, size };
  for (let row = 0; row < rows; row++) {
    if (live && !live[row]) continue;
    const value = scores[row]!;
    if (size < k) {
      // sift up
      let i = size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (values[parent]! <= value) break;
        values[i] = values[parent]!;
        indexes[i] = indexes[parent]!;
        i = parent;
      }
      values[i] = value;
      indexes[i] = row;
    } else if (value > values[0]!) {
      // replace the smallest, sift down
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= k) break;
        const right = left + 1;
        const child = right < k && values[right]! < values[left]! ? right : left;
        if (values[child]! >= value) break;
        values[i] = values[child]!;
        indexes[i] = indexes[child]!;
        i = child;
      }
      values[i] = value;
      indexes[i] = row;
    }
  }
  return { indexes, values, size };
}

/** The `k` most similar rows of `index` to a unit `query` vector, best first. */
export function topK(index: VectorIndex, query: ArrayLike<number>, k: number): Neighbour[] {
  return index.topK(query, k);
}

/** The memory's index is still loading after the caller's bound (the load goes on). */
export class IndexLoading extends Error {
  constructor(readonly key: string) {
    super(`the vector index of memory namespace ${key} is still loading`);
  }
}

export interface VectorChanges {
  /** The namespace's change counter now, and the counter value of its last deletion. */
  version: number;
  resetVersion: number;
}

/**
 * The vector indexes of the memories this process searched lately — least recently used dropped
 * beyond `maxMemories` or `maxBytes` (never the one just used) — each refreshed on demand: `changes`
 * is the namespace's counter row (one primary-key read per search); when it moved,
 * `loadSince(version)` gives the rows stamped after `version` (all rows for −1) and only those are
 * applied.
 */
export class VectorIndexCache {
  private readonly entries = new Map<string, VectorIndex>();
  private readonly refreshing = new Map<string, Promise<VectorIndex>>();

  constructor(private readonly options: { maxMemories?: number; maxBytes?: number; useKernel?: boolean } = {}) {}

  /** Bytes the cached indexes hold. */
  get bytes(): number {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.bytes;
    return bytes;
  }

  /** Whether a refresh of the memory's index is running now (a search would wait for it). */
  isRefreshing(key: string): boolean {
    return this.refreshing.has(key);
  }

  /**
   * As `get`, but waits at most `waitMs` for a refresh (its own or one already running): a load that
   * takes longer goes on in the background and this answers `IndexLoading` instead, so a caller is
   * never held for the whole load of a large memory. A fresh cached index answers at once.
   */
  async getWithin(
    key: string,
    changes: VectorChanges,
    loadSince: (version: number, index: VectorIndex) => Promise<VectorRow[] | void>,
    waitMs: number,
  ): Promise<VectorIndex> {
    const loading = this.get(key, changes, loadSince);
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new IndexLoading(key)), waitMs);
    });
    // The load's own failure still reaches whoever waits for it; unobserved here once the bound won.
    loading.catch(() => undefined);
    try {
      return await Promise.race([loading, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `loadSince(version, index)` brings the rows stamped after `version` into `index`: by returning
   * them, or by applying them itself (`index.upsert`, page by page, so that a large memory never sits
   * in memory twice).
   */
  async get(
    key: string,
    changes: VectorChanges,
    loadSince: (version: number, index: VectorIndex) => Promise<VectorRow[] | void>,
  ): Promise<VectorIndex> {
    const cached = this.entries.get(key);
    if (cached && cached.version >= changes.version && cached.version >= changes.resetVersion) {
      this.touch(key, cached);
      return cached;
    }
    // One refresh per memory at a time; a caller that finds one running waits for it and checks again.
    const running = this.refreshing.get(key);
    if (running) {
      await running.catch(() => undefined);
      return this.get(key, changes, loadSince);
    }
    const refresh = (async () => {
      let index = this.entries.get(key);
      if (!index || index.version < changes.resetVersion) index = new VectorIndex(this.options.useKernel ?? true);
      const rows = await loadSince(index.version, index);
      for (const row of rows ?? []) index.upsert(row.id, row.embedding);
      // The counter value read before the load: rows stamped later may already be applied, and are
      // applied again (idempotently) by the next refresh; a deletion after the read resets it.
      index.version = Math.max(index.version, changes.version);
      this.touch(key, index);
      return index;
    })();
    this.refreshing.set(key, refresh);
    try {
      return await refresh;
    } finally {
      this.refreshing.delete(key);
    }
  }

  /** Indexes held, least recently used first (for tests and diagnostics). */
  keys(): string[] {
    return [...this.entries.keys()];
  }

  private touch(key: string, index: VectorIndex) {
    this.entries.delete(key);
    this.entries.set(key, index);
    const maxMemories = this.options.maxMemories ?? 64;
    const maxBytes = this.options.maxBytes ?? 2 ** 30;
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.bytes;
    for (const [oldest, entry] of this.entries) {
      if (oldest === key || (this.entries.size <= maxMemories && bytes <= maxBytes)) break;
      this.entries.delete(oldest);
      bytes -= entry.bytes;
    }
  }
}
