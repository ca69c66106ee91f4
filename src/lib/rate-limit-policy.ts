// Request-rate policies ("1200/60s": at most 1,200 requests in each 60-second window) and the
// fixed-window arithmetic the shared counters use: which window a moment falls in, what is left of
// it, and the RateLimit / RateLimit-Policy header values of the IETF httpapi draft
// (draft-ietf-httpapi-ratelimit-headers-10 and -11: structured-field lists of named policies).
// Pure functions: the stores (Redis, PostgreSQL) count, this module decides.
import { createHash } from 'node:crypto';

/** A limit: `quota` requests per `windowSeconds`. A quota of 0 means unlimited. */
export interface RateLimitPolicy {
  quota: number;
  windowSeconds: number;
}

/** The largest quota and window accepted: a day's window, a billion requests. */
export const MAX_QUOTA = 1_000_000_000;
export const MAX_WINDOW_SECONDS = 86_400;

const UNIT_SECONDS = { s: 1, m: 60, h: 3600 } as const;

/**
 * Reads `"<quota>/<window><unit>"` (`1200/60s`, `100/1m`, `5000/1h`) or `"0"` (unlimited).
 * Answers an explanation instead of a policy when the text is not one, so that the configuration
 * and the API can each report it their own way.
 */
export function parseRateLimit(text: string): RateLimitPolicy | { problem: string } {
  const value = text.trim();
  if (value === '0') return { quota: 0, windowSeconds: 0 };
  const match = /^(\d{1,10})\/(\d{1,6})(s|m|h)$/.exec(value);
  if (!match) return { problem: 'a rate limit is "<requests>/<window>" with the window in s, m or h (e.g. "1200/60s"), or "0" for none' };
  const quota = Number(match[1]);
  const windowSeconds = Number(match[2]) * UNIT_SECONDS[match[3] as keyof typeof UNIT_SECONDS];
  if (quota < 1 || quota > MAX_QUOTA) return { problem: `the number of requests must be 1 to ${MAX_QUOTA} (or the whole limit "0")` };
  if (windowSeconds < 1 || windowSeconds > MAX_WINDOW_SECONDS) return { problem: `the window must be 1 s to ${MAX_WINDOW_SECONDS} s` };
  return { quota, windowSeconds };
}

/** The canonical text of a policy, as stored and shown: `"600/60s"`, `"0"`. */
export function formatRateLimit(policy: RateLimitPolicy): string {
  return policy.quota === 0 ? '0' : `${policy.quota}/${policy.windowSeconds}s`;
}

export const isUnlimited = (policy: RateLimitPolicy) => policy.quota === 0;

/**
 * Where a subject's windows start, in ms after the epoch's window boundaries: a fixed offset from its
 * name. Windows aligned on the clock for every subject would reset every caller at the same instant
 * (a herd at each minute); this spreads the resets evenly, and every instance computes the same one.
 */
export function windowPhaseMs(subject: string, windowMs: number): number {
  return createHash('sha256').update(subject).digest().readUInt32BE(0) % windowMs;
}

/** The window `nowMs` falls in for this phase: its number and when it ends (ms after the epoch). */
export function windowAt(nowMs: number, windowMs: number, phaseMs: number): { index: number; endMs: number } {
  const index = Math.floor((nowMs - phaseMs) / windowMs);
  return { index, endMs: (index + 1) * windowMs + phaseMs };
}

/** What a counted request learns: the count in its window (itself included) and when the window ends. */
export interface WindowCount {
  count: number;
  /** Milliseconds from now until the window ends (the store's clock). */
  resetMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Whole seconds until the window ends (at least 1 while it has not ended): `t` and Retry-After. */
  resetSeconds: number;
}

export function decide(policy: RateLimitPolicy, counted: WindowCount): RateLimitDecision {
  return {
    allowed: counted.count <= policy.quota,
    remaining: Math.max(0, policy.quota - counted.count),
    // Rounded up: a client that waits this long finds a new window, never the old one.
    resetSeconds: Math.max(1, Math.ceil(counted.resetMs / 1000)),
  };
}

/** The policy's name in the headers: the service default or the key's own limit. */
export type PolicyName = 'default' | 'key';

/** `RateLimit-Policy: "default";q=1200;w=60` */
export function policyHeader(name: PolicyName, policy: RateLimitPolicy): string {
  return `"${name}";q=${policy.quota};w=${policy.windowSeconds}`;
}

/** `RateLimit: "default";r=17;t=42` */
export function rateLimitHeader(name: PolicyName, decision: RateLimitDecision): string {
  return `"${name}";r=${decision.remaining};t=${decision.resetSeconds}`;
}
