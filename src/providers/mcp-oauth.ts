// The OAuth 2.1 side of an MCP server, as the MCP authorization specification has a client speak it:
// the protected-resource metadata (RFC 9728) names the authorization server, whose metadata (RFC
// 8414, or OpenID Connect discovery) names its endpoints; a client is registered dynamically (RFC
// 7591) unless one is configured; the authorization is a code grant with PKCE (S256) bound to the
// server as a resource indicator (RFC 8707); tokens are refreshed, and revoked (RFC 7009) where
// the server offers it. Every step but revocation is the official SDK's (`client/auth.js`); every
// request goes through the fetch the caller gives (the outbound policy's). This module keeps no
// state: the caller stores what `beginAuthorization` and the token calls answer.
import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { checkResourceAllowed, resourceUrlFromServerUrl } from '@modelcontextprotocol/sdk/shared/auth-utils.js';

/** How long one request to an authorization server may take. */
export const OAUTH_REQUEST_TIMEOUT_MS = 15_000;

/** Where the grant came from: what every later token request needs again. */
export interface OAuthServers {
  authorizationServerUrl: string;
  metadata?: AuthorizationServerMetadata;
  /** The resource indicator (RFC 8707) the tokens are bound to; absent when the server publishes no resource metadata. */
  resource?: string;
}

/** A grant as stored (sealed): the servers, the client and the tokens, with when the access token expires (ms; null: unknown). */
export interface OAuthGrant {
  servers: OAuthServers;
  client: OAuthClientInformationMixed;
  tokens: OAuthTokens;
  expiresAt: number | null;
}

/** An authorization in progress: what the callback needs to exchange its code. */
export interface PendingAuthorization {
  serverUrl: string;
  redirectUrl: string;
  codeVerifier: string;
  servers: OAuthServers;
  client: OAuthClientInformationMixed;
}

export interface BeginAuthorization {
  /** The MCP server's URL (the connection's `config.url`). */
  serverUrl: string;
  /** The service's callback, registered with the client and sent with the request. */
  redirectUrl: string;
  state: string;
  /** A client registered with the authorization server beforehand; absent: registered dynamically. */
  client?: { clientId: string; clientSecret?: string | null } | null;
  /** Absent: the scopes the resource metadata lists, if any. */
  scope?: string | null;
  fetch: typeof fetch;
}

/** Whether `error` is the authorization server's own answer (an OAuth error), rather than a failure to reach it. */
export const isOAuthAnswer = (error: unknown): error is OAuthError => error instanceof OAuthError;

/** Every request bounded in time: a server that never answers must not hold a run or an API request. */
const bounded =
  (fetchFn: typeof fetch): typeof fetch =>
  (input, init) =>
    fetchFn(input, {
      ...init,
      signal: init?.signal
        ? AbortSignal.any([init.signal, AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS)])
        : AbortSignal.timeout(OAUTH_REQUEST_TIMEOUT_MS),
    });

/** Discovers the servers, registers (or takes) a client and prepares the authorization URL with PKCE. */
export async function beginAuthorization(input: BeginAuthorization): Promise<{ authorizationUrl: URL; pending: PendingAuthorization }> {
  const fetchFn = bounded(input.fetch);
  const info = await discoverOAuthServerInfo(input.serverUrl, { fetchFn });
  let resource: URL | undefined;
  if (info.resourceMetadata) {
    // The metadata must describe this server (or a parent of its path): tokens for another resource are refused.
    const requested = resourceUrlFromServerUrl(input.serverUrl);
    if (!checkResourceAllowed({ requestedResource: requested, configuredResource: info.resourceMetadata.resource }))
      throw new Error(`the protected resource metadata is for ${info.resourceMetadata.resource}, not for ${requested.href}`);
    resource = new URL(info.resourceMetadata.resource);
  }
  const metadata = info.authorizationServerMetadata;
  const scope = input.scope ?? info.resourceMetadata?.scopes_supported?.join(' ') ?? undefined;
  const client: OAuthClientInformationMixed = input.client
    ? { client_id: input.client.clientId, ...(input.client.clientSecret ? { client_secret: input.client.clientSecret } : {}) }
    : await registerClient(info.authorizationServerUrl, {
        metadata,
        clientMetadata: {
          client_name: 'workspace-agent-service',
          redirect_uris: [input.redirectUrl],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        },
        scope,
        fetchFn,
      });
  const { authorizationUrl, codeVerifier } = await startAuthorization(info.authorizationServerUrl, {
    metadata,
    clientInformation: client,
    redirectUrl: input.redirectUrl,
    scope,
    state: input.state,
    resource,
  });
  const servers: OAuthServers = { authorizationServerUrl: info.authorizationServerUrl, metadata, resource: resource?.href };
  return { authorizationUrl, pending: { serverUrl: input.serverUrl, redirectUrl: input.redirectUrl, codeVerifier, servers, client } };
}

const grantOf = (servers: OAuthServers, client: OAuthClientInformationMixed, tokens: OAuthTokens, now: number): OAuthGrant => ({
  servers,
  client,
  tokens,
  expiresAt: typeof tokens.expires_in === 'number' ? now + tokens.expires_in * 1000 : null,
});

/** Exchanges the callback's code (with the PKCE verifier) for tokens. */
export async function exchangeCode(pending: PendingAuthorization, code: string, fetchFn: typeof fetch): Promise<OAuthGrant> {
  const now = Date.now();
  const tokens = await exchangeAuthorization(pending.servers.authorizationServerUrl, {
    metadata: pending.servers.metadata,
    clientInformation: pending.client,
    authorizationCode: code,
    codeVerifier: pending.codeVerifier,
    redirectUri: pending.redirectUrl,
    resource: pending.servers.resource,
    fetchFn: bounded(fetchFn),
  });
  return grantOf(pending.servers, pending.client, tokens, now);
}

/** A new grant from the refresh token (the server may rotate it; without a new one the old one is kept). */
export async function refreshGrant(grant: OAuthGrant, fetchFn: typeof fetch): Promise<OAuthGrant> {
  if (!grant.tokens.refresh_token) throw new Error('the access token expired and the authorization server issued no refresh token');
  const now = Date.now();
  const tokens = await refreshAuthorization(grant.servers.authorizationServerUrl, {
    metadata: grant.servers.metadata,
    clientInformation: grant.client,
    refreshToken: grant.tokens.refresh_token,
    resource: grant.servers.resource,
    fetchFn: bounded(fetchFn),
  });
  return grantOf(grant.servers, grant.client, tokens, now);
}

/**
 * Revokes the grant's tokens at the authorization server (RFC 7009): the refresh token (which ends
 * the grant at servers that tie access tokens to it), then the access token. Answers false when the
 * server has no revocation endpoint. The SDK's client has no revocation call, hence this one.
 */
export async function revokeGrant(grant: OAuthGrant, fetchFn: typeof fetch): Promise<boolean> {
  // RFC 8414 metadata may name it; OpenID Connect discovery's type has no such member.
  const endpoint = (grant.servers.metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint;
  if (!endpoint) return false;
  const tokens: [string, string][] = [];
  if (grant.tokens.refresh_token) tokens.push([grant.tokens.refresh_token, 'refresh_token']);
  tokens.push([grant.tokens.access_token, 'access_token']);
  for (const [token, hint] of tokens) {
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: grant.client.client_id });
    if (grant.client.client_secret) body.set('client_secret', grant.client.client_secret);
    const response = await bounded(fetchFn)(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    // RFC 7009: 200 for a revoked (or unknown) token; anything else is the server refusing.
    if (!response.ok) throw new Error(`the revocation endpoint answered ${response.status}`);
    await response.body?.cancel();
  }
  return true;
}
