// The rate-limit policy text, the fixed-window arithmetic and the header values (src/lib/rate-limit-policy.ts).
import { describe, expect, it } from 'vitest';
import {
  decide,
  formatRateLimit,
  parseRateLimit,
  policyHeader,
  rateLimitHeader,
  windowAt,
  windowPhaseMs,
} from '../../src/lib/rate-limit-policy.js';
import { loadConfig } from '../../src/config.js';

describe('rate limit policies', () => {
  it('read "<requests>/<window><unit>" and "0", in their canonical form', () => {
    expect(parseRateLimit('1200/60s')).toEqual({ quota: 1200, windowSeconds: 60 });
    expect(parseRateLimit(' 100/1m ')).toEqual({ quota: 100, windowSeconds: 60 });
    expect(parseRateLimit('5000/1h')).toEqual({ quota: 5000, windowSeconds: 3600 });
    expect(parseRateLimit('0')).toEqual({ quota: 0, windowSeconds: 0 });
    expect(formatRateLimit({ quota: 100, windowSeconds: 60 })).toBe('100/60s');
    expect(formatRateLimit({ quota: 0, windowSeconds: 0 })).toBe('0');
  });

  it('refuse anything else with the reason', () => {
    for (const bad of ['', '60', '1200/60', '1200 / 60s', '-1/60s', '0/60s', '10/0s', '10/2d', '10/25h', '1.5/60s', '10/60S', '00']) {
      const parsed = parseRateLimit(bad);
      expect('problem' in parsed, bad).toBe(true);
    }
    expect(() => loadConfig({ RATE_LIMIT_PER_KEY: 'lots' })).toThrow(/RATE_LIMIT_PER_KEY/);
    expect(loadConfig({}).rateLimitPerKey).toEqual({ quota: 1200, windowSeconds: 60 });
    expect(loadConfig({ RATE_LIMIT_PER_KEY: '0' }).rateLimitPerKey.quota).toBe(0);
  });
});

describe('fixed windows', () => {
  it('are windowMs long, offset by the phase, and the moment falls inside its window', () => {
    const windowMs = 60_000;
    for (const [now, phase] of [
      [1_000_000_000_000, 0],
      [1_000_000_000_000, 59_999],
      [1_000_000_012_345, 12_345],
      [1_000_000_012_344, 12_345],
    ] as const) {
      const { index, endMs } = windowAt(now, windowMs, phase);
      expect(endMs - windowMs).toBeLessThanOrEqual(now);
      expect(endMs).toBeGreaterThan(now);
      expect((endMs - phase) % windowMs).toBe(0);
      expect(windowAt(endMs, windowMs, phase).index).toBe(index + 1);
      expect(windowAt(endMs - 1, windowMs, phase).index).toBe(index);
    }
  });

  it('start at a phase of each subject, stable and within the window, spread over it', () => {
    expect(windowPhaseMs('key_A', 60_000)).toBe(windowPhaseMs('key_A', 60_000));
    const phases = Array.from({ length: 200 }, (_, i) => windowPhaseMs(`key_${i}`, 60_000));
    expect(phases.every((phase) => phase >= 0 && phase < 60_000)).toBe(true);
    // Spread: both halves of the window get subjects.
    expect(phases.filter((phase) => phase < 30_000).length).toBeGreaterThan(50);
    expect(phases.filter((phase) => phase >= 30_000).length).toBeGreaterThan(50);
  });

  it('allow the quota, then refuse; remaining never below 0; reset rounded up to whole seconds', () => {
    const policy = { quota: 3, windowSeconds: 60 };
    expect(decide(policy, { count: 1, resetMs: 59_001 })).toEqual({ allowed: true, remaining: 2, resetSeconds: 60 });
    expect(decide(policy, { count: 3, resetMs: 1_000 })).toEqual({ allowed: true, remaining: 0, resetSeconds: 1 });
    expect(decide(policy, { count: 4, resetMs: 1 })).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
    expect(decide(policy, { count: 9, resetMs: 0 })).toEqual({ allowed: false, remaining: 0, resetSeconds: 1 });
  });

  it('are described in the structured-field form of the httpapi draft', () => {
    expect(policyHeader('default', { quota: 1200, windowSeconds: 60 })).toBe('"default";q=1200;w=60');
    expect(rateLimitHeader('key', { allowed: true, remaining: 17, resetSeconds: 42 })).toBe('"key";r=17;t=42');
  });
});
