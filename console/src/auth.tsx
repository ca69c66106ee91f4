// Who is signed in: a login session (email and password; it may reach several workspaces, one at a
// time, chosen with the switcher) or an API key (bound to one workspace). The credential is kept in
// sessionStorage (this tab, until it closes), or in localStorage when "keep me signed in" is ticked.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { print } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { ServiceError, UNAUTHENTICATED_EVENT, type Credential } from './api';
import { ConsoleLoginDocument, ConsoleLogoutDocument, ConsoleWhoAmIDocument, type ConsoleLoginMutation } from '../generated/graphql';

export type WorkspaceChoice = ConsoleLoginMutation['login']['workspaces'][number];

export interface SignedIn {
  kind: 'session' | 'api_key';
  credential: Credential;
  /** The person (login sessions only). */
  user?: ConsoleLoginMutation['login']['user'];
  workspaces: WorkspaceChoice[];
  expiresAt?: string;
  remember: boolean;
}

const STORAGE_KEY = 'wsa.console.auth';

function load(): SignedIn | null {
  for (const storage of [window.sessionStorage, window.localStorage]) {
    const text = storage.getItem(STORAGE_KEY);
    if (!text) continue;
    try {
      const parsed = JSON.parse(text) as SignedIn;
      if (parsed.expiresAt && Date.parse(parsed.expiresAt) <= Date.now()) {
        storage.removeItem(STORAGE_KEY);
        continue;
      }
      return parsed;
    } catch {
      storage.removeItem(STORAGE_KEY);
    }
  }
  return null;
}

function save(value: SignedIn | null) {
  window.sessionStorage.removeItem(STORAGE_KEY);
  window.localStorage.removeItem(STORAGE_KEY);
  if (value) (value.remember ? window.localStorage : window.sessionStorage).setItem(STORAGE_KEY, JSON.stringify(value));
}

/** One GraphQL request outside a signed-in client (sign-in itself, and checking a key). */
async function request<R, V>(document: TypedDocumentNode<R, V>, variables: V, token?: string, workspaceId?: string): Promise<R> {
  const response = await fetch('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(workspaceId ? { 'x-workspace-id': workspaceId } : {}),
    },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json().catch(() => ({ errors: [{ message: `HTTP ${response.status}` }] }))) as {
    data?: R;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  if (body.errors?.length || !body.data) throw new ServiceError(body.errors ?? [{ message: `HTTP ${response.status}` }], response.status);
  return body.data;
}

interface AuthApi {
  signedIn: SignedIn | null;
  signInWithPassword(email: string, password: string, remember: boolean): Promise<void>;
  signInWithApiKey(apiKey: string, remember: boolean): Promise<void>;
  switchWorkspace(workspaceId: string): void;
  /** Ends the login session on the service too; forgets the credential either way. */
  signOut(): Promise<void>;
  /** Forgets a credential the service no longer accepts (expired session, revoked key). */
  forget(): void;
}

const AuthContext = createContext<AuthApi | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(load);
  const update = useCallback((value: SignedIn | null) => {
    save(value);
    setSignedIn(value);
  }, []);
  useEffect(() => {
    const onRefused = () => update(null);
    window.addEventListener(UNAUTHENTICATED_EVENT, onRefused);
    return () => window.removeEventListener(UNAUTHENTICATED_EVENT, onRefused);
  }, [update]);

  const api = useMemo<AuthApi>(
    () => ({
      signedIn,
      async signInWithPassword(email, password, remember) {
        const { login } = await request(ConsoleLoginDocument, { email, password });
        if (login.workspaces.length === 0) throw new Error('This account is not a member of any workspace.');
        const preferred = window.localStorage.getItem(`${STORAGE_KEY}.workspace.${login.user.id}`);
        const workspace = login.workspaces.find((choice) => choice.id === preferred) ?? login.workspaces[0]!;
        update({
          kind: 'session',
          credential: { token: login.token, workspaceId: workspace.id },
          user: login.user,
          workspaces: login.workspaces,
          expiresAt: login.expiresAt,
          remember,
        });
      },
      async signInWithApiKey(apiKey, remember) {
        const token = apiKey.trim();
        const answer = await request(ConsoleWhoAmIDocument, {}, token);
        const role = answer.viewer.permissions.includes('admin')
          ? 'admin'
          : answer.viewer.permissions.includes('write')
            ? 'writer'
            : 'reader';
        update({
          kind: 'api_key',
          credential: { token },
          workspaces: [{ id: answer.workspace.id, name: answer.workspace.name, role }],
          remember,
        });
      },
      switchWorkspace(workspaceId) {
        if (!signedIn || signedIn.kind !== 'session') return;
        if (!signedIn.workspaces.some((choice) => choice.id === workspaceId)) return;
        if (signedIn.user) window.localStorage.setItem(`${STORAGE_KEY}.workspace.${signedIn.user.id}`, workspaceId);
        update({ ...signedIn, credential: { ...signedIn.credential, workspaceId } });
      },
      async signOut() {
        if (signedIn?.kind === 'session') {
          // The session ends on the service; a failure (already expired) changes nothing here.
          await request(ConsoleLogoutDocument, {}, signedIn.credential.token).catch(() => undefined);
        }
        update(null);
      },
      forget() {
        update(null);
      },
    }),
    [signedIn, update],
  );
  return <AuthContext.Provider value={api}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthApi {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** The workspace the console acts in now. */
export function useWorkspace(): WorkspaceChoice {
  const { signedIn } = useAuth();
  if (!signedIn) throw new Error('useWorkspace while signed out');
  const id = signedIn.credential.workspaceId ?? signedIn.workspaces[0]?.id;
  return signedIn.workspaces.find((choice) => choice.id === id) ?? signedIn.workspaces[0]!;
}
