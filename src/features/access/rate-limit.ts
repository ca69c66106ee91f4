// Request-rate limits per caller: each API key and each login session may make RATE_LIMIT_PER_KEY
// requests per window (a key's own `rate_limit` overrides it; 0: unlimited), counted in windows
// shared by every instance (rate-limit-counters.ts). This module decides for one request: who is
// counted, under which policy, and what the answer's headers say. Which requests are counted at all
// (REST and GraphQL over HTTP with a credential, and queries and mutations over graphql-ws; never
// subscriptions, health or metrics) is decided where each surface is served (src/app.ts,
// src/graphql/ws.ts); docs/api/README.md, "Rate limits", states the rules.
import { AppError } from '../../lib/errors.js';
import { decide, isUnlimited, policyHeader, rateLimitHeader, type PolicyName, type RateLimitPolicy } from '../../lib/rate-limit-policy.js';
import type { Actor, Deps } from '../../services/deps.js';
import { authenticate } from './auth.js';
import { postgresCounters, redisCounters, type RequestCounters } from './rate-limit-counters.js';

/** The outcome for one counted request: the headers every answer carries, and the refusal over the limit. */
export interface RateLimitOutcome {
  headers: Record<string, string>;
  /** `rate_limited` (429) when the request is over the limit; null when it may go on. */
  refusal: AppError | null;
}

export interface RateLimiter {
  readonly store: RequestCounters['kind'];
  /**
   * Counts the request of the caller these credentials name. Null when nothing is counted: no
   * credential or one that does not authenticate (the request answers its 401/403 as before), an
   * unlimited policy, or counters that cannot be reached (the request goes on, see `countFailed`).
   */
  check(authorization: string | null | undefined, workspaceHeader: string | null | undefined): Promise<RateLimitOutcome | null>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The policy a caller is held to, and its name in the headers. */
export function policyOf(deps: Deps, actor: Actor): { name: PolicyName; policy: RateLimitPolicy } {
  return actor.rateLimit ? { name: 'key', policy: actor.rateLimit } : { name: 'default', policy: deps.config.rateLimitPerKey };
}

/** What is counted: the login session (not the user: each session has its own budget), else the API key. */
export const subjectOf = (actor: Actor) => actor.loginSessionId ?? actor.principalId;

export function createRateLimiter(deps: Deps): RateLimiter {
  const redis = deps.config.redisUrl ? redisCounters(deps.config.redisUrl) : null;
  const counters: RequestCounters = redis ?? postgresCounters(deps.db);
  // A store that cannot be reached is logged once per outage, not once per request.
  let failing = false;
  const countFailed = (error: unknown) => {
    if (!failing)
      deps.logger.warn({ err: error, store: counters.kind }, 'rate-limit counters unreachable; requests are not limited meanwhile');
    failing = true;
  };
  return {
    store: counters.kind,
    async check(authorization, workspaceHeader) {
      if (!authorization) return null;
      let actor: Actor;
      try {
        // Through the credential cache: the request's own authentication, a moment later, finds it there.
        actor = await authenticate(deps, authorization, workspaceHeader);
      } catch {
        return null;
      }
      const { name, policy } = policyOf(deps, actor);
      if (isUnlimited(policy)) return null;
      let counted;
      try {
        counted = await counters.count(subjectOf(actor), policy);
      } catch (error) {
        // The limit protects the service; it must not become an outage of its own. Fail open.
        countFailed(error);
        return null;
      }
      if (failing) deps.logger.info({ store: counters.kind }, 'rate-limit counters reachable again');
      failing = false;
      const decision = decide(policy, counted);
      const headers: Record<string, string> = {
        'RateLimit-Policy': policyHeader(name, policy),
        RateLimit: rateLimitHeader(name, decision),
      };
      if (decision.allowed) return { headers, refusal: null };
      headers['Retry-After'] = String(decision.resetSeconds);
      return {
        headers,
        refusal: new AppError(
          'rate_limited',
          `too many requests: this ${actor.loginSessionId ? 'login session' : 'API key'} may make ${policy.quota} requests per ${policy.windowSeconds} s; retry after ${decision.resetSeconds} s`,
          { policy: name, quota: policy.quota, window_seconds: policy.windowSeconds, retry_after_seconds: decision.resetSeconds },
        ),
      };
    },
    async start() {
      // Connected before the first request, so the first requests are counted too; a Redis that is
      // away at the start only means requests go uncounted until it is back.
      await redis?.connect().catch((error) => countFailed(error));
    },
    async stop() {
      await counters.close();
    },
  };
}
