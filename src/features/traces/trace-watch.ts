// Following a run's trace while the run runs (the runTraceSpans subscription): the spans stored so
// far, then each span of the trace as it starts and as it ends, until the run is sealed or waiting.
//
// Why spans are sent as they happen rather than read again: an attempt's spans are stored only when
// the attempt ends (in the statement that seals it or hands it on, see src/traces/span-store.ts), so
// a reader of the stored trace sees nothing of the attempt in progress — and reading it again on a
// timer is the polling subscriptions must not do. The tracer publishes every span's start and end on
// the event bus by trace id (`traceSpan`); this follower listens there, and to the run's own changes
// (`runChanged`), which tell it the trace id when a worker first claims the run and when the run
// settles. Nothing polls and no database connection is held while waiting.
import type { TraceSpan } from '../../generated/prisma/client.js';
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { onReconnected, subscriptionsActive } from '../../lib/events.js';
import type { CallContext } from '../../services/call-context.js';
import { listenTo, TRACE_REPLAY_CHANNEL } from '../../services/event-topics.js';
import type { LiveSpan } from '../../traces/live-spans.js';
import type { SpanRow } from '../../traces/span-store.js';
import { getRun } from '../runs/runs.js';
import { runSettled } from '../runs/run-watch.js';
import { traceOf } from './traces.js';

/** A span of the followed trace: finished, or still in progress (its end then reads as its start). */
export interface TraceSpanUpdate {
  span: TraceSpan;
  inProgress: boolean;
}

/** A span as the bus carries it (the stored row's JSON record), in the shape a stored span is read. */
export function spanOfRow(row: SpanRow): TraceSpan {
  return {
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    workspaceId: row.workspace_id,
    runId: row.run_id,
    agentId: row.agent_id,
    attempt: row.attempt,
    name: row.name,
    kind: row.kind,
    attributes: row.attributes as TraceSpan['attributes'],
    events: row.events as unknown as TraceSpan['events'],
    links: row.links as unknown as TraceSpan['links'],
    statusCode: row.status_code,
    statusMessage: row.status_message,
    startTime: new Date(row.start_time),
    startTimeUnixNano: BigInt(row.start_time_unix_nano),
    endTimeUnixNano: BigInt(row.end_time_unix_nano),
  };
}

type Heard =
  { kind: 'span'; live: LiveSpan } | { kind: 'run'; traceId: string | null; status: string; version: number } | { kind: 'reread' };

/**
 * Emits the stored spans of the trace `runId` belongs to (a run of the caller's workspace, `read`;
 * elsewhere not found), then each span of that trace as it starts and ends; ends once the run is
 * sealed or waiting (at once when it already is), when its last attempt's spans are stored.
 */
export function watchRunTrace(call: CallContext, runId: string): AsyncGenerator<TraceSpanUpdate, void, undefined> {
  return closableStream(async function* (closed) {
    const { events } = call.deps;
    const workspaceId = call.actor.workspaceId;
    const queue: Heard[] = [];
    let notify: (() => void) | null = null;
    const wake = () => {
      const resolve = notify;
      notify = null;
      resolve?.();
    };
    const hear = (heard: Heard) => {
      queue.push(heard);
      wake();
    };
    const stops: (() => void)[] = [];
    let followed: string | null = null;
    let replayAsked = false;
    /**
     * Once listening (Redis has the SUBSCRIBE), asks the instances running the trace's attempts for
     * the spans they hold: those started or ended before this follower came are not stored yet.
     */
    const askReplay = async () => {
      if (!followed || replayAsked) return;
      replayAsked = true;
      await subscriptionsActive(events);
      events.publish('traceReplay', TRACE_REPLAY_CHANNEL, { traceId: followed });
    };
    /** Listens to the trace's spans (once: a run's trace id never changes after it is set). */
    const followTrace = (traceId: string | null) => {
      if (!traceId || followed) return false;
      followed = traceId;
      stops.push(
        listenTo(events, 'traceSpan', traceId, (live) => {
          // Trace ids are random, but a span is shown only to its own workspace all the same.
          if (live.span.workspace_id === workspaceId) hear({ kind: 'span', live });
        }),
      );
      return true;
    };
    stops.push(
      listenTo(events, 'runChanged', runId, (run) => {
        // Listened synchronously: in process, the trace's first span (published right after the
        // claim that set the trace id) is heard.
        followTrace(run.traceId);
        hear({ kind: 'run', traceId: run.traceId, status: run.status, version: run.version });
      }),
      // After a Redis outage the spans published meanwhile may be lost: the stored trace is sent again.
      onReconnected(events, () => hear({ kind: 'reread' })),
      onClose(closed, wake),
    );
    try {
      await subscriptionsActive(events);
      let run = await getRun(call, runId);
      followTrace(run.traceId);
      if (!runSettled(run.status)) await askReplay();
      for (const span of (await traceOf(call, run)).spans) yield { span, inProgress: false };
      if (runSettled(run.status)) return;
      while (!runSettled(run.status) && !closed.aborted) {
        const next = queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => (notify = resolve));
          continue;
        }
        if (next.kind === 'span') yield { span: spanOfRow(next.live.span), inProgress: next.live.open };
        else if (next.kind === 'reread') {
          run = await getRun(call, runId);
          followTrace(run.traceId);
          for (const span of (await traceOf(call, run)).spans) yield { span, inProgress: false };
        } else if (next.kind === 'run' && next.version > run.version) {
          // Settled: the seal stored the last attempt's spans in the same statement, and their ends
          // were published before it.
          run = { ...run, status: next.status, version: next.version, traceId: next.traceId };
          followTrace(next.traceId);
          if (!runSettled(run.status)) await askReplay();
        }
      }
      // Settled: its spans are stored with the seal. They are sent once more as stored: a follower
      // that came after the last attempt's span ended and before the seal committed heard nothing of
      // that attempt (the tracer had let go of its spans, the database did not have them yet); one
      // that learned the trace id late, or began listening through Redis after a span was sent, missed
      // some. Each ends with the whole trace all the same.
      if (!closed.aborted && followed) for (const span of (await traceOf(call, run)).spans) yield { span, inProgress: false };
    } finally {
      for (const stop of stops) stop();
    }
  });
}
