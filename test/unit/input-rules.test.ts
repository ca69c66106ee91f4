// The shared input rules as pure functions: text, nesting, ids, timestamps, bounded quoting, and the
// iterative walks (canonical JSON, the document depth measure) that must not overflow the stack.
import { describe, expect, it } from 'vitest';
import { checkId, checkText, checkValue, MAX_ID_LENGTH, MAX_JSON_DEPTH, textProblem } from '../../src/lib/input-rules.js';
import { parseTimestamp } from '../../src/lib/timestamps.js';
import { canonicalize } from '../../src/lib/canonical-json.js';
import { isAppError, MAX_ECHO_CHARS, quoteInput } from '../../src/lib/errors.js';
import { documentDepth } from '../../src/graphql/input-rules.js';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, field: error.details?.field };
    throw error;
  }
  return null;
};

/** `levels` objects and arrays nested in each other, built without recursion. */
const nested = (levels: number, leaf: unknown = 1) => {
  let value: unknown = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? { a: value } : [value];
  return value;
};

describe('text', () => {
  it('finds NUL and lone surrogates, and accepts surrogate pairs', () => {
    expect(textProblem('plain ✓ 😀')).toBeNull();
    expect(textProblem('a\u0000b')).toMatch(/NUL/);
    for (const lone of ['\ud800', 'a\ud800b', '\udc00', 'x\udfff', '\ud83d\ude00\ud83d', '\ude00\ud83d'])
      expect(textProblem(lone), JSON.stringify(lone)).toMatch(/surrogate/);
    expect(refusal(() => checkText('\u0000', 'q'))).toEqual({ code: 'invalid_argument', field: 'q' });
  });

  it('limits ids to 256 characters', () => {
    expect(refusal(() => checkId('a'.repeat(MAX_ID_LENGTH), 'id'))).toBeNull();
    expect(refusal(() => checkId('a'.repeat(MAX_ID_LENGTH + 1), 'agent_id'))).toEqual({ code: 'invalid_argument', field: 'agent_id' });
  });
});

describe('JSON values', () => {
  it('names the path of a bad string or key', () => {
    expect(refusal(() => checkValue({ labels: { team: 'a\u0000' } }, 'input'))?.field).toBe('input.labels.team');
    expect(refusal(() => checkValue({ calls: [{ out: '\ud800' }] }, 'body'))?.field).toBe('body.calls.0.out');
    expect(refusal(() => checkValue({ ['k\u0000']: 1 }, 'labels'))?.field).toBe('labels');
  });

  it(`accepts ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}, iteratively even at 100,000`, () => {
    expect(refusal(() => checkValue(nested(MAX_JSON_DEPTH), 'v'))).toBeNull();
    expect(refusal(() => checkValue(nested(MAX_JSON_DEPTH + 1), 'v'))?.code).toBe('invalid_argument');
    expect(refusal(() => checkValue(nested(MAX_JSON_DEPTH), 'v', 1))?.code).toBe('invalid_argument');
    expect(refusal(() => checkValue(nested(100_000), 'v'))?.code).toBe('invalid_argument');
  });
});

describe('timestamps', () => {
  it('accepts ISO 8601 with a zone in years 0001–9999 only', () => {
    for (const ok of [
      '0001-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2024-02-29T12:00Z',
      '2026-01-31T12:00:00+0130',
      '2026-01-31T12:00:00.123456-05:00',
    ]) {
      expect(parseTimestamp(ok), ok).toBeInstanceOf(Date);
    }
    for (const bad of [
      '0000-01-01T00:00:00Z',
      '10000-01-01T00:00:00Z',
      '+002026-01-01T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01',
      '2026-01-01T00:00:00',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:30:00-01:00',
      'yesterday',
    ]) {
      expect(parseTimestamp(bad), bad).toBeNull();
    }
  });
});

describe('bounded echo', () => {
  it(`quotes at most ${MAX_ECHO_CHARS} characters and never splits a surrogate pair`, () => {
    expect(quoteInput('short')).toBe('"short"');
    expect(quoteInput('x'.repeat(900_000))).toBe(`"${'x'.repeat(MAX_ECHO_CHARS)}…"`);
    const pairAtCut = `${'x'.repeat(MAX_ECHO_CHARS - 1)}😀tail`;
    expect(quoteInput(pairAtCut)).toBe(`"${'x'.repeat(MAX_ECHO_CHARS - 1)}…"`);
  });
});

describe('iterative walks', () => {
  it('canonicalizes a document nested 100,000 levels without recursion, same form as before', () => {
    expect(canonicalize({ b: [1, undefined, { d: null, c: NaN }], a: 'x', u: undefined })).toBe(
      '{"a":"x","b":[1,null,{"c":null,"d":null}]}',
    );
    expect(canonicalize(nested(100_000)).length).toBeGreaterThan(300_000);
  });

  it('measures GraphQL document nesting, skipping strings, block strings and comments', () => {
    expect(documentDepth('query { a { b(x: [1, {y: 2}]) } }')).toBe(5);
    expect(documentDepth('query { a(s: "{{{{[[[[", t: """ {{{{ \\""" [[[[ """) } # {{{{{{\n')).toBe(2);
    expect(documentDepth('['.repeat(200_000))).toBe(200_000);
  });
});
