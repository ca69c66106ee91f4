// A client of Modal's control-plane gRPC API (modal-api.proto, the subset the `modal` environment
// type uses), one per provider: its own server URL and token, so providers with different Modal
// accounts (or a loopback server in tests) work side by side in one process. Modal's official
// JavaScript SDK takes its server URL only from the process environment or ~/.modal.toml (and
// reaches sandboxes through a separate command router), so the service speaks the API itself with
// @grpc/grpc-js, the way Modal's clients do: the token id and secret on every call, and the
// short-lived auth token from AuthTokenGet on every other call.
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export const DEFAULT_MODAL_SERVER_URL = 'https://api.modal.com';

const PROTO_PATH = fileURLToPath(new URL('./modal-api.proto', import.meta.url));

let serviceConstructor: grpc.ServiceClientConstructor | null = null;
/** The ModalClient service's generated client class (the proto is parsed once per process). */
export function modalServiceDefinition(): grpc.ServiceClientConstructor {
  if (!serviceConstructor) {
    const definition = protoLoader.loadSync(PROTO_PATH, {
      keepCase: true,
      longs: Number,
      enums: Number,
      defaults: true,
      oneofs: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      modal: { client: { ModalClient: grpc.ServiceClientConstructor } };
    };
    serviceConstructor = loaded.modal.client.ModalClient;
  }
  return serviceConstructor;
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
}

/** Unary calls give up after this long unless told otherwise. */
const CALL_TIMEOUT_MS = 60_000;
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

/** `https://api.modal.com` → `api.modal.com:443` over TLS; `http://127.0.0.1:9000` → plain (loopback tests, where the endpoint policy allows it). */
function channelOf(serverUrl: string): { address: string; credentials: grpc.ChannelCredentials } {
  const url = new URL(serverUrl);
  const tls = url.protocol === 'https:';
  if (!tls && url.protocol !== 'http:')
    throw new Error(`the Modal server URL must be https:// (or http:// where allowed), not ${url.protocol}`);
  const port = url.port || (tls ? '443' : '80');
  return {
    address: `${url.hostname}:${port}`,
    credentials: tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure(),
  };
}

type Message = Record<string, any>;

export class ModalApi {
  private readonly client: grpc.Client & Record<string, any>;
  private token: { value: string; expiresAt: number } | null = null;
  private tokenPromise: Promise<string> | null = null;

  constructor(readonly endpoint: ModalEndpoint) {
    const { address, credentials } = channelOf(endpoint.serverUrl);
    const Service = modalServiceDefinition();
    this.client = new Service(address, credentials, {
      'grpc.max_receive_message_length': 100 * 1024 * 1024,
      'grpc.max_send_message_length': 100 * 1024 * 1024,
    }) as grpc.Client & Record<string, any>;
  }

  close(): void {
    this.client.close();
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
    this.tokenPromise ??= this.rawUnary<Message>('AuthTokenGet', {}, this.baseMetadata(), CALL_TIMEOUT_MS)
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

  private rawUnary<T>(method: string, request: Message, metadata: grpc.Metadata, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const call = this.client[method](
        request,
        metadata,
        { deadline: Date.now() + timeoutMs },
        (error: grpc.ServiceError | null, response: T) => {
          signal?.removeEventListener('abort', onAbort);
          if (error) reject(new ModalApiError(error.code, error.details, method));
          else resolve(response);
        },
      ) as grpc.ClientUnaryCall;
      const onAbort = () => call.cancel();
      if (signal?.aborted) call.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** One unary call with the token and auth token. */
  async unary<T = Message>(method: string, request: Message, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<T> {
    return this.rawUnary<T>(method, request, await this.metadata(), options.timeoutMs ?? CALL_TIMEOUT_MS, options.signal);
  }

  /**
   * A server-streaming call: `onMessage` gets each message; resolves when the server ends the
   * stream. `cancel` ends it early (a killed command's output), which resolves too.
   */
  async stream(
    method: string,
    request: Message,
    onMessage: (message: Message) => void,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void> {
    const metadata = await this.metadata();
    await new Promise<void>((resolve, reject) => {
      const call = this.client[method](request, metadata, {
        deadline: Date.now() + options.timeoutMs,
      }) as grpc.ClientReadableStream<Message>;
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
}

// One client (one HTTP/2 connection) per server URL and token, kept for the process's life: a
// provider's calls share its connection and its auth token. Changing a provider's token makes a new one.
const clients = new Map<string, ModalApi>();
const MAX_CLIENTS = 64;

export function modalApiFor(endpoint: ModalEndpoint): ModalApi {
  const key = JSON.stringify([endpoint.serverUrl, endpoint.tokenId, endpoint.tokenSecret]);
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
