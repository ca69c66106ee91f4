// The process's OpenTelemetry tracer provider for run traces. Every finished span goes to the
// database span processor (span-store.ts: stored in batches when an attempt ends) and — when an
// OTLP/HTTP endpoint is configured — to a batch processor that exports it too. Spans are started
// with explicit parents (the engine passes its spans along), so no global context manager is needed.
import { ROOT_CONTEXT, trace, TraceFlags, type Attributes, type Link, type Span, type SpanKind, type Tracer } from '@opentelemetry/api';
import { hrTime } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  RandomIdGenerator,
  type IdGenerator,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { Config } from '../config.js';
import type { Db } from '../db.js';
import type { Logger } from '../lib/logger.js';
import { LiveSpanProcessor, type LiveSpanListener } from './live-spans.js';
import { DatabaseSpanProcessor } from './span-store.js';

/**
 * Random ids, except that the trace id of the next root span may be chosen beforehand: a run's
 * trace id is decided when a worker claims it (stored on the run), and the run span starts that
 * trace. Starting a span is synchronous, so the preset cannot reach another span.
 */
class PresetTraceIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  preset: string | null = null;

  generateTraceId(): string {
    const preset = this.preset;
    this.preset = null;
    return preset ?? this.random.generateTraceId();
  }

  generateSpanId(): string {
    return this.random.generateSpanId();
  }
}

/** A new random trace id (32 lowercase hex digits, not all zero). */
export function newTraceId(): string {
  return new RandomIdGenerator().generateTraceId();
}

export interface StartSpan {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  /** The parent: a span of this process, or a span context stored elsewhere (a subagent's delegating call). */
  parent?: Span | { traceId: string; spanId: string };
  /** The trace a root span starts (ignored with a parent: a child is in its parent's trace). */
  traceId?: string;
  links?: Link[];
}

export class RunTracer {
  readonly store: DatabaseSpanProcessor;
  private readonly provider: BasicTracerProvider;
  private readonly tracer: Tracer;
  private readonly ids = new PresetTraceIds();
  private readonly live: LiveSpanProcessor | null;

  /** `live`: told of every span of a run as it starts and ends (the service publishes them to live followers). */
  constructor(config: Config, db: Db, logger: Logger, live?: LiveSpanListener) {
    const following = live ? new LiveSpanProcessor(live) : null;
    this.live = following;
    this.store = new DatabaseSpanProcessor(db, logger, (runId) => following?.stored(runId));
    // The live processor first: a span is sent to followers before the store may take it away.
    const processors: SpanProcessor[] = following ? [following, this.store] : [this.store];
    if (config.otlpTracesEndpoint) processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: config.otlpTracesEndpoint })));
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.otelServiceName }),
      idGenerator: this.ids,
      spanProcessors: processors,
    });
    this.tracer = this.provider.getTracer('workspace-agent-service');
  }

  startSpan({ name, kind, attributes, parent, traceId, links }: StartSpan): Span {
    let context = ROOT_CONTEXT;
    if (parent && 'spanContext' in parent) context = trace.setSpan(ROOT_CONTEXT, parent);
    else if (parent)
      context = trace.setSpanContext(ROOT_CONTEXT, {
        traceId: parent.traceId,
        spanId: parent.spanId,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    else if (traceId) this.ids.preset = traceId;
    try {
      return withPreciseClock(this.tracer.startSpan(name, { kind, attributes, links, startTime: hrTime() }, context));
    } finally {
      this.ids.preset = null;
    }
  }

  /** Sends the live listener again the spans of `traceId` that attempts running in this process hold. */
  replayLive(traceId: string): void {
    this.live?.replay(traceId);
  }

  /** Exports (OTLP) and stores what every processor holds now. */
  forceFlush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/**
 * Left to itself the SDK stamps a span's start with `Date.now()`, whole milliseconds, and its end and
 * events from there with the high-resolution clock: two spans begun within one millisecond tie, and
 * the later one's end can read earlier than the first one's (a model request and the tool call it
 * asked for, listed the wrong way round). So a span starts at the high-resolution time — and since
 * the SDK then takes ends and events from `Date.now()` again, they are given that clock's time too.
 */
function withPreciseClock(span: Span): Span {
  return new Proxy(span, {
    get(target, property, receiver) {
      if (property === 'end') return (endTime?: Parameters<Span['end']>[0]) => target.end(endTime ?? hrTime());
      if (property === 'addEvent')
        return (name: string, attributesOrTime?: Parameters<Span['addEvent']>[1], time?: Parameters<Span['addEvent']>[2]) => {
          const timeGiven =
            time !== undefined ||
            Array.isArray(attributesOrTime) ||
            typeof attributesOrTime === 'number' ||
            attributesOrTime instanceof Date;
          target.addEvent(name, attributesOrTime, timeGiven ? time : hrTime());
          return receiver;
        };
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
