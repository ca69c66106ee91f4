// A client of Modal's gRPC APIs, one per provider: its own server URL and token, so providers with
// different Modal accounts (or a loopback server in tests) work side by side in one process. The
// control plane (vendor/modal/api.proto: apps, images, sandboxes) is reached at the provider's server URL
// with the token id and secret on every call and the short-lived auth token from AuthTokenGet on every
// other call; a sandbox's commands go to the command router of the worker running its task
// (vendor/modal/task-command-router.proto), at the URL and with the JWT TaskGetCommandRouterAccess answers —
// the same two surfaces Modal's official clients use. Modal's JavaScript SDK is not used: it takes its
// server URL only from the process environment or ~/.modal.toml, not per client.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { policyChannel, policyId } from '../../lib/outbound-grpc.js';
import type { OutboundPolicy } from '../../lib/outbound-policy.js';

export const DEFAULT_MODAL_SERVER_URL = 'https://api.modal.com';

// Modal's own definitions (the messages and fields the driver uses, names and numbers as Modal's
// client defines them), kept apart in vendor/ as third-party interface files, not code of ours.
const PROTO_PATHS = ['./vendor/modal/api.proto', './vendor/modal/task-command-router.proto'].map((path) =>
  fileURLToPath(new URL(path, import.meta.url)),
);

interface ModalServices {
  ModalClient: grpc.ServiceClientConstructor;
  TaskCommandRouter: grpc.ServiceClientConstructor;
}
let services: ModalServices | null = null;
/** The generated client classes of Modal's two services (the protos are parsed once per process). */
export function modalServiceDefinitions(): ModalServices {
  if (!services) {
    const definition = protoLoader.loadSync(PROTO_PATHS, {
      keepCase: true,
      longs: Number,
      enums: Number,
      defaults: true,
      oneofs: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      modal: {
        client: { ModalClient: grpc.ServiceClientConstructor };
        task_command_router: { TaskCommandRouter: grpc.ServiceClientConstructor };
      };
    };
    services = { ModalClient: loaded.modal.client.ModalClient, TaskCommandRouter: loaded.modal.task_command_router.TaskCommandRouter };
  }
  return services;
}

/** A refusal or failure of a Modal API call: the gRPC status and Modal's own sentence. */
export class ModalApiError extends Error {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
    readonly method: string,
  ) {
    super(describe(code, details, method));
    this.name = 'ModalApiError';
  }
  /** The API could not be reached at all (or did not answer in time): nothing was decided. */
  get unreachable(): boolean {
    return this.code === grpc.status.UNAVAILABLE || this.code === grpc.status.DEADLINE_EXCEEDED;
  }
}

function describe(code: grpc.status, details: string, method: string): string {
  if (code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED)
    return `could not reach the Modal API (${method}): ${details || grpc.status[code]}`;
  if (code === grpc.status.UNAUTHENTICATED || code === grpc.status.PERMISSION_DENIED)
    return `the Modal API refused the token (${method}): ${details || grpc.status[code]}`;
  return `the Modal API answered ${grpc.status[code]} to ${method}: ${details}`;
}

export interface ModalEndpoint {
  serverUrl: string;
  tokenId: string;
  tokenSecret: string;
  /** The deployment's outbound policy: every connection (the control plane's and each command router's) goes through it. */
  outbound: OutboundPolicy;
}

const CHANNEL_OPTIONS = { 'grpc.max_receive_message_length': 100 * 1024 * 1024, 'grpc.max_send_message_length': 100 * 1024 * 1024 };
/** Unary calls give up after this long unless told otherwise. */
const CALL_TIMEOUT_MS = 60_000;
/** Router accesses kept per client (one per task worked in). */
const MAX_ROUTER_ACCESS = 1000;
/** How many seconds before its expiry an auth token is fetched again. */
const TOKEN_REFRESH_MARGIN_S = 60;
/** A token without a readable expiry is kept this long. */
const TOKEN_FALLBACK_LIFETIME_S = 20 * 60;

function expiryOf(token: string): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    if (typeof payload.exp === 'number') return payload.exp;
  } catch {
    // Not a JWT: keep it for the fallback lifetime.
  }
  return Math.floor(Date.now() / 1000) + TOKEN_FALLBACK_LIFETIME_S;
}

/**
 * `https://api.modal.com` → `api.modal.com:443` over TLS; `http://127.0.0.1:9000` → plain (loopback
 * tests, where the endpoint policy allows it). The channel resolves the host through the outbound
 * policy and connects only to the addresses it allowed.
 */
function channelOf(
  serverUrl: string,
  outbound: OutboundPolicy,
): { target: string; options: grpc.ChannelOptions; credentials: grpc.ChannelCredentials; tls: boolean } {
  const url = new URL(serverUrl);
  const tls = url.protocol === 'https:';
  if (!tls && url.protocol !== 'http:')
    throw new Error(`the Modal server URL must be https:// (or http:// where allowed), not ${url.protocol}`);
  return {
    ...policyChannel(outbound, url.hostname, url.port || (tls ? '443' : '80')),
    credentials: tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(),
    tls,
  };
}

type Message = Record<string, any>;
type RawClient = grpc.Client & Record<string, any>;

/** One unary call on a client: the answer, or a ModalApiError with the gRPC status. */
function unaryCall<T>(
  client: RawClient,
  method: string,
  request: Message,
  metadata: grpc.Metadata,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const call = client[method](request, metadata, { deadline: Date.now() + timeoutMs }, (error: grpc.ServiceError | null, response: T) => {
      signal?.removeEventListener('abort', onAbort);
      if (error) reject(new ModalApiError(error.code, error.details, method));
      else resolve(response);
    }) as grpc.ClientUnaryCall;
    const onAbort = () => call.cancel();
    if (signal?.aborted) call.cancel();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One server-streaming call: `onMessage` gets each message; resolves when the server ends the
 * stream. Aborting `signal` ends it early (a killed command's output), which resolves too.
 */
function streamCall(
  client: RawClient,
  method: string,
  request: Message,
  metadata: grpc.Metadata,
  onMessage: (message: Message) => void,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const call = client[method](request, metadata, { deadline: Date.now() + options.timeoutMs }) as grpc.ClientReadableStream<Message>;
    let cancelled = false;
    const onAbort = () => {
      cancelled = true;
      call.cancel();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (error?: Error) => {
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve();
    };
    call.on('data', (message: Message) => onMessage(message));
    call.on('end', () => finish());
    call.on('error', (error: grpc.ServiceError) => {
      if (cancelled && error.code === grpc.status.CANCELLED) finish();
      else finish(new ModalApiError(error.code, error.details, method));
    });
  });
}

interface RouterAccess {
  client: RawClient;
  jwt: string;
}

export class ModalApi {
  private readonly client: RawClient;
  private readonly plaintext: boolean;
  private token: { value: string; expiresAt: number } | null = null;
  private tokenPromise: Promise<string> | null = null;
  /** Command router access per task (the JWT is the task's; the router's connection is shared by URL). */
  private readonly routerAccess = new Map<string, Promise<RouterAccess>>();
  private readonly routerClients = new Map<string, RawClient>();

  constructor(readonly endpoint: ModalEndpoint) {
    const { target, options, credentials, tls } = channelOf(endpoint.serverUrl, endpoint.outbound);
    this.plaintext = !tls;
    this.client = new (modalServiceDefinitions().ModalClient)(target, credentials, { ...CHANNEL_OPTIONS, ...options }) as RawClient;
  }

  close(): void {
    this.client.close();
    for (const router of this.routerClients.values()) router.close();
  }

  private baseMetadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    metadata.set('x-modal-token-id', this.endpoint.tokenId);
    metadata.set('x-modal-token-secret', this.endpoint.tokenSecret);
    // Modal identifies its clients by type and version; the service presents itself as a client of
    // the JavaScript SDK's generation (CLIENT_TYPE_LIBMODAL_JS), whose protocol it speaks.
    metadata.set('x-modal-client-type', '8');
    metadata.set('x-modal-client-version', '1.0.0');
    return metadata;
  }

  /** The short-lived auth token Modal expects beside the token on every other call (fetched once, renewed before it expires). */
  private async authToken(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    if (this.token && this.token.expiresAt - TOKEN_REFRESH_MARGIN_S > now) return this.token.value;
    this.tokenPromise ??= unaryCall<Message>(this.client, 'AuthTokenGet', {}, this.baseMetadata(), CALL_TIMEOUT_MS)
      .then((response) => {
        const value = String(response.token ?? '');
        if (!value) throw new ModalApiError(grpc.status.INTERNAL, 'AuthTokenGet answered no token', 'AuthTokenGet');
        this.token = { value, expiresAt: expiryOf(value) };
        return value;
      })
      .finally(() => {
        this.tokenPromise = null;
      });
    return this.tokenPromise;
  }

  private async metadata(): Promise<grpc.Metadata> {
    const metadata = this.baseMetadata();
    metadata.set('x-modal-auth-token', await this.authToken());
    return metadata;
  }

  /** One unary call of the control plane. */
  async unary<T = Message>(method: string, request: Message, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    return unaryCall<T>(this.client, method, request, await this.metadata(), options.timeoutMs ?? CALL_TIMEOUT_MS, options.signal);
  }

  /** One server-streaming call of the control plane. */
  async stream(
    method: string,
    request: Message,
    onMessage: (message: Message) => void,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void> {
    return streamCall(this.client, method, request, await this.metadata(), onMessage, options);
  }

  /**
   * The command router of a task: its URL and JWT from TaskGetCommandRouterAccess. The router is
   * reached over TLS; only when the control plane itself is plain HTTP (a loopback server the
   * endpoint policy allows) is the router too, as Modal's SDK does for a local server.
   */
  private router(taskId: string): Promise<RouterAccess> {
    let access = this.routerAccess.get(taskId);
    if (!access) {
      access = this.unary('TaskGetCommandRouterAccess', { task_id: taskId }).then((response) => {
        const url = new URL(String(response.url));
        if (url.protocol !== 'https:')
          throw new ModalApiError(
            grpc.status.INTERNAL,
            `the command router URL must be https, not ${url.protocol}`,
            'TaskGetCommandRouterAccess',
          );
        // The router's address comes from the control plane's answer: its connections go through
        // the outbound policy as the control plane's do (an answer naming a private address is refused).
        const { target, options } = policyChannel(this.endpoint.outbound, url.hostname, url.port || '443');
        let client = this.routerClients.get(target);
        if (!client) {
          const credentials = this.plaintext ? grpc.credentials.createInsecure() : grpc.credentials.createSsl();
          client = new (modalServiceDefinitions().TaskCommandRouter)(target, credentials, { ...CHANNEL_OPTIONS, ...options }) as RawClient;
          this.routerClients.set(target, client);
        }
        return { client, jwt: String(response.jwt) };
      });
      access.catch(() => this.routerAccess.delete(taskId));
      if (this.routerAccess.size >= MAX_ROUTER_ACCESS) this.routerAccess.delete(this.routerAccess.keys().next().value as string);
      this.routerAccess.set(taskId, access);
    }
    return access;
  }

  /** Runs `work` with the task's router; a JWT the router refuses (expired) is fetched again once. */
  private async withRouter<T>(taskId: string, work: (client: RawClient, metadata: grpc.Metadata) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const access = await this.router(taskId);
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${access.jwt}`);
      try {
        return await work(access.client, metadata);
      } catch (error) {
        if (attempt > 0 || !(error instanceof ModalApiError) || error.code !== grpc.status.UNAUTHENTICATED) throw error;
        this.routerAccess.delete(taskId);
      }
    }
  }

  /** One unary call of a task's command router. */
  routerUnary<T = Message>(taskId: string, method: string, request: Message, options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
    return this.withRouter(taskId, (client, metadata) =>
      unaryCall<T>(client, method, request, metadata, options.timeoutMs ?? CALL_TIMEOUT_MS, options.signal),
    );
  }

  /**
   * One server-streaming call of a task's command router. The request is made for each attempt, so
   * a stream asked again after a refused JWT resumes where the first one stopped (an offset).
   */
  routerStream(
    taskId: string,
    method: string,
    request: () => Message,
    onMessage: (message: Message) => void,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void> {
    return this.withRouter(taskId, (client, metadata) => streamCall(client, method, request(), metadata, onMessage, options));
  }
}

// One client (one HTTP/2 connection) per server URL, token and outbound policy, kept for the
// process's life: a provider's calls share its connection and its auth token. Changing a provider's
// token (or the deployment's allowance) makes a new one.
const clients = new Map<string, ModalApi>();
const MAX_CLIENTS = 64;

export function modalApiFor(endpoint: ModalEndpoint): ModalApi {
  // Keyed by a digest: the secret is not kept as a map key beside the client that holds it.
  const key = createHash('sha256')
    .update(JSON.stringify([endpoint.serverUrl, endpoint.tokenId, endpoint.tokenSecret, policyId(endpoint.outbound)]))
    .digest('hex');
  let client = clients.get(key);
  if (!client) {
    if (clients.size >= MAX_CLIENTS) {
      // The oldest goes: its provider makes a new one if it is used again.
      const [oldestKey, oldest] = clients.entries().next().value as [string, ModalApi];
      clients.delete(oldestKey);
      oldest.close();
    }
    client = new ModalApi(endpoint);
    clients.set(key, client);
  }
  return client;
}
