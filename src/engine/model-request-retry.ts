// A provider that refuses a request for load — 429 (rate limit), 408, 503 or 529 (overloaded), any
// other 5xx — is asked again here, around one model request, after the wait it asks for
// (`retry-after-ms`, `retry-after`) or, without one, after an exponential backoff with full jitter.
// The waits of one model are bounded in total (PROVIDER_RATE_LIMIT_BUDGET_MS) and each wait is capped
// (PROVIDER_RATE_LIMIT_MAX_WAIT_MS), and so is their number (PROVIDER_RATE_LIMIT_RETRIES); a cancel ends a wait at once. None of this spends the run's
// attempts (`max_attempts`, which the worker spends on a transient error that leaves this module) nor
// its `max_usage.requests`: a request the provider refused produced nothing.
//
// When one model's budget is spent, or it asks for a wait longer than what is left, the next of the
// agent's `model_settings.fallback_models` is asked (its own budget), in order; when none is left the
// last refusal is the request's error, as it was before this module existed. Errors that are not
// refusals (a bad request, a refused credential, a stream that broke after it started) pass at once.
import { APICallError } from '@ai-sdk/provider';
import { RetryError } from 'ai';

/**
 * How long a request may wait on refusals: per model in total, per wait, the first backoff step, and
 * how many times one model is asked again (so a provider answering `retry-after: 0` forever ends too).
 */
export interface RetryPolicy {
  budgetMs: number;
  maxWaitMs: number;
  baseMs: number;
  maxRetries: number;
}

/** A refusal for load: the provider's status and the wait it asked for (null: it named none). */
export interface Refusal {
  status: number;
  retryAfterMs: number | null;
  /** `rate_limited` (429) or `overloaded` (408, 5xx, Anthropic's `overloaded_error`). */
  reason: 'rate_limited' | 'overloaded';
}

/** What a request tells whoever shows the run (its `provider_wait` item, its trace). */
export interface WaitObserver<M> {
  /** A wait begins: `model` refused with `refusal`, asked again at `until`. */
  waiting(model: M, refusal: Refusal, until: Date): void;
  /** `from` is given up (its budget is spent or it asked for too long a wait); `to` is asked next. */
  fallingBack(from: M, to: M, refusal: Refusal): void;
  /** The request goes on with `model` answering, or ends with `error` (then it is the request's error). */
  settled(outcome: { model: M } | { error: unknown }): void;
}

export interface RetryClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason ?? new Error('aborted'));
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      }, ms);
      const abort = () => {
        clearTimeout(timer);
        reject(signal.reason ?? new Error('aborted'));
      };
      signal.addEventListener('abort', abort, { once: true });
    }),
};

/** The provider's HTTP error inside what the SDK threw (itself, a RetryError's last error, a cause). */
function callErrorOf(error: unknown): APICallError | null {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    if (APICallError.isInstance(current)) return current;
    current = RetryError.isInstance(current) ? current.lastError : (current as { cause?: unknown }).cause;
  }
  return null;
}

const header = (headers: Record<string, string> | undefined, name: string) => {
  if (!headers) return undefined;
  const found = Object.keys(headers).find((key) => key.toLowerCase() === name);
  return found === undefined ? undefined : headers[found];
};

/** `retry-after-ms` (milliseconds), else `retry-after` (seconds, or an HTTP date); null when absent or unreadable. */
export function retryAfterMs(headers: Record<string, string> | undefined, now: number): number | null {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (header(headers, 'retry-after-ms') !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = header(headers, 'retry-after')?.trim();
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** The refusal for load in an error, or null when the error is something else. */
export function refusalOf(error: unknown, now = Date.now()): Refusal | null {
  const call = callErrorOf(error);
  if (!call) return null;
  const status = call.statusCode;
  const overloadedBody = typeof call.responseBody === 'string' && call.responseBody.includes('overloaded_error');
  if (status === 429) return { status, reason: 'rate_limited', retryAfterMs: retryAfterMs(call.responseHeaders, now) };
  if (status === 408 || (status !== undefined && status >= 500) || overloadedBody)
    return { status: status ?? 529, reason: 'overloaded', retryAfterMs: retryAfterMs(call.responseHeaders, now) };
  return null;
}

/** The wait before asking again: what the provider asked for, else full jitter over 2ⁿ × base; capped. */
export function nextWaitMs(refusal: Refusal, waitsSoFar: number, policy: RetryPolicy, random = Math.random): number {
  const asked = refusal.retryAfterMs ?? random() * policy.baseMs * 2 ** Math.min(waitsSoFar, 20);
  return Math.min(asked, policy.maxWaitMs);
}

export interface RetryRequest<M, T> {
  /** The model asked first. */
  primary: M;
  /** The models asked in order when the one before is given up (resolved only when needed). */
  fallbacks: readonly string[];
  resolve(key: string): Promise<M>;
  /** One request to `model`; it throws what the provider answered. */
  request(model: M): Promise<T>;
  policy: RetryPolicy;
  signal: AbortSignal;
  observer?: WaitObserver<M>;
  clock?: RetryClock;
}

/** Makes the request, waiting out refusals and falling back as described at the top of this module. */
export async function requestWithRetry<M, T>(options: RetryRequest<M, T>): Promise<{ value: T; model: M }> {
  const { policy, signal, observer } = options;
  const clock = options.clock ?? realClock;
  let model = options.primary;
  const fallbacks = [...options.fallbacks];
  let spentMs = 0;
  let waits = 0;
  for (;;) {
    try {
      const value = await options.request(model);
      if (waits > 0 || fallbacks.length < options.fallbacks.length) observer?.settled({ model });
      return { value, model };
    } catch (error) {
      const refusal = signal.aborted ? null : refusalOf(error, clock.now());
      const touched = waits > 0 || fallbacks.length < options.fallbacks.length;
      if (!refusal) {
        if (touched) observer?.settled({ error });
        throw error;
      }
      const waitMs = nextWaitMs(refusal, waits, policy);
      // A model asking for a wait past what is left of its budget is given up at once, not waited on in vain.
      const askedTooLong = refusal.retryAfterMs !== null && spentMs + refusal.retryAfterMs > policy.budgetMs;
      if (waits >= policy.maxRetries || askedTooLong || spentMs + waitMs > policy.budgetMs) {
        // This model is given up: the next fallback (with a budget of its own), else the refusal stands.
        // A fallback that cannot be used now (disabled, deleted since the configuration was saved) is passed over.
        let to: M | undefined;
        while (to === undefined && fallbacks.length) to = await options.resolve(fallbacks.shift()!).catch(() => undefined);
        if (to === undefined) {
          if (touched) observer?.settled({ error });
          throw error;
        }
        observer?.fallingBack(model, to, refusal);
        model = to;
        spentMs = 0;
        waits = 0;
        continue;
      }
      observer?.waiting(model, refusal, new Date(clock.now() + waitMs));
      waits += 1;
      spentMs += waitMs;
      try {
        await clock.sleep(waitMs, signal);
      } catch (aborted) {
        observer?.settled({ error: aborted });
        throw aborted;
      }
    }
  }
}
