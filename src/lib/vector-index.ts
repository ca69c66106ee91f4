// Exact cosine similarity without pgvector: a memory's unit vectors kept in one Float32Array per
// memory in this process, rebuilt from the database when the memory's records changed (checked with
// one cheap aggregate per search, so writes by other instances are seen too).

export interface IndexedVectors {
  stamp: string;
  ids: string[];
  dimensions: number;
  matrix: Float32Array;
}

export class VectorIndexCache {
  private readonly entries = new Map<string, IndexedVectors>();

  constructor(private readonly maxMemories = 64) {}

  async get(key: string, stamp: string, load: () => Promise<{ id: string; embedding: number[] }[]>): Promise<IndexedVectors> {
    const cached = this.entries.get(key);
    if (cached && cached.stamp === stamp) return cached;
    const rows = (await load()).filter((row) => row.embedding.length > 0);
    const dimensions = rows[0]?.embedding.length ?? 0;
    const usable = rows.filter((row) => row.embedding.length === dimensions);
    const matrix = new Float32Array(usable.length * dimensions);
    usable.forEach((row, index) => matrix.set(row.embedding, index * dimensions));
    const entry = { stamp, ids: usable.map((row) => row.id), dimensions, matrix };
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxMemories) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}

/** The `k` most similar rows to a unit `query` vector: [index, cosine] pairs, best first. */
export function topK(index: IndexedVectors, query: number[], k: number): { id: string; cosine: number }[] {
  if (index.dimensions === 0 || query.length !== index.dimensions) return [];
  const q = Float32Array.from(query);
  const best: { id: string; cosine: number }[] = [];
  const { matrix, dimensions, ids } = index;
  for (let row = 0; row < ids.length; row++) {
    let dot = 0;
    const offset = row * dimensions;
    for (let d = 0; d < dimensions; d++) dot += matrix[offset + d]! * q[d]!;
    if (best.length < k) {
      best.push({ id: ids[row]!, cosine: dot });
      if (best.length === k) best.sort((a, b) => b.cosine - a.cosine);
    } else if (dot > best[k - 1]!.cosine) {
      let i = k - 1;
      while (i > 0 && best[i - 1]!.cosine < dot) i--;
      best.splice(i, 0, { id: ids[row]!, cosine: dot });
      best.pop();
    }
  }
  return best.sort((a, b) => b.cosine - a.cosine);
}
