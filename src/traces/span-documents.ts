// The JSON documents of a stored span (`trace_spans.attributes`, `.events`, `.links`), defined once:
// the span store writes them in this shape and every reader reads them through the accessors here,
// checked against the same schemas (the types are derived from them).
import Type, { type Static } from 'typebox';
import { readDocument } from '../lib/json-documents.js';

/** A span's attributes, without the run's own (run, workspace, agent, attempt: columns of their own). */
export const SpanAttributes = Type.Record(Type.String(), Type.Unknown());
export type SpanAttributes = Static<typeof SpanAttributes>;

/** An event recorded on a span: its name, when (nanoseconds since the epoch, a decimal string), its attributes. */
export const SpanEvent = Type.Object({ name: Type.String(), time_unix_nano: Type.String(), attributes: SpanAttributes });
export type SpanEvent = Static<typeof SpanEvent>;
const SpanEvents = Type.Array(SpanEvent);

/** A link from a span to a span of another (or the same) trace. */
export const SpanLink = Type.Object({ trace_id: Type.String(), span_id: Type.String(), attributes: SpanAttributes });
export type SpanLink = Static<typeof SpanLink>;
const SpanLinks = Type.Array(SpanLink);

export const spanAttributes = (span: { attributes: unknown }): SpanAttributes =>
  readDocument(SpanAttributes, span.attributes, 'trace_spans.attributes');

export const spanEvents = (span: { events: unknown }): SpanEvent[] => readDocument(SpanEvents, span.events, 'trace_spans.events');

export const spanLinks = (span: { links: unknown }): SpanLink[] => readDocument(SpanLinks, span.links, 'trace_spans.links');
