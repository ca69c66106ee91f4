import { describe, expect, it } from 'vitest';
import { IndexLoading, VectorIndex, VectorIndexCache, selectTop, topK, type VectorRow } from '../../src/lib/vector-index.js';
import { loadDotKernel } from '../../src/lib/simd-dot.js';
import { hashEmbedding } from '../../src/providers/hash-embeddings.js';

const exactTop = (rows: VectorRow[], query: number[], k: number) =>
  rows
    .map((row) => ({ id: row.id, cosine: Array.from(row.embedding).reduce((sum, v, d) => sum + v * query[d]!, 0) }))
    .sort((a, b) => b.cosine - a.cosine)
    .slice(0, k);

/** Deterministic pseudo-random unit vectors (any dimension count, not only the kernel's multiples of 16). */
function randomUnit(seed: number, dimensions: number): number[] {
  let x = seed * 2654435761 + 1;
  const v = Array.from({ length: dimensions }, () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((value) => value / norm);
}

function indexOf(rows: VectorRow[], useKernel = true) {
  const index = new VectorIndex(useKernel);
  for (const row of rows) index.upsert(row.id, row.embedding);
  return index;
}

function expectSameAsExact(found: { id: string; cosine: number }[], exact: { id: string; cosine: number }[]) {
  expect(found).toHaveLength(exact.length);
  // The same scores, best first (ids may swap within float32 ties).
  for (const [i, f] of found.entries()) expect(f.cosine).toBeCloseTo(exact[i]!.cosine, 5);
  const last = exact[exact.length - 1]!.cosine;
  const exactIds = new Set(exact.map((e) => e.id));
  for (const f of found) if (!exactIds.has(f.id)) expect(Math.abs(f.cosine - last)).toBeLessThan(1e-5);
}

describe('vector index', () => {
  it('has a WebAssembly SIMD kernel on this Node', () => {
    expect(loadDotKernel(new WebAssembly.Memory({ initial: 1 }))).toBeTypeOf('function');
  });

  it('topK equals an exact sort of cosine similarities (SIMD kernel and JavaScript loop)', () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({
      id: `r${i}`,
      embedding: hashEmbedding(`record number ${i} about topic ${i % 17}`),
    }));
    const query = hashEmbedding('topic 5 record');
    const exact = exactTop(rows, query, 10);
    for (const useKernel of [true, false]) {
      const found = topK(indexOf(rows, useKernel), query, 10);
      expectSameAsExact(found, exact);
      expect(found[0]!.id).toBe(exact[0]!.id);
    }
  });

  it('is exact for odd dimensions, k larger than the index, k = 1, and across growth', () => {
    const dims = 37; // not a multiple of the kernel's 16-float stride: padding must not leak into scores
    const rows = Array.from({ length: 3000 }, (_, i) => ({ id: `v${String(i).padStart(5, '0')}`, embedding: randomUnit(i, dims) }));
    const index = indexOf(rows); // grows 1024 → 2048 → 4096 rows on the way
    expect(index.size).toBe(3000);
    for (const seed of [7001, 7002, 7003]) {
      const query = randomUnit(seed, dims);
      expectSameAsExact(index.topK(query, 25), exactTop(rows, query, 25));
      expect(index.topK(query, 1)[0]!.id).toBe(exactTop(rows, query, 1)[0]!.id);
    }
    const small = indexOf(rows.slice(0, 5));
    const query = randomUnit(1, dims);
    expect(small.topK(query, 50).map((n) => n.id)).toEqual(exactTop(rows.slice(0, 5), query, 5).map((n) => n.id));
    expect(small.topK(query, 0)).toEqual([]);
    expect(small.topK(randomUnit(1, dims + 1), 3)).toEqual([]); // another dimension count: nothing comparable
    expect(new VectorIndex().topK(query, 3)).toEqual([]);
  });

  it('replaces and removes rows in place; cosine() scores one row', () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, embedding: randomUnit(i, 64) }));
    const index = indexOf(rows);
    const query = randomUnit(999, 64);
    const best = index.topK(query, 1)[0]!;
    expect(index.cosine(best.id, query)).toBeCloseTo(best.cosine, 6);
    // Replace the best row with the query itself: it stays first, now with cosine 1.
    const replaced = rows[0]!.id === best.id ? rows[1]! : rows[0]!;
    index.upsert(replaced.id, query);
    expect(index.topK(query, 1)[0]).toMatchObject({ id: replaced.id });
    expect(index.topK(query, 1)[0]!.cosine).toBeCloseTo(1, 5);
    expect(index.size).toBe(200);
    // An empty embedding (or another dimension count) removes the row.
    index.upsert(replaced.id, []);
    index.upsert(best.id, randomUnit(5, 65));
    expect(index.size).toBe(198);
    const found = index.topK(query, 200);
    expect(found).toHaveLength(198);
    expect(found.map((n) => n.id)).not.toContain(replaced.id);
    expect(found.map((n) => n.id)).not.toContain(best.id);
    expect(index.cosine(best.id, query)).toBe(0);
    index.upsert(best.id, rows.find((r) => r.id === best.id)!.embedding); // back again
    expect(index.topK(query, 1)[0]!.id).toBe(best.id);
  });

  it('selectTop keeps the k largest with a bounded heap', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (Math.sin(i * 12.9898) * 43758.5453) % 1);
    const { indexes, values: top, size } = selectTop(values, values.length, 17);
    expect(size).toBe(17);
    const expected = [...values].sort((a, b) => b - a).slice(0, 17);
    expect([...top].sort((a, b) => b - a)).toEqual(expected);
    for (let i = 0; i < size; i++) expect(values[indexes[i]!]).toBe(top[i]);
    const live = new Uint8Array(values.length).fill(1);
    const skipped = [...indexes];
    for (const i of skipped) live[i] = 0;
    const next = selectTop(values, values.length, 3, live);
    expect([...next.values].sort((a, b) => b - a)).toEqual([...values].sort((a, b) => b - a).slice(17, 20));
    expect(selectTop(values, 2, 5).size).toBe(2);
  });

  it('the cache loads everything once, then only what changed, and reloads after a reset', async () => {
    const cache = new VectorIndexCache();
    const loads: number[] = [];
    let table: (VectorRow & { seq: number })[] = [{ id: 'a', embedding: hashEmbedding('alpha'), seq: 1 }];
    const loadSince = async (since: number) => {
      loads.push(since);
      return table.filter((row) => row.seq > since);
    };
    const first = await cache.get('m', { version: 1, resetVersion: 0 }, loadSince);
    expect(await cache.get('m', { version: 1, resetVersion: 0 }, loadSince)).toBe(first);
    table.push({ id: 'b', embedding: hashEmbedding('beta'), seq: 2 });
    const second = await cache.get('m', { version: 2, resetVersion: 0 }, loadSince);
    expect(second).toBe(first); // updated in place
    expect(second.size).toBe(2);
    expect(loads).toEqual([-1, 1]);
    // Concurrent searches share one refresh.
    table.push({ id: 'c', embedding: hashEmbedding('gamma'), seq: 3 });
    await Promise.all([1, 2, 3].map(() => cache.get('m', { version: 3, resetVersion: 0 }, loadSince)));
    expect(loads).toEqual([-1, 1, 2]);
    // A deletion (reset) rebuilds from scratch.
    table = table.filter((row) => row.id !== 'a');
    const rebuilt = await cache.get('m', { version: 4, resetVersion: 4 }, loadSince);
    expect(loads).toEqual([-1, 1, 2, -1]);
    expect(rebuilt.size).toBe(2);
    expect(rebuilt.has('a')).toBe(false);
    expect(hashEmbedding('Same text')).toEqual(hashEmbedding('same text'));
    expect(Math.hypot(...hashEmbedding('a few words here'))).toBeCloseTo(1, 6);
  });

  it('evicts the least recently used indexes beyond the memory or byte budget', async () => {
    const rows = (n: number) => async () => Array.from({ length: n }, (_, i) => ({ id: `r${i}`, embedding: randomUnit(i, 16) }));
    const changes = { version: 1, resetVersion: 0 };
    const byCount = new VectorIndexCache({ maxMemories: 2 });
    for (const key of ['a', 'b', 'c']) await byCount.get(key, changes, rows(3));
    expect(byCount.keys()).toEqual(['b', 'c']);
    await byCount.get('b', changes, rows(3)); // used again: most recent
    await byCount.get('d', changes, rows(3));
    expect(byCount.keys()).toEqual(['b', 'd']);
    const one = (await new VectorIndexCache().get('x', changes, rows(3))).bytes;
    const byBytes = new VectorIndexCache({ maxBytes: one * 2 });
    for (const key of ['a', 'b', 'c']) await byBytes.get(key, changes, rows(3));
    expect(byBytes.keys()).toEqual(['b', 'c']);
    // An index larger than the budget alone is still kept (it is the one in use).
    const tiny = new VectorIndexCache({ maxBytes: 1 });
    await tiny.get('a', changes, rows(3));
    await tiny.get('b', changes, rows(3));
    expect(tiny.keys()).toEqual(['b']);
  });
});

describe('vector index cache, bounded wait', () => {
  it('answers IndexLoading when a load outlasts the bound, lets the load finish, then serves the index', async () => {
    const cache = new VectorIndexCache({ useKernel: false });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let loads = 0;
    const load = async (_since: number, index: VectorIndex) => {
      loads++;
      await released; // the load is held until the test says so: no timing assumption about its length
      index.upsert('a', [1, 0]);
    };
    const changes = { version: 1, resetVersion: 0 };
    await expect(cache.getWithin('m', changes, load, 0)).rejects.toBeInstanceOf(IndexLoading);
    expect(cache.isRefreshing('m')).toBe(true);
    // A second caller during the load joins it (no second load) and is bounded the same way.
    await expect(cache.getWithin('m', changes, load, 0)).rejects.toBeInstanceOf(IndexLoading);
    release();
    const index = await cache.get('m', changes, load);
    expect(index.topK([1, 0], 1)).toEqual([{ id: 'a', cosine: 1 }]);
    expect(loads).toBe(1);
    // A fresh index answers at once, whatever the bound.
    expect(await cache.getWithin('m', changes, load, 0)).toBe(index);
    expect(cache.isRefreshing('m')).toBe(false);
  });
});
