// readStored (src/lib/document-read.ts): a stored document read as its schema's type, checked in tests.
import { describe, expect, it } from 'vitest';
import { readStored } from '../../src/lib/document-read.js';
import { runOptionsSchema } from '../../src/features/agents/documents/config-schema.js';

describe('readStored', () => {
  it('answers a document that matches its schema as it is', () => {
    const stored = { labels: { team: 'core' }, overrides: { model: 'dev', retries: { output: 2 } } };
    expect(readStored(runOptionsSchema, stored)).toBe(stored);
  });

  it('refuses, outside production, a document its schema does not admit, naming where', () => {
    expect(() => readStored(runOptionsSchema, { max_usage: { requests: 0 } })).toThrow(
      /^RunOptions does not match its schema: \/max_usage\/requests/,
    );
  });
});
