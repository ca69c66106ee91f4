// The console's one way to the service: GraphQL over HTTP for queries and mutations and graphql-ws for
// subscriptions, through the typed client package, authenticated with the signed-in credential.
// Pages read the typed documents generated from console/src/graphql (console/generated/graphql.ts,
// `npm run codegen`) with the hooks below, so every answer and variable has the schema's types.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { createClient, ServiceError, type Client } from '@workspace-agent-service/client';

export { ServiceError };

/** The credential the console signed in with. */
export interface Credential {
  /** An API key (`wsk_…`) or a login session token (`wsl_…`). */
  token: string;
  /** The workspace a login session acts in; API keys are bound to theirs. */
  workspaceId?: string;
}

export function makeClient(credential: Credential): Client {
  return createClient({
    url: `${window.location.origin}/graphql`,
    apiKey: credential.token,
    workspaceId: credential.workspaceId,
    // Reconnect a dropped socket (a restart, a network change) instead of leaving the page silent.
    ws: { lazy: true, retryAttempts: 20, shouldRetry: () => true },
  });
}

const ClientContext = createContext<Client | null>(null);

export function ClientProvider({ client, children }: { client: Client; children: ReactNode }) {
  return <ClientContext.Provider value={client}>{children}</ClientContext.Provider>;
}

export function useClient(): Client {
  const client = useContext(ClientContext);
  if (!client) throw new Error('useClient outside a signed-in page');
  return client;
}

/** A message for any error the console shows (the service's code and message when it is the service's). */
/** Fired when the service refuses the credential (an expired session, a revoked key): the console signs out. */
export const UNAUTHENTICATED_EVENT = 'wsa:unauthenticated';

function noticeRefusal(error: unknown) {
  if (error instanceof ServiceError && error.code === 'unauthenticated') window.dispatchEvent(new Event(UNAUTHENTICATED_EVENT));
}

export function errorMessage(error: unknown): string {
  if (error instanceof ServiceError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface QueryState<R> {
  data: R | undefined;
  error: unknown;
  loading: boolean;
  /** Asks again (after a mutation, or on the user's request); the old data stays until the answer. */
  refetch(): Promise<void>;
}

/**
 * Runs a query now and again whenever its variables change (compared as JSON). `skip` holds it back
 * (a missing id). Answers that arrive after newer variables were asked for are dropped.
 */
export function useQuery<R, V>(document: TypedDocumentNode<R, V>, variables: V, options: { skip?: boolean } = {}): QueryState<R> {
  const client = useClient();
  const [state, setState] = useState<{ data: R | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: !options.skip,
  });
  const key = JSON.stringify(variables ?? {});
  const latest = useRef(0);
  const run = useCallback(async () => {
    const ticket = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    try {
      const data = await client.query(document, ...([JSON.parse(key)] as [V]));
      if (ticket === latest.current) setState({ data, error: undefined, loading: false });
    } catch (error) {
      noticeRefusal(error);
      if (ticket === latest.current) setState((previous) => ({ data: previous.data, error, loading: false }));
    }
  }, [client, document, key]);
  useEffect(() => {
    if (!options.skip) void run();
  }, [run, options.skip]);
  return { ...state, refetch: run };
}

export interface MutationState {
  loading: boolean;
  error: unknown;
}

/** A mutation to call from an event handler: resolves to its data, or to undefined after showing the error. */
export function useMutation<R, V>(
  document: TypedDocumentNode<R, V>,
): [(variables: V) => Promise<R | undefined>, MutationState, () => void] {
  const client = useClient();
  const [state, setState] = useState<MutationState>({ loading: false, error: undefined });
  const mutate = useCallback(
    async (variables: V) => {
      setState({ loading: true, error: undefined });
      try {
        const data = await client.mutate(document, ...([variables] as [V]));
        setState({ loading: false, error: undefined });
        return data;
      } catch (error) {
        noticeRefusal(error);
        setState({ loading: false, error });
        return undefined;
      }
    },
    [client, document],
  );
  const reset = useCallback(() => setState({ loading: false, error: undefined }), []);
  return [mutate, state, reset];
}

/**
 * Follows a subscription while the component is mounted and `variables` stay the same; `onData` gets
 * every event in order. Resolves `done` when the service completes it (a run sealed or waiting).
 */
export function useSubscription<R, V>(
  document: TypedDocumentNode<R, V>,
  variables: V,
  onData: (data: R) => void,
  options: { skip?: boolean; onDone?: () => void } = {},
): { error: unknown } {
  const client = useClient();
  const [error, setError] = useState<unknown>(undefined);
  const handler = useRef(onData);
  handler.current = onData;
  const done = useRef(options.onDone);
  done.current = options.onDone;
  const key = JSON.stringify(variables ?? {});
  useEffect(() => {
    if (options.skip) return;
    let stopped = false;
    const events = client.subscribe(document, ...([JSON.parse(key)] as [V]));
    setError(undefined);
    void (async () => {
      try {
        for await (const event of events) {
          if (stopped) break;
          handler.current(event);
        }
        if (!stopped) done.current?.();
      } catch (caught) {
        noticeRefusal(caught);
        if (!stopped) setError(caught);
      }
    })();
    return () => {
      stopped = true;
      void events.return?.(undefined);
    };
  }, [client, document, key, options.skip]);
  return { error };
}
