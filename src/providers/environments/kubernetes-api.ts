// A small client of the Kubernetes API for the `kubernetes` environment driver: pods (create, get,
// delete) as JSON over HTTPS, and the pod `exec` subresource over a websocket speaking the channel
// protocol (`v5.channel.k8s.io`, falling back to `v4.channel.k8s.io`). The cluster is reached with
// the provider's bearer token and/or client certificate, its certificate checked against the
// credential's CA (or the machine's trusted authorities).
//
// Why not @kubernetes/client-node: the driver needs an exec whose standard input ends (v5's close
// frame), a kill-safe wait with its own limits, and the same TLS handling as the container engine
// client; the few calls it makes are smaller than that library's configuration surface.
//
// Every connection (each request and each exec websocket) goes through the deployment's outbound
// policy: a literal address is judged before connecting, a name by the policy's lookup as the socket
// resolves it. Neither client follows redirects.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import WebSocket from 'ws';
import { outboundRefusalOf, type OutboundPolicy } from '../../lib/outbound-policy.js';
import { ControlPlaneError, ControlPlaneUnreachable } from './control-plane.js';

export interface KubeTarget {
  /** The API server, e.g. https://10.0.0.1:6443. */
  server: string;
  token?: string;
  /** PEM texts. */
  ca?: string;
  cert?: string;
  key?: string;
  /** The deployment's outbound policy. */
  outbound: OutboundPolicy;
}

/** Channel numbers of the exec stream protocol. */
export const CHANNEL = { stdin: 0, stdout: 1, stderr: 2, error: 3, resize: 4, close: 255 } as const;
export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];
/** The largest standard input frame sent at once. */
const STDIN_FRAME_BYTES = 32 * 1024;

/** An answer of 400 or more, with the API's own Status message (and its machine-readable reason). */
export class KubeError extends ControlPlaneError {
  override name = 'KubeError';
  constructor(
    status: number,
    message: string,
    readonly reason?: string,
  ) {
    super(status, message);
  }
}

/** The API server could not be reached at all. */
export class KubeUnreachable extends ControlPlaneUnreachable {
  override name = 'KubeUnreachable';
}

/** A metav1.Status as the API answers it (errors, and the exec error channel). */
export interface KubeStatus {
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { causes?: { reason?: string; message?: string }[] };
}

function tlsOptions(target: KubeTarget) {
  return {
    ...(target.ca ? { ca: target.ca } : {}),
    ...(target.cert && target.key ? { cert: target.cert, key: target.key } : {}),
  };
}

/** Why the API server could not be reached: the outbound policy's refusal whole, else the socket's error code. */
function unreachable(error: NodeJS.ErrnoException): KubeUnreachable {
  const refusal = outboundRefusalOf(error);
  return new KubeUnreachable(`could not reach the Kubernetes API: ${refusal?.message ?? error.code ?? error.message}`, { cause: error });
}

function headers(target: KubeTarget): Record<string, string> {
  return target.token ? { authorization: `Bearer ${target.token}` } : {};
}

function readAll(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

function statusMessage(status: number, body: string): { message: string; reason?: string } {
  try {
    const parsed = JSON.parse(body) as KubeStatus;
    if (typeof parsed.message === 'string')
      return { message: `the Kubernetes API answered ${status}: ${parsed.message}`, reason: parsed.reason };
  } catch {
    // not a Status
  }
  return { message: `the Kubernetes API answered ${status}${body.trim() ? `: ${body.trim().slice(0, 300)}` : ''}` };
}

/** A JSON request; statuses of 400 and more throw KubeError. */
export async function kubeCall<T>(
  target: KubeTarget,
  method: string,
  path: string,
  options: { body?: unknown; query?: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
): Promise<T> {
  const url = new URL(`${target.server.replace(/\/+$/, '')}${path}`);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    let socketOptions: ReturnType<OutboundPolicy['socketOptions']>;
    try {
      socketOptions = target.outbound.socketOptions(url.hostname, url.protocol === 'https:');
    } catch (error) {
      return reject(unreachable(error as NodeJS.ErrnoException));
    }
    const client = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      ...socketOptions,
      method,
      headers: {
        ...headers(target),
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
      },
      ...tlsOptions(target),
      timeout: options.timeoutMs,
      signal: options.signal,
    });
    client.on('timeout', () => client.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
    client.once('response', resolve);
    client.once('error', (error: NodeJS.ErrnoException) => {
      if (options.signal?.aborted) reject(error);
      else reject(unreachable(error));
    });
    client.end(body);
  });
  const text = (await readAll(res)).toString('utf8');
  const status = res.statusCode ?? 0;
  if (status >= 400) {
    const { message, reason } = statusMessage(status, text);
    throw new KubeError(status, message, reason);
  }
  return (text ? JSON.parse(text) : null) as T;
}

/** Standard input as channel frames (channel byte, then at most STDIN_FRAME_BYTES of data). */
export function stdinFrames(data: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  for (let at = 0; at < data.length; at += STDIN_FRAME_BYTES)
    frames.push(Buffer.concat([Buffer.from([CHANNEL.stdin]), data.subarray(at, at + STDIN_FRAME_BYTES)]));
  return frames;
}

/** v5's close frame: the close channel, then the channel being closed. */
export function closeFrame(channel: number): Buffer {
  return Buffer.from([CHANNEL.close, channel]);
}

/** The exit code the error channel's Status reports: 0 on success, the `ExitCode` cause on a non-zero exit; otherwise null. */
export function exitCodeOfStatus(status: KubeStatus): number | null {
  if (status.status === 'Success') return 0;
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = Number(cause?.message);
    return Number.isInteger(code) ? code : null;
  }
  return null;
}

export interface ExecStreamRequest {
  namespace: string;
  pod: string;
  container: string;
  command: readonly string[];
  stdin?: Buffer;
  /** Aborting closes the connection (the command is left to whatever killed it). */
  signal: AbortSignal;
  onChunk: (stream: 'stdout' | 'stderr', chunk: Buffer) => void;
}

export interface ExecStreamResult {
  /** null when the connection ended without a status (closed early, or aborted). */
  exitCode: number | null;
  /** The error channel's Status when it was not a plain exit code (the command could not start). */
  failure: string | null;
  protocol: string;
}

/**
 * Runs a command through the pod's `exec` subresource. With `v5.channel.k8s.io` standard input is
 * ended by a close frame after it was sent; `v4.channel.k8s.io` has no way to end it, which is why
 * the driver makes a command with standard input read exactly the bytes it is sent.
 */
export function execStream(target: KubeTarget, req: ExecStreamRequest): Promise<ExecStreamResult> {
  return new Promise((resolve, reject) => {
    const base = new URL(target.server.replace(/\/+$/, ''));
    base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
    const ns = encodeURIComponent(req.namespace);
    const url = new URL(`${base.pathname.replace(/\/$/, '')}/api/v1/namespaces/${ns}/pods/${encodeURIComponent(req.pod)}/exec`, base);
    url.search = execQuery(req.container, req.command, req.stdin !== undefined).toString();
    let socketOptions: ReturnType<OutboundPolicy['socketOptions']>;
    try {
      socketOptions = target.outbound.socketOptions(url.hostname, url.protocol === 'wss:');
    } catch (error) {
      return reject(unreachable(error as NodeJS.ErrnoException));
    }
    // ws hands its options to the socket it opens: the policy's lookup resolves the name.
    const socket = new WebSocket(url, EXEC_PROTOCOLS, {
      headers: headers(target),
      ...tlsOptions(target),
      ...socketOptions,
      handshakeTimeout: 60_000,
    });
    let exitCode: number | null = null;
    let failure: string | null = null;
    let settled = false;
    const finish = (result: ExecStreamResult | Error) => {
      if (settled) return;
      settled = true;
      req.signal.removeEventListener('abort', onAbort);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onAbort = () => {
      socket.terminate();
      finish({ exitCode: null, failure: null, protocol: socket.protocol });
    };
    if (req.signal.aborted) {
      onAbort();
      return;
    }
    req.signal.addEventListener('abort', onAbort, { once: true });
    socket.on('unexpected-response', (_request, res) => {
      void readAll(res).then((raw) => {
        const status = res.statusCode ?? 0;
        const { message, reason } = statusMessage(status, raw.toString('utf8'));
        finish(new KubeError(status, message, reason));
      });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => finish(unreachable(error)));
    socket.on('open', () => {
      if (req.stdin !== undefined) {
        for (const frame of stdinFrames(req.stdin)) socket.send(frame);
        if (socket.protocol === 'v5.channel.k8s.io') socket.send(closeFrame(CHANNEL.stdin));
      }
    });
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const message = isBinary ? data : Buffer.from(data);
      if (!message.length) return;
      const channel = message[0];
      const payload = message.subarray(1);
      if (channel === CHANNEL.stdout) req.onChunk('stdout', payload);
      else if (channel === CHANNEL.stderr) req.onChunk('stderr', payload);
      else if (channel === CHANNEL.error && payload.length) {
        let status: KubeStatus;
        try {
          status = JSON.parse(payload.toString('utf8')) as KubeStatus;
        } catch {
          failure = payload.toString('utf8').slice(0, 500);
          return;
        }
        exitCode = exitCodeOfStatus(status);
        if (exitCode === null) failure = status.message ?? 'the command could not be run';
      }
    });
    socket.on('close', () => finish({ exitCode, failure, protocol: socket.protocol }));
  });
}

/** The query of an exec request: `command` repeated, the container, and the streams wanted. */
export function execQuery(container: string, command: readonly string[], stdin: boolean): URLSearchParams {
  const query = new URLSearchParams();
  for (const part of command) query.append('command', part);
  query.set('container', container);
  query.set('stdin', String(stdin));
  query.set('stdout', 'true');
  query.set('stderr', 'true');
  return query;
}
