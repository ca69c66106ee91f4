// A loopback OTLP/HTTP trace receiver: what an OpenTelemetry collector does at `POST /v1/traces`,
// for the OTLP/HTTP exporter (JSON encoding, ExportTraceServiceRequest; gzip when the exporter
// compresses). It decodes each request as the protocol defines it and keeps the spans, flattened,
// with their resource's attributes; it answers an empty ExportTraceServiceResponse.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** An OTLP AnyValue (JSON encoding). */
type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  resource: Record<string, unknown>;
  scope: string;
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue) return attributesOf(value.kvlistValue.values);
  return null;
}

const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** An id as the JSON encoding carries it: hex (the OTLP/JSON rule); an empty parent is none. */
const idOf = (id: unknown) => (typeof id === 'string' && id !== '' ? id.toLowerCase() : null);

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: { contentType: string; encoding: string | null }[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = { url: '', spans: [], requests: [], close: async () => undefined };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    const contentType = String(req.headers['content-type'] ?? '');
    const encoding = (req.headers['content-encoding'] as string | undefined) ?? null;
    receiver.requests.push({ contentType, encoding });
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    if (!contentType.startsWith('application/json')) {
      // Only the JSON encoding is decoded here (the service's exporter sends JSON).
      res.writeHead(415, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 3, message: 'unsupported content type' }));
      return;
    }
    if (encoding === 'gzip') body = gunzipSync(body);
    let request: { resourceSpans?: any[] };
    try {
      request = JSON.parse(body.toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 3, message: 'not JSON' }));
      return;
    }
    for (const resourceSpans of request.resourceSpans ?? []) {
      const resource = attributesOf(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? [])
        for (const span of scopeSpans.spans ?? [])
          receiver.spans.push({
            traceId: idOf(span.traceId)!,
            spanId: idOf(span.spanId)!,
            parentSpanId: idOf(span.parentSpanId),
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            events: (span.events ?? []).map((e: any) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
            links: (span.links ?? []).map((l: any) => ({
              traceId: idOf(l.traceId)!,
              spanId: idOf(l.spanId)!,
              attributes: attributesOf(l.attributes),
            })),
            status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
            startTimeUnixNano: String(span.startTimeUnixNano),
            endTimeUnixNano: String(span.endTimeUnixNano),
            resource,
            scope: scopeSpans.scope?.name ?? '',
          });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.close = () =>
    new Promise((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });
  return receiver;
}
