// A small client of the Docker Engine API (the container engine's HTTP API) over a unix socket or
// TCP, with TLS when the provider's credential carries certificates. It speaks only what the
// `docker` environment driver needs: JSON requests, the image pull's progress stream, and the
// connection upgrade (hijack) that `exec` start uses for the command's standard streams. Node's own
// HTTP client is used because it reaches unix sockets and hands over the upgraded socket as is.
// Every connection goes through the deployment's outbound policy: over TCP its address (the
// policy's lookup resolves the name), a unix socket only where the deployment allows its path.
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { outboundRefusalOf, type OutboundPolicy } from '../../lib/outbound-policy.js';

/** The API version the driver speaks: Docker Engine 20.10 and later answer it. */
export const ENGINE_API_VERSION = 'v1.41';

export interface EngineEndpoint {
  /** `unix:///var/run/docker.sock`, `http(s)://host:port` or `tcp://host:port`. */
  endpoint: string;
  /** PEM texts: with `tls_cert` (and `tls_key`), or `tls_ca`, `tcp://` means TLS. */
  tls?: { ca?: string; cert?: string; key?: string } | null;
  /** The deployment's outbound policy: every connection goes through it. */
  outbound: OutboundPolicy;
}

export class EngineError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/**
 * Where and how to connect: the socket path or host and port, and whether TLS applies. Throws the
 * outbound policy's refusal of a socket or a literal address; a name is checked as it resolves.
 */
function connection(target: EngineEndpoint): { options: RequestOptions; tls: boolean } {
  if (target.endpoint.startsWith('unix://')) {
    const socketPath = target.endpoint.slice('unix://'.length);
    const refusal = target.outbound.socketRefusal(socketPath);
    if (refusal) throw refusal;
    return { options: { socketPath }, tls: false };
  }
  const tlsMaterial = target.tls && (target.tls.ca || target.tls.cert) ? target.tls : null;
  const url = new URL(target.endpoint);
  const tls = url.protocol === 'https:' || (url.protocol === 'tcp:' && tlsMaterial !== null);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return {
    options: {
      host,
      port: url.port ? Number(url.port) : tls ? 2376 : 2375,
      ...target.outbound.socketOptions(host, tls),
      ...(tls && tlsMaterial ? { ca: tlsMaterial.ca, cert: tlsMaterial.cert, key: tlsMaterial.key } : {}),
    },
    tls,
  };
}

export interface EngineRequest {
  method: string;
  /** The API path without the version prefix, e.g. `/containers/create`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Ask for the raw connection (`Upgrade: tcp`), as `exec` start does. */
  upgrade?: boolean;
  /** Leave the version prefix off (`/_ping` answers on both). */
  unversioned?: boolean;
}

function send(target: EngineEndpoint, req: EngineRequest): ClientRequest {
  const { options, tls } = connection(target);
  const query = new URLSearchParams(Object.entries(req.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
  const search = query.size ? `?${query}` : '';
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  // A unix socket has no host name to send; on TCP Node sends the real one (TLS checks the certificate against it).
  const headers: Record<string, string> = target.endpoint.startsWith('unix://') ? { host: 'docker' } : {};
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  if (req.upgrade) Object.assign(headers, { connection: 'Upgrade', upgrade: 'tcp' });
  const client = (tls ? httpsRequest : httpRequest)({
    ...options,
    method: req.method,
    path: `${req.unversioned ? '' : `/${ENGINE_API_VERSION}`}${req.path}${search}`,
    headers,
    signal: req.signal,
    timeout: req.timeoutMs,
  });
  client.on('timeout', () => client.destroy(new Error('the container engine did not answer in time')));
  client.end(body);
  return client;
}

async function readAll(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The engine's own error sentence (`{"message": …}`) or the status. */
function engineMessage(status: number, body: Buffer): string {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: the text itself, if any
  }
  const text = body.toString('utf8').trim();
  return text ? text.slice(0, 500) : `the container engine answered ${status}`;
}

/** Why the engine could not be reached: the outbound policy's refusal whole, else the socket's error code. */
function unreachable(error: unknown): Error {
  const refusal = outboundRefusalOf(error);
  if (refusal) return new Error(`could not reach the container engine: ${refusal.message}`, { cause: refusal });
  const code = (error as NodeJS.ErrnoException).code;
  return new Error(`could not reach the container engine: ${code ?? (error as Error).message}`);
}

/** A request whose answer is read whole: JSON when there is any, `null` otherwise. Statuses of 400 and more throw `EngineError`. */
export async function engineCall<T = unknown>(target: EngineEndpoint, req: EngineRequest): Promise<{ status: number; body: T }> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    let client: ClientRequest;
    try {
      client = send(target, req);
    } catch (error) {
      return reject(unreachable(error));
    }
    client.once('response', resolve);
    client.once('error', (error) => reject(unreachable(error)));
  });
  const raw = await readAll(res);
  const status = res.statusCode ?? 0;
  if (status >= 400) throw new EngineError(status, engineMessage(status, raw));
  const text = raw.toString('utf8');
  if (!text) return { status, body: null as T };
  try {
    return { status, body: JSON.parse(text) as T };
  } catch {
    return { status, body: text as T };
  }
}

/** Pulls an image, reading the progress stream to its end: an `error` line in it fails the pull. */
export async function pullImage(target: EngineEndpoint, image: string, signal?: AbortSignal): Promise<void> {
  const { status, body } = await engineCall<string | Record<string, unknown> | null>(target, {
    method: 'POST',
    path: '/images/create',
    query: imageReference(image),
    signal,
  });
  const lines = typeof body === 'string' ? body.split('\n') : body ? [JSON.stringify(body)] : [];
  for (const line of lines) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as { error?: string; errorDetail?: { message?: string } };
    if (event.error) throw new EngineError(status, event.errorDetail?.message ?? event.error);
  }
}

/** `fromImage` and `tag` of an image reference (`alpine`, `alpine:3.20`, `host:5000/team/app`, `app@sha256:…`). */
export function imageReference(image: string): { fromImage: string; tag?: string } {
  if (image.includes('@')) return { fromImage: image };
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  if (colon > slash) return { fromImage: image.slice(0, colon), tag: image.slice(colon + 1) };
  return { fromImage: image, tag: 'latest' };
}

/** Opens a hijacked connection (`exec` start): the socket carries standard input out and the multiplexed output stream in. */
export function engineUpgrade(target: EngineEndpoint, req: EngineRequest): Promise<Socket> {
  return new Promise((resolve, reject) => {
    let client: ClientRequest;
    try {
      client = send(target, { ...req, upgrade: true });
    } catch (error) {
      return reject(unreachable(error));
    }
    client.once('upgrade', (_res, socket) => resolve(socket));
    client.once('response', async (res) => {
      const raw = await readAll(res).catch(() => Buffer.alloc(0));
      reject(new EngineError(res.statusCode ?? 0, engineMessage(res.statusCode ?? 0, raw)));
    });
    client.once('error', (error) => reject(unreachable(error)));
  });
}

/**
 * Splits the engine's multiplexed output stream (used when a command has no terminal) into its
 * frames: an 8-byte header — the stream (1 standard output, 2 standard error), three zero bytes, the
 * payload's length as a big-endian 32-bit number — then the payload.
 */
export class StreamDemultiplexer {
  private pending: Buffer = Buffer.alloc(0);
  constructor(private readonly onFrame: (stream: 'stdout' | 'stderr', payload: Buffer) => void) {}
  push(chunk: Buffer) {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 8) {
      const length = this.pending.readUInt32BE(4);
      if (this.pending.length < 8 + length) break;
      const kind = this.pending[0];
      const payload = this.pending.subarray(8, 8 + length);
      this.pending = this.pending.subarray(8 + length);
      if (kind === 1 || kind === 2) this.onFrame(kind === 1 ? 'stdout' : 'stderr', payload);
    }
  }
}

/** GET /_ping: proves the engine answers and creates nothing. */
export async function pingEngine(target: EngineEndpoint, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  await engineCall(target, { method: 'GET', path: '/_ping', unversioned: true, timeoutMs, signal });
}
