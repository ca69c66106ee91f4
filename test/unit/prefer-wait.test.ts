// `Prefer: wait=N` as RFC 7240 reads it: the first `wait`, whole seconds, cut to the maximum; anything
// else is no wait at all (ignored, not an error).
import { describe, expect, it } from 'vitest';
import { MAX_WAIT_SECONDS, parsePreferWait } from '../../src/lib/prefer-wait.js';

describe('parsePreferWait', () => {
  it('reads whole seconds, with other preferences, parameters, quotes and spaces around', () => {
    expect(parsePreferWait('wait=10')).toBe(10);
    expect(parsePreferWait('WAIT = 5')).toBe(5);
    expect(parsePreferWait('respond-async, wait=0')).toBe(0);
    expect(parsePreferWait('return=minimal, wait="7"; x=y')).toBe(7);
    expect(parsePreferWait('wait=3, wait=9')).toBe(3);
    expect(parsePreferWait(`wait=${MAX_WAIT_SECONDS + 1}`)).toBe(MAX_WAIT_SECONDS);
    expect(parsePreferWait('wait=99999999999')).toBe(MAX_WAIT_SECONDS);
  });

  it('is no wait for anything that is not whole seconds', () => {
    for (const header of [
      null,
      '',
      'wait',
      'wait=',
      'wait=-1',
      'wait=1.5',
      'wait=abc',
      'wait=1e3',
      'waiting=3',
      'handling=lenient',
      'wait=9999999999999',
    ])
      expect(parsePreferWait(header), String(header)).toBeNull();
  });
});
