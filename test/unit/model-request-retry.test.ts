// The rules of waiting out a provider's refusals, with a clock the test drives: which errors are
// refusals, how `retry-after` is read, the cap and budget of the waits, fallbacks in order.
import { APICallError } from '@ai-sdk/provider';
import { RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { nextWaitMs, refusalOf, requestWithRetry, retryAfterMs, type RetryClock } from '../../src/engine/model-request-retry.js';

const refusal = (statusCode: number, responseHeaders: Record<string, string> = {}, responseBody = '{}') =>
  new APICallError({ message: `status ${statusCode}`, url: 'http://x', requestBodyValues: {}, statusCode, responseHeaders, responseBody });

/** A clock that only moves when a wait is made: each wait is recorded and passes at once. */
function steppedClock() {
  const waits: number[] = [];
  let now = 1_000_000;
  const clock: RetryClock = {
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
      now += ms;
    },
  };
  return { clock, waits };
}

const policy = { budgetMs: 10_000, maxWaitMs: 4_000, baseMs: 100, maxRetries: 5 };

describe('refusals for load', () => {
  it('are 429, 408, 5xx and overloaded_error bodies, found inside wrapping errors', () => {
    expect(refusalOf(refusal(429))).toMatchObject({ status: 429, reason: 'rate_limited' });
    expect(refusalOf(refusal(529))).toMatchObject({ status: 529, reason: 'overloaded' });
    expect(refusalOf(refusal(503))).toMatchObject({ reason: 'overloaded' });
    expect(refusalOf(refusal(400))).toBeNull();
    expect(refusalOf(refusal(401))).toBeNull();
    expect(refusalOf(new Error('socket hang up'))).toBeNull();
    const wrapped = new RetryError({
      message: 'failed after retries',
      reason: 'maxRetriesExceeded',
      errors: [refusal(429, { 'retry-after': '3' })],
    });
    expect(refusalOf(wrapped)).toEqual({ status: 429, reason: 'rate_limited', retryAfterMs: 3000 });
    expect(refusalOf(new Error('outer', { cause: refusal(503) }))).toMatchObject({ status: 503 });
  });

  it('read retry-after-ms first, then retry-after in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'Retry-After': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': 'Fri, 27 Nov 2026 12:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(retryAfterMs({}, now)).toBeNull();
  });

  it('wait what was asked, capped; without a header a full-jitter backoff that doubles', () => {
    expect(nextWaitMs({ status: 429, reason: 'rate_limited', retryAfterMs: 9_000 }, 0, policy)).toBe(4_000);
    const none = { status: 503, reason: 'overloaded' as const, retryAfterMs: null };
    expect(nextWaitMs(none, 0, policy, () => 1)).toBe(100);
    expect(nextWaitMs(none, 3, policy, () => 0.5)).toBe(400);
    expect(nextWaitMs(none, 10, policy, () => 1)).toBe(4_000);
  });
});

describe('requestWithRetry', () => {
  it('asks again after each wait until the model answers, telling the observer', async () => {
    const { clock, waits } = steppedClock();
    const answers = [refusal(429, { 'retry-after': '1' }), refusal(429, { 'retry-after-ms': '20' })];
    const told: string[] = [];
    const result = await requestWithRetry({
      primary: { key: 'a' },
      fallbacks: [],
      resolve: async (key) => ({ key }),
      request: async () => {
        const next = answers.shift();
        if (next) throw next;
        return 'ok';
      },
      policy,
      signal: new AbortController().signal,
      clock,
      observer: {
        waiting: (model, _refusal, until) => told.push(`wait ${model.key} until ${until.getTime()}`),
        fallingBack: () => told.push('fallback'),
        settled: (outcome) => told.push('model' in outcome ? `answered ${outcome.model.key}` : 'failed'),
      },
    });
    expect(result).toEqual({ value: 'ok', model: { key: 'a' } });
    expect(waits).toEqual([1000, 20]);
    expect(told).toEqual(['wait a until 1001000', 'wait a until 1001020', 'answered a']);
  });

  it('gives a model up past its budget or retries, then asks the fallbacks in order, passing over one it cannot use', async () => {
    const { clock, waits } = steppedClock();
    const asked: string[] = [];
    const result = await requestWithRetry({
      primary: { key: 'a' },
      fallbacks: ['gone', 'b', 'c'],
      resolve: async (key) => {
        if (key === 'gone') throw new Error('model "gone" not found');
        return { key };
      },
      request: async (model) => {
        asked.push(model.key);
        // `a` asks for a wait longer than its budget: given up at once; `b` refuses until its retries are spent.
        if (model.key === 'a') throw refusal(429, { 'retry-after': '60' });
        if (model.key === 'b') throw refusal(529, { 'retry-after': '0' });
        return 'from c';
      },
      policy,
      signal: new AbortController().signal,
      clock,
    });
    expect(result).toEqual({ value: 'from c', model: { key: 'c' } });
    expect(asked).toEqual(['a', 'b', 'b', 'b', 'b', 'b', 'b', 'c']);
    expect(waits).toEqual([0, 0, 0, 0, 0]);
  });

  it('passes any other error at once, and the last refusal when no fallback is left', async () => {
    const { clock } = steppedClock();
    const base = { primary: { key: 'a' }, resolve: async (key: string) => ({ key }), policy, signal: new AbortController().signal, clock };
    const badRequest = refusal(400);
    await expect(requestWithRetry({ ...base, fallbacks: ['b'], request: () => Promise.reject(badRequest) })).rejects.toBe(badRequest);
    const limited = refusal(429, { 'retry-after': '0' });
    await expect(requestWithRetry({ ...base, fallbacks: [], request: () => Promise.reject(limited) })).rejects.toBe(limited);
  });
});
