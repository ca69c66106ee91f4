// The pieces both record stores share: ranking (clamped cosine, hybrid mean, best first with ties by
// id), 4-decimal scores, and provenance with a SHA-256 of the created text.
import { describe, expect, it } from 'vitest';
import { bestFirst, clampCosine, fusedScore } from '../../src/memory-stores/ranking.js';
import { roundScore, type WriterStamp } from '../../src/memory-stores/record-store.js';
import { createdProvenance, provenanceView, replacedProvenance } from '../../src/memory-stores/provenance.js';
import { sha256Hex } from '../../src/lib/canonical-json.js';

const stamp = (principal: string): WriterStamp => ({
  attempt_id: null,
  confirmed_at: '2026-01-01T00:00:00.000Z',
  principal_id: principal,
  principal_name: principal,
  run_id: null,
  tool_call_id: null,
});

describe('record store ranking', () => {
  it('clamps cosines to [0, 1] and fuses as the mean with the lexical score', () => {
    expect([clampCosine(-0.4), clampCosine(0.25), clampCosine(1.0000001)]).toEqual([0, 0.25, 1]);
    expect(fusedScore(0.5, -1)).toBe(0.25);
    expect(fusedScore(0.2, 0.6)).toBeCloseTo(0.4, 12);
  });

  it('keeps scores at least minScore, best first, ties by id, at most limit', () => {
    const scored = [
      { id: 'b', score: 0.5 },
      { id: 'c', score: 0.04 },
      { id: 'a', score: 0.5 },
      { id: 'd', score: 0.9 },
      { id: 'e', score: 0.05 },
    ];
    expect(bestFirst(scored, 0.05, 10).map((s) => s.id)).toEqual(['d', 'a', 'b', 'e']);
    expect(bestFirst(scored, 0.05, 2).map((s) => s.id)).toEqual(['d', 'a']);
    expect(bestFirst(scored, 1, 10)).toEqual([]);
  });

  it('rounds scores to 4 decimals', () => {
    expect([roundScore(0.123456), roundScore(0.99995), roundScore(1), roundScore(0)]).toEqual([0.1235, 1, 1, 0]);
  });
});

describe('record provenance', () => {
  it('keeps a SHA-256 of the created text, never the text; content_matches while the text is unchanged', () => {
    const created = createdProvenance(stamp('key_a'), 'first text');
    expect(created).toEqual({ created: stamp('key_a'), last_write: stamp('key_a'), created_text_sha256: sha256Hex('first text') });
    expect(JSON.stringify(created)).not.toContain('first text');
    expect(provenanceView(created, 'first text')).toEqual({ created: stamp('key_a'), last_write: stamp('key_a'), content_matches: true });
    const replaced = replacedProvenance(created, stamp('key_b'), 'second text');
    expect(replaced).toEqual({ created: stamp('key_a'), last_write: stamp('key_b'), created_text_sha256: sha256Hex('first text') });
    expect(provenanceView(replaced, 'second text')).toMatchObject({
      created: { principal_id: 'key_a' },
      last_write: { principal_id: 'key_b' },
      content_matches: false,
    });
    expect(provenanceView(replaced, 'first text').content_matches).toBe(true);
  });

  it('records written by other tools: nulls, and a replacement becomes their creation', () => {
    expect(provenanceView({}, 'x')).toEqual({ created: null, last_write: null, content_matches: false });
    expect(provenanceView(null, 'x')).toEqual({ created: null, last_write: null, content_matches: false });
    expect(replacedProvenance({}, stamp('key_c'), 'y')).toEqual(createdProvenance(stamp('key_c'), 'y'));
  });
});
