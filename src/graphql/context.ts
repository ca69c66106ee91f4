// The per-operation context, the same for HTTP, SSE and graphql-ws. Authentication is resolved
// lazily and once: operations that need no caller (login) never touch the credential.
import { randomUUID } from 'node:crypto';
import type { Deps, Actor } from '../services/deps.js';
import { authenticate } from '../features/access/auth.js';
import { callContext, withActor, type CallContext } from '../services/call-context.js';

/** Internal header carrying the client's socket address to the context; app.ts and the REST shim set it, callers never can. */
export const CLIENT_ADDRESS_HEADER = 'x-wsa-client-address';

export interface GraphQLContext {
  deps: Deps;
  requestId: string;
  authorization: string | null;
  workspaceHeader: string | null;
  /** The client's network address (rate limits); 'unknown' when not known. */
  clientAddress: string;
  /** Aborted when the client goes away (closed request or socket): a waiting operation stops waiting. */
  signal: AbortSignal | null;
  /** The authenticated caller; throws unauthenticated/forbidden as the credential deserves. */
  actor(): Promise<Actor>;
  /** This request's call context with the authenticated caller (authenticates on first use, once). */
  call(): Promise<CallContext>;
  /** This request's call context before anyone is known: for the operations that need no caller. */
  anonymous: CallContext<null>;
}

export interface RequestCredentials {
  authorization: string | null;
  workspaceHeader: string | null;
  requestId?: string | null;
  clientAddress?: string | null;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | null;
}

/** `known`: the caller already authenticated for this request (the HTTP gate, access.ts). */
export function createContext(deps: Deps, credentials: RequestCredentials, known?: Actor): GraphQLContext {
  const requestId = credentials.requestId || randomUUID();
  // Built once per request; the caller is added once, when an operation first needs it.
  const anonymous = callContext(deps, null, requestId);
  let call: Promise<CallContext> | null = known ? Promise.resolve(withActor(anonymous, known)) : null;
  const authenticated = () =>
    (call ??= authenticate(deps, credentials.authorization, credentials.workspaceHeader).then((caller) => withActor(anonymous, caller)));
  return {
    deps,
    requestId,
    authorization: credentials.authorization,
    workspaceHeader: credentials.workspaceHeader,
    clientAddress: credentials.clientAddress || 'unknown',
    signal: credentials.signal ?? null,
    anonymous,
    call: authenticated,
    actor: () => authenticated().then((caller) => caller.actor),
  };
}

/** Reads credentials from a graphql-ws `connection_init` payload (header-like keys, any case). */
export function credentialsFromConnectionParams(params: Record<string, unknown> | undefined | null): RequestCredentials {
  const lookup = (name: string): string | null => {
    if (!params) return null;
    for (const [key, value] of Object.entries(params)) {
      if (key.toLowerCase() === name && typeof value === 'string') return value;
    }
    const headers = params.headers;
    if (headers && typeof headers === 'object') {
      for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
        if (key.toLowerCase() === name && typeof value === 'string') return value;
      }
    }
    return null;
  };
  return { authorization: lookup('authorization'), workspaceHeader: lookup('x-workspace-id') };
}
