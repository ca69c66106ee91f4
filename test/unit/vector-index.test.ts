import { describe, expect, it } from 'vitest';
import { VectorIndexCache, topK } from '../../src/lib/vector-index.js';
import { hashEmbedding } from '../../src/engine/hash-embeddings.js';

describe('vector index', () => {
  it('topK equals an exact sort of cosine similarities', async () => {
    const rows = Array.from({ length: 500 }, (_, i) => ({ id: `r${i}`, embedding: hashEmbedding(`record number ${i} about topic ${i % 17}`) }));
    const index = await new VectorIndexCache().get('m', 's1', async () => rows);
    const query = hashEmbedding('topic 5 record');
    const exact = rows.map((row) => ({ id: row.id, cosine: row.embedding.reduce((sum, v, d) => sum + v * query[d]!, 0) })).sort((a, b) => b.cosine - a.cosine).slice(0, 10);
    const found = topK(index, query, 10);
    // The same scores, best first (ids may swap within float32 ties).
    for (const [i, f] of found.entries()) expect(f.cosine).toBeCloseTo(exact[i]!.cosine, 5);
    const cosineOf = new Map(exact.map((e) => [e.id, e.cosine]));
    for (const f of found) if (!cosineOf.has(f.id)) expect(Math.abs(f.cosine - exact[9]!.cosine)).toBeLessThan(1e-5);
    expect(found[0]!.id).toBe(exact[0]!.id);
  });

  it('reloads only when the stamp changes; hash embeddings are deterministic unit vectors', async () => {
    const cache = new VectorIndexCache();
    let loads = 0;
    const load = async () => {
      loads++;
      return [{ id: 'a', embedding: hashEmbedding('alpha') }];
    };
    await cache.get('m', 'v1', load);
    await cache.get('m', 'v1', load);
    await cache.get('m', 'v2', load);
    expect(loads).toBe(2);
    expect(hashEmbedding('Same text')).toEqual(hashEmbedding('same text'));
    expect(Math.hypot(...hashEmbedding('a few words here'))).toBeCloseTo(1, 6);
  });
});
