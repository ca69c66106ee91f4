// An MCP server that requires OAuth 2.1, on loopback, for the OAuth connection tests: one express app
// built from the official SDK's server-side auth helpers — `mcpAuthRouter` (authorization server
// metadata, protected-resource metadata, dynamic client registration, authorize, token with PKCE and
// refresh, revocation) and `requireBearerAuth` in front of a streamable HTTP MCP server with an
// `echo` tool. Authorization is approved at once (no login page): the test follows the redirects
// with a plain HTTP client. The test steers it through `state`: the access tokens' lifetime, and
// whether refreshes are refused.
import { randomUUID } from 'node:crypto';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { mcpAuthRouter, getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

interface Issued {
  clientId: string;
  expiresAt: number;
  resource?: string;
}

export interface OAuthMcpServer {
  /** The MCP endpoint (`/mcp`). */
  url: string;
  /** The authorization server (issuer). */
  issuer: string;
  /** Lifetime of the access tokens issued from now on (seconds). */
  accessTtlSeconds: number;
  /** When true, every refresh is refused with `invalid_grant`. */
  refuseRefresh: boolean;
  /** Clients registered dynamically. */
  registered: OAuthClientInformationFull[];
  /** Authorization requests (the parameters the SDK's handler validated). */
  authorizations: AuthorizationParams[];
  /** The grant types of every successful token request, in order. */
  grants: string[];
  /** Tokens revoked through the revocation endpoint. */
  revoked: string[];
  /** The bearer token of every MCP request that passed. */
  bearers: string[];
  close(): Promise<void>;
}

class ClientsStore implements OAuthRegisteredClientsStore {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  async getClient(clientId: string) {
    return this.clients.get(clientId);
  }
  async registerClient(client: OAuthClientInformationFull) {
    this.clients.set(client.client_id, client);
    return client;
  }
}

class AutoApprovingProvider implements OAuthServerProvider {
  readonly clientsStore = new ClientsStore();
  private readonly codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  private readonly access = new Map<string, Issued>();
  private readonly refresh = new Map<string, Issued>();

  constructor(private readonly state: OAuthMcpServer) {}

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response) {
    this.state.authorizations.push(params);
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(302, target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string) {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError('unknown authorization code');
    return found.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string) {
    const found = this.codes.get(code);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.state.grants.push('authorization_code');
    return this.issue(client.client_id, found.params.resource?.href);
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string) {
    const found = this.refresh.get(refreshToken);
    if (this.state.refuseRefresh || !found || found.clientId !== client.client_id) throw new InvalidGrantError('refresh token not valid');
    // Rotated: the old refresh token is spent.
    this.refresh.delete(refreshToken);
    this.state.grants.push('refresh_token');
    return this.issue(client.client_id, found.resource);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = this.access.get(token);
    if (!found || found.expiresAt < Date.now()) throw new InvalidTokenError('token not valid');
    return { token, clientId: found.clientId, scopes: [], expiresAt: Math.floor(found.expiresAt / 1000) };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest) {
    this.access.delete(request.token);
    this.refresh.delete(request.token);
    this.state.revoked.push(request.token);
  }

  private issue(clientId: string, resource?: string): OAuthTokens {
    const ttl = this.state.accessTtlSeconds;
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    this.access.set(accessToken, { clientId, expiresAt: Date.now() + ttl * 1000, resource });
    this.refresh.set(refreshToken, { clientId, expiresAt: Number.MAX_SAFE_INTEGER, resource });
    return { access_token: accessToken, token_type: 'bearer', expires_in: ttl, refresh_token: refreshToken };
  }
}

/** A fresh MCP server (stateless: one per request) with the `echo` tool. */
function mcpServer(): Server {
  const server = new Server({ name: 'oauth-test-server', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'echo',
        description: 'Echoes the message back',
        inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: 'text', text: `Echo: ${String(request.params.arguments?.message ?? '')}` }],
  }));
  return server;
}

export async function startOAuthMcpServer(): Promise<OAuthMcpServer> {
  const state: OAuthMcpServer = {
    url: '',
    issuer: '',
    accessTtlSeconds: 3600,
    refuseRefresh: false,
    registered: [],
    authorizations: [],
    grants: [],
    revoked: [],
    bearers: [],
    close: async () => undefined,
  };
  const app = express();
  const http: HttpServer = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  state.url = `${base}/mcp`;
  state.issuer = `${base}/`;
  const provider = new AutoApprovingProvider(state);
  const register = provider.clientsStore.registerClient.bind(provider.clientsStore);
  provider.clientsStore.registerClient = async (client) => {
    state.registered.push(client);
    return register(client);
  };
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(state.issuer),
      resourceServerUrl: new URL(state.url),
      scopesSupported: ['mcp:tools'],
      // Tests make many requests from one address.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  app.post(
    '/mcp',
    express.json(),
    requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(state.url)) }),
    async (req, res) => {
      state.bearers.push(req.auth!.token);
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  // Stateless: no server-to-client stream and no session to end.
  app.get('/mcp', (_req, res) => res.status(405).set('Allow', 'POST').end());
  app.delete('/mcp', (_req, res) => res.status(405).set('Allow', 'POST').end());
  state.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}
