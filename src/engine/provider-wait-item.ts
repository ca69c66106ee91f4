// What a run shows while one of its model requests waits on a provider's refusal (model-request-retry.ts):
// a `provider_wait` item, opened at the first refusal, changed at each later wait or fallback (so
// subscribers see the new `until` at once), and ended when the request goes on or gives up.
import type { RunItemStream, RunItemState } from './items.js';
import { requestWithRetry, type RetryRequest, type WaitObserver } from './model-request-retry.js';
import type { Deps } from '../services/deps.js';
import { describeError } from './attempt-errors.js';

/** The request that waits: the run's own model turn, the reviewer's, a summary's, a media description's. */
export type WaitPurpose = 'model_turn' | 'review' | 'compaction' | 'media_description';

export function providerWaitItem<M extends { key: string }>(items: RunItemStream, purpose: WaitPurpose): WaitObserver<M> {
  let item: RunItemState | null = null;
  let waits = 0;
  const fallbacks: { from: string; to: string; status: number }[] = [];
  const show = (patch: Record<string, unknown>) => {
    if (item) items.update(item, patch);
    else item = items.open('provider_wait', { purpose, waits, fallbacks: [], answered_by: null, ...patch });
  };
  return {
    waiting(model, refusal, until) {
      waits += 1;
      show({ model: model.key, reason: refusal.reason, status: refusal.status, until: until.toISOString(), waits });
    },
    fallingBack(from, to, refusal) {
      fallbacks.push({ from: from.key, to: to.key, status: refusal.status });
      // A copy: the published snapshot must not change under a subscriber.
      show({ model: to.key, reason: refusal.reason, status: refusal.status, until: null, fallbacks: [...fallbacks] });
    },
    settled(outcome) {
      if (!item) return;
      if ('model' in outcome) items.complete(item, { until: null, answered_by: outcome.model.key });
      else items.complete(item, { until: null, error: describeError(outcome.error) }, 'failed');
    },
  };
}

/**
 * One model request of a run with the provider's refusals waited out and the fallbacks asked
 * (model-request-retry.ts), the waits shown as a `provider_wait` item of `purpose`.
 */
export function runModelRequest<M extends { key: string }, T>(
  options: Omit<RetryRequest<M, T>, 'policy' | 'observer'> & { deps: Deps; items: RunItemStream; purpose: WaitPurpose },
): Promise<{ value: T; model: M }> {
  const { deps, items, purpose, ...request } = options;
  return requestWithRetry<M, T>({ ...request, policy: deps.config.providerRetry, observer: providerWaitItem<M>(items, purpose) });
}

/** One request to a model that has no fallbacks (a summary, a media description): refusals waited out. */
export type RefusalRetry = <T>(model: { key: string }, ask: () => Promise<T>) => Promise<T>;

export function refusalRetry(deps: Deps, items: RunItemStream, purpose: WaitPurpose, signal: AbortSignal): RefusalRetry {
  return async (model, ask) =>
    (
      await runModelRequest({
        deps,
        items,
        purpose,
        signal,
        primary: model,
        fallbacks: [],
        resolve: () => Promise.reject(new Error('no fallback models here')),
        request: () => ask(),
      })
    ).value;
}
