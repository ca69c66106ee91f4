// The tool-argument check's pure parts: which nulls are taken as "left out", and the refusal line.
import { describe, expect, it } from 'vitest';
import { ArgumentChecker, withoutOptionalNulls } from '../../src/engine/tools/argument-check.js';

const schema = {
  type: 'object',
  properties: {
    url: { type: 'string' },
    note: { type: ['string', 'null'] },
    options: { type: 'object', properties: { depth: { type: 'integer' }, mode: { type: 'string' } }, required: ['mode'] },
  },
  required: ['url'],
};

describe('withoutOptionalNulls', () => {
  it('drops null members that are not required, at every level the schema describes', () => {
    expect(withoutOptionalNulls(schema, { url: 'x', note: null, options: { depth: null, mode: null } })).toEqual({
      url: 'x',
      options: { mode: null },
    });
  });
  it('returns the same value when nothing is dropped, and leaves non-objects alone', () => {
    const value = { url: 'x', options: { mode: 'a' } };
    expect(withoutOptionalNulls(schema, value)).toBe(value);
    expect(withoutOptionalNulls(schema, 'text')).toBe('text');
    expect(withoutOptionalNulls({ type: 'string' }, { a: null })).toEqual({ a: null });
  });
});

describe('ArgumentChecker', () => {
  const checker = new ArgumentChecker();
  it('keeps a null the schema allows, and takes a null it does not allow as left out', () => {
    expect(checker.check('t', schema, { url: 'x', note: null })).toEqual({ input: { url: 'x', note: null } });
    expect(checker.check('t', schema, { url: 'x', options: { depth: null, mode: 'a' } })).toEqual({
      input: { url: 'x', options: { mode: 'a' } },
    });
  });
  it('refuses a null that is required, naming where', () => {
    expect(checker.check('t', schema, { url: null })).toEqual({ problem: 'invalid arguments: /url must be string' });
    expect(checker.check('t', schema, { url: 'x', options: { mode: null } })).toEqual({
      problem: 'invalid arguments: /options/mode must be string',
    });
  });
  it('leaves calls of a schema it cannot compile unchecked', () => {
    const dangling = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } };
    expect(checker.check('t', dangling, { a: 1 })).toEqual({ input: { a: 1 } });
  });
});
