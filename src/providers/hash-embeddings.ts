// Deterministic local embeddings for the development model type: a 256-dimension hashed bag of
// words and character trigrams, unit length. No network, the same vector for the same text on every
// machine — enough for search to work offline and in tests (and for the memory benchmark).
import type { EmbeddingModelV4 } from '@ai-sdk/provider';
import { createHash } from 'node:crypto';

export const HASH_EMBEDDING_DIMENSIONS = 256;

function bucket(token: string): [number, number] {
  const digest = createHash('sha1').update(token).digest();
  return [digest.readUInt16BE(0) % HASH_EMBEDDING_DIMENSIONS, digest[2]! & 1 ? 1 : -1];
}

export function hashEmbedding(text: string, dimensions = HASH_EMBEDDING_DIMENSIONS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const [index, sign] = bucket(`w:${word}`);
    vector[index % dimensions]! += sign * 2;
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i++) {
      const [tri, triSign] = bucket(`t:${padded.slice(i, i + 3)}`);
      vector[tri % dimensions]! += triSign;
    }
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
}

export function createHashEmbeddingModel(modelId: string): EmbeddingModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'development',
    modelId,
    maxEmbeddingsPerCall: 2048,
    supportsParallelCalls: true,
    async doEmbed({ values }) {
      return { embeddings: values.map((value) => hashEmbedding(value)), warnings: [] };
    },
  };
}
