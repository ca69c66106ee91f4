// The tool-argument check's pure parts: which nulls are taken as "left out", and the refusal line.
import { describe, expect, it } from 'vitest';
import { ArgumentChecker, withoutOptionalNulls } from '../../src/engine/tools/argument-check.js';
import { ValidatorCache } from '../../src/lib/json-schema-drafts.js';

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

describe('ValidatorCache', () => {
  it('compiles a schema once while it is among the most recently used, and drops the least recently used', () => {
    const cache = new ValidatorCache({ strict: false }, 2);
    const a = { type: 'string' };
    const first = cache.validatorOf(a);
    // The same text, another object (each run parses its configuration anew): the same validator.
    expect(cache.validatorOf({ type: 'string' })).toBe(first);
    cache.validatorOf({ type: 'number' });
    cache.validatorOf({ type: 'boolean' });
    // `a` was the least recently used of three with room for two: compiled again.
    expect(cache.validatorOf({ type: 'string' })).not.toBe(first);
  });
  it('never registers an $id: two schemas with the same $id both compile, each with its own rules', () => {
    const cache = new ValidatorCache({ strict: false });
    const strings = cache.validatorOf({ $id: 'https://example.com/s', type: 'string' });
    const numbers = cache.validatorOf({ $id: 'https://example.com/s', type: 'number' });
    expect([strings('x'), strings(1), numbers(1), numbers('x')]).toEqual([true, false, true, false]);
  });
  it('throws for a schema ajv cannot compile, and stays usable; a draft-07 schema is read as draft-07', () => {
    const cache = new ValidatorCache({ strict: false });
    expect(() => cache.validatorOf({ $ref: '#/$defs/missing' })).toThrow();
    expect(() => cache.validatorOf({ $ref: '#/$defs/missing' })).toThrow();
    const draft07 = cache.validatorOf({
      $schema: 'http://json-schema.org/draft-07/schema#',
      items: [{ type: 'string' }],
      additionalItems: false,
    });
    expect([draft07(['a']), draft07(['a', 'b'])]).toEqual([true, false]);
  });
});
