// The typed reader of stored JSON documents: a matching document comes back as it is (typed), a
// document that does not match is an internal error naming the column and where it went wrong.
import { describe, expect, it } from 'vitest';
import Type from 'typebox';
import { matchesDocument, readDocument, StoredDocumentError } from '../../src/lib/json-documents.js';
import { runOptionsSchema } from '../../src/features/agents/documents/config-schema.js';

const Evidence = Type.Array(Type.Object({ run_id: Type.String(), span_ids: Type.Optional(Type.Array(Type.String())) }));

describe('readDocument', () => {
  it('returns a matching document unchanged', () => {
    const stored = [{ run_id: 'run_1', span_ids: ['a'] }, { run_id: 'run_2' }];
    const read = readDocument(Evidence, stored, 'findings.evidence');
    expect(read).toBe(stored);
    // The type is derived from the schema: this line would not compile if `run_id` were not a string.
    expect(read.map((e) => e.run_id.toUpperCase())).toEqual(['RUN_1', 'RUN_2']);
  });

  it('refuses a document of another shape, naming the column and the place', () => {
    const read = () => readDocument(Evidence, [{ run_id: 7 }], 'findings.evidence');
    expect(read).toThrow(StoredDocumentError);
    expect(read).toThrow(/findings\.evidence/);
    try {
      read();
    } catch (error) {
      expect((error as StoredDocumentError).column).toBe('findings.evidence');
      expect((error as StoredDocumentError).problems[0]).toMatch(/^\/0\/run_id /);
    }
  });

  it('refuses a missing document where the schema does not allow null', () => {
    expect(() => readDocument(Evidence, null, 'findings.evidence')).toThrow(/does not match its schema/);
  });

  it('lists at most three problems', () => {
    const bad = [{ run_id: 1 }, { run_id: 2 }, { run_id: 3 }, { run_id: 4 }, { run_id: 5 }];
    expect(() => readDocument(Evidence, bad, 'findings.evidence')).toThrow(StoredDocumentError);
    try {
      readDocument(Evidence, bad, 'findings.evidence');
    } catch (error) {
      expect((error as StoredDocumentError).problems).toHaveLength(3);
    }
  });

  it('is not an AppError, so the caller is answered `internal` and the error is logged', () => {
    try {
      readDocument(Evidence, {}, 'findings.evidence');
    } catch (error) {
      expect((error as { isAppError?: boolean }).isAppError).toBeUndefined();
    }
  });
});

describe('readDocument of the run options (the agent configuration schema’s part)', () => {
  it('answers stored options that match as they are, and refuses others naming the column and the place', () => {
    const stored = { labels: { team: 'core' }, overrides: { model: 'dev', retries: { output: 2 } } };
    expect(readDocument(runOptionsSchema, stored, 'runs.options')).toBe(stored);
    expect(() => readDocument(runOptionsSchema, { max_usage: { requests: 0 } }, 'runs.options')).toThrow(
      /the stored runs\.options document does not match its schema: \/max_usage\/requests/,
    );
  });
});

describe('matchesDocument', () => {
  it('tells matching values from others without throwing', () => {
    expect(matchesDocument(Evidence, [{ run_id: 'run_1' }])).toBe(true);
    expect(matchesDocument(Evidence, [{ span_ids: [] }])).toBe(false);
  });
});
