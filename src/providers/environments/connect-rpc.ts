// A small client of the Connect RPC protocol (connectrpc.com/docs/protocol) with JSON messages, as
// E2B's in-sandbox daemon (envd) serves its process and filesystem services. Unary calls are a plain
// POST of a JSON body (`Content-Type: application/json`) answered by a JSON body, or by an error
// body `{code, message}` with a non-200 status. Server-streaming calls send one *enveloped* message
// (`Content-Type: application/connect+json`) and read enveloped messages back: each envelope is one
// flags byte, a 4-byte big-endian length and that many bytes of JSON; the last envelope has flag
// 0x02 (end of stream) and carries `{error?: {code, message}, metadata?}`.
import { EnvironmentDriverError } from '../environment-driver.js';

/** Flag of the envelope that ends a stream (its JSON is the end-of-stream message, not a response). */
export const END_STREAM_FLAG = 0x02;
/** Flag of a compressed envelope: this client asks for none and refuses one. */
export const COMPRESSED_FLAG = 0x01;

/** One message in the envelope the streaming protocol frames it with. */
export function encodeEnvelope(message: unknown, flags = 0): Buffer {
  const payload = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(5);
  header[0] = flags;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

export interface Envelope {
  flags: number;
  /** The parsed JSON of the envelope. */
  message: Record<string, unknown>;
}

/** Splits a byte stream into envelopes, however the chunks fall. */
export class EnvelopeDecoder {
  private pending: Buffer = Buffer.alloc(0);
  /** Refuses envelopes larger than this (a broken or hostile server cannot make the client buffer without end). */
  constructor(private readonly maxMessageBytes = 16 * 1024 * 1024) {}

  push(chunk: Uint8Array): Envelope[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk);
    const envelopes: Envelope[] = [];
    while (this.pending.length >= 5) {
      const flags = this.pending[0]!;
      const length = this.pending.readUInt32BE(1);
      if (length > this.maxMessageBytes) throw new ConnectError('resource_exhausted', `a message of ${length} bytes is too large`);
      if (this.pending.length < 5 + length) break;
      if (flags & COMPRESSED_FLAG) throw new ConnectError('internal', 'the server sent a compressed message this client did not ask for');
      const body = this.pending.subarray(5, 5 + length).toString('utf8');
      this.pending = this.pending.subarray(5 + length);
      let message: Record<string, unknown>;
      try {
        message = body ? (JSON.parse(body) as Record<string, unknown>) : {};
      } catch {
        throw new ConnectError('internal', 'the server sent a message that is not JSON');
      }
      envelopes.push({ flags, message });
    }
    return envelopes;
  }

  /** Bytes left over that do not make a whole envelope (a stream cut short). */
  get remaining(): number {
    return this.pending.length;
  }
}

/** A Connect error: its code (`not_found`, `invalid_argument`, `unavailable`, …) and message. */
export class ConnectError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConnectError';
  }
}

/** The Connect code an HTTP status stands for, when a server (or a proxy before it) answers without a Connect error body. */
export function codeOfHttpStatus(status: number): string {
  const codes: Record<number, string> = {
    400: 'invalid_argument',
    401: 'unauthenticated',
    403: 'permission_denied',
    404: 'unimplemented',
    408: 'deadline_exceeded',
    409: 'aborted',
    412: 'failed_precondition',
    413: 'resource_exhausted',
    429: 'unavailable',
    499: 'canceled',
    502: 'unavailable',
    503: 'unavailable',
    504: 'unavailable',
  };
  return codes[status] ?? 'unknown';
}

/** The error of a non-200 answer: its Connect error body when it has one, else what its status stands for. */
export async function errorOfResponse(response: Response): Promise<ConnectError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'string') return new ConnectError(body.code, typeof body.message === 'string' ? body.message : body.code);
  } catch {
    // not a Connect error body
  }
  return new ConnectError(codeOfHttpStatus(response.status), text.trim().slice(0, 300) || `HTTP ${response.status}`);
}

export interface ConnectCall {
  /** The service's base URL, e.g. `https://49983-<sandbox>.e2b.app`. */
  baseUrl: string;
  /** `package.Service/Method`, e.g. `process.Process/Start`. */
  procedure: string;
  headers: Record<string, string>;
  message: unknown;
  /** Sent as `Connect-Timeout-Ms` (the server ends the call after it) and enforced here too. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The outbound policy's fetch (the driver context's). */
  fetch: typeof fetch;
  /** Names the service in messages (`could not reach <service>: …`). */
  service: string;
}

function signalOf(call: ConnectCall): AbortSignal | undefined {
  const signals = [call.signal, call.timeoutMs ? AbortSignal.timeout(call.timeoutMs) : undefined].filter(
    (signal): signal is AbortSignal => signal !== undefined,
  );
  return signals.length ? AbortSignal.any(signals) : undefined;
}

async function post(call: ConnectCall, contentType: string, body: Buffer): Promise<Response> {
  try {
    return await call.fetch(`${call.baseUrl.replace(/\/+$/, '')}/${call.procedure}`, {
      method: 'POST',
      headers: {
        ...call.headers,
        'content-type': contentType,
        'connect-protocol-version': '1',
        ...(call.timeoutMs ? { 'connect-timeout-ms': String(call.timeoutMs) } : {}),
      },
      body: new Uint8Array(body),
      signal: signalOf(call),
    });
  } catch (error) {
    if (call.signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new EnvironmentDriverError(
      'unavailable',
      `could not reach ${call.service}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
    );
  }
}

/** A unary call: the response message, or a ConnectError. */
export async function connectUnary<T = Record<string, unknown>>(call: ConnectCall): Promise<T> {
  const response = await post(call, 'application/json', Buffer.from(JSON.stringify(call.message ?? {}), 'utf8'));
  if (response.status !== 200) throw await errorOfResponse(response);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

/**
 * A server-streaming call: yields each response message; ends at the end-of-stream envelope (a
 * ConnectError when it carries one). A stream that ends without that envelope is an error too.
 */
export async function* connectServerStream(call: ConnectCall): AsyncGenerator<Record<string, unknown>> {
  const response = await post(call, 'application/connect+json', encodeEnvelope(call.message ?? {}));
  if (response.status !== 200) throw await errorOfResponse(response);
  if (!response.body) throw new ConnectError('internal', 'the stream has no body');
  const decoder = new EnvelopeDecoder();
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const envelope of decoder.push(value)) {
        if (envelope.flags & END_STREAM_FLAG) {
          const error = envelope.message.error as { code?: string; message?: string } | undefined;
          if (error) throw new ConnectError(error.code ?? 'unknown', error.message ?? error.code ?? 'the call failed');
          return;
        }
        yield envelope.message;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  throw new ConnectError('unavailable', 'the stream ended before its end-of-stream message');
}
