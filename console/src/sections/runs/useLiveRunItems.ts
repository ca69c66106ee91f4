// A run's items, live: the runItems page as the baseline (the newest items, widened to every item still
// in progress), then the runItems subscription from the baseline's stream position. Every event is an
// item's whole newest state, so the hook keeps one state per ordinal and takes a state only when its
// stream position is newer than the one it has (a replay after a reconnect can repeat states). When
// the subscription breaks, it subscribes again from the highest position received, as the API asks.
import { ConsoleRunItemsDocument, ConsoleRunItemsLiveDocument } from '../../../generated/graphql';
import { useCallback, useEffect, useReducer, useState } from 'react';
import { ServiceError, useClient } from '../../api';
import { type RunItem } from './documents';

/** The number in a stream position `s<sequence>`; 0 for none. */
export function streamSequence(position: string | null | undefined): number {
  const match = /^s(\d+)$/.exec(position ?? '');
  return match ? Number(match[1]) : 0;
}

const BASELINE_LIMIT = 500;
const RETRY_DELAYS_MS = [500, 1000, 2000, 5000];

type Items = Map<number, RunItem>;

function merge(items: Items, incoming: RunItem[]): Items {
  let next: Items | null = null;
  for (const item of incoming) {
    const known = (next ?? items).get(item.ordinal);
    if (known && streamSequence(known.lastStreamId) > streamSequence(item.lastStreamId)) continue;
    if (known && known.lastStreamId === item.lastStreamId && known.state === item.state) continue;
    next ??= new Map(items);
    next.set(item.ordinal, item);
  }
  return next ?? items;
}

export interface LiveItems {
  items: RunItem[];
  loading: boolean;
  /** A failure to load or to follow (the hook keeps trying to follow after transport errors). */
  error: unknown;
  /** True while the subscription is open and the run may still change. */
  live: boolean;
  /** True once the run is sealed or waiting and every item has its last state. */
  complete: boolean;
  /** Items before the first one shown exist (a long run: the baseline holds the newest). */
  hasEarlier: boolean;
  loadEarlier(): Promise<void>;
}

export function useLiveRunItems(runId: string): LiveItems {
  const client = useClient();
  const [items, apply] = useReducer(merge, new Map() as Items);
  const [status, setStatus] = useState({ loading: true, live: false, complete: false, error: undefined as unknown });

  useEffect(() => {
    let stopped = false;
    let subscription: AsyncIterableIterator<{ runItems: RunItem }> | null = null;
    let highest: string | null = null;
    const note = (incoming: RunItem[]) => {
      for (const item of incoming) if (streamSequence(item.lastStreamId) > streamSequence(highest)) highest = item.lastStreamId;
      apply(incoming);
    };
    const follow = async () => {
      try {
        const baseline = await client.query(ConsoleRunItemsDocument, { runId, limit: BASELINE_LIMIT });
        if (stopped) return;
        note(baseline.runItems.items);
        if (streamSequence(baseline.runItems.position) > streamSequence(highest)) highest = baseline.runItems.position;
        if (baseline.runItems.complete) {
          setStatus({ loading: false, live: false, complete: true, error: undefined });
          return;
        }
      } catch (error) {
        if (!stopped) setStatus({ loading: false, live: false, complete: false, error });
        return;
      }
      for (let attempt = 0; !stopped; attempt++) {
        setStatus({ loading: false, live: true, complete: false, error: undefined });
        try {
          subscription = client.subscribe(ConsoleRunItemsLiveDocument, { runId, position: highest });
          for await (const event of subscription) {
            if (stopped) return;
            note([event.runItems]);
            attempt = 0;
          }
          if (!stopped) setStatus({ loading: false, live: false, complete: true, error: undefined });
          return;
        } catch (error) {
          if (stopped) return;
          // A refusal (not found, no permission) will not change by asking again; a dropped socket may.
          const transient = !(error instanceof ServiceError) || error.code === 'transport';
          setStatus({ loading: false, live: false, complete: false, error });
          if (!transient) return;
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]));
        }
      }
    };
    void follow();
    return () => {
      stopped = true;
      void subscription?.return?.(undefined);
    };
  }, [client, runId]);

  const sorted = [...items.values()].sort((a, b) => a.ordinal - b.ordinal);
  const firstOrdinal = sorted[0]?.ordinal ?? 1;
  // Earlier items are committed history (only the newest can be in progress): read once, not followed.
  const loadEarlier = useCallback(async () => {
    try {
      const page = await client.query(ConsoleRunItemsDocument, { runId, before: firstOrdinal, limit: BASELINE_LIMIT });
      apply(page.runItems.items);
    } catch (error) {
      setStatus((previous) => ({ ...previous, error }));
    }
  }, [client, runId, firstOrdinal]);
  return { items: sorted, ...status, hasEarlier: firstOrdinal > 1, loadEarlier };
}
