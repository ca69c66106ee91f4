// A run's trace for the waterfall. A run that was settled when the page loaded is read once
// (runTrace). A run that may still move is followed through the runTraceSpans subscription: the
// spans stored so far, then each span as it starts and ends (an attempt's spans are stored only when
// it ends, so the service sends them as they happen), until the run is sealed or waiting. Nothing
// polls. A dropped subscription is opened again: it sends the whole trace again, and the merge keeps
// each span's newest state (an ended span is never taken back to in progress).
import { ConsoleRunTraceDocument, ConsoleRunTraceLiveDocument } from '../../../generated/graphql';
import { useEffect, useReducer, useState } from 'react';
import { ServiceError, useClient } from '../../api';
import { mergeSpan, type SpanState } from './trace-model';

const RETRY_DELAYS_MS = [500, 1000, 2000, 5000];

type Spans = Map<string, SpanState>;
const apply = (spans: Spans, incoming: SpanState[]): Spans => incoming.reduce(mergeSpan, spans);

export interface RunTraceState {
  spans: Spans;
  loading: boolean;
  error: unknown;
  /** True while the subscription is open (the run may still add spans). */
  live: boolean;
}

export function useRunTrace(runId: string, follow: boolean): RunTraceState {
  const client = useClient();
  const [spans, add] = useReducer(apply, new Map() as Spans);
  const [status, setStatus] = useState({ loading: true, live: false, error: undefined as unknown });

  useEffect(() => {
    let stopped = false;
    let subscription: AsyncIterableIterator<unknown> | null = null;
    const read = async () => {
      try {
        const { runTrace } = await client.query(ConsoleRunTraceDocument, { runId });
        if (!stopped) add(runTrace.spans.map((span) => ({ span, inProgress: false })));
        if (!stopped) setStatus({ loading: false, live: false, error: undefined });
      } catch (error) {
        if (!stopped) setStatus({ loading: false, live: false, error });
      }
    };
    const followLive = async () => {
      for (let attempt = 0; !stopped; attempt++) {
        setStatus((previous) => ({ ...previous, live: true, error: undefined }));
        try {
          const events = client.subscribe(ConsoleRunTraceLiveDocument, { runId });
          subscription = events;
          let batch: SpanState[] = [];
          let scheduled = false;
          for await (const event of events) {
            if (stopped) return;
            // The stored trace comes as a burst of events: taken in one render per task.
            batch.push(event.runTraceSpans);
            if (!scheduled) {
              scheduled = true;
              queueMicrotask(() => {
                scheduled = false;
                const taken = batch;
                batch = [];
                if (!stopped) add(taken);
              });
            }
            setStatus((previous) => (previous.loading ? { ...previous, loading: false } : previous));
            attempt = 0;
          }
          if (batch.length && !stopped) add(batch);
          if (!stopped) setStatus({ loading: false, live: false, error: undefined });
          return;
        } catch (error) {
          if (stopped) return;
          const transient = !(error instanceof ServiceError) || error.code === 'transport';
          setStatus({ loading: false, live: false, error });
          if (!transient) return;
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)]));
        }
      }
    };
    void (follow ? followLive() : read());
    return () => {
      stopped = true;
      void subscription?.return?.(undefined);
    };
  }, [client, runId, follow]);

  return { spans, ...status };
}
