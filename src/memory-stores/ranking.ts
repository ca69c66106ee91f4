// Ranking shared by the record stores: scores in [0, 1], best first, ties by id, at least `minScore`,
// at most `limit`.

/** A cosine similarity in [-1, 1] as a score in [0, 1]: dissimilar is as good as unrelated. */
export const clampCosine = (cosine: number) => Math.min(1, Math.max(0, cosine));

/** Hybrid score: the mean of the lexical score and the clamped cosine. */
export const fusedScore = (lexical: number, cosine: number) => (lexical + clampCosine(cosine)) / 2;

/** The best `limit` of the scored items that reach `minScore`, best first (ties: id ascending). */
export function bestFirst<T extends { id: string; score: number }>(scored: T[], minScore: number, limit: number): T[] {
  return scored
    .filter((s) => s.score >= minScore)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit);
}
