// E2B's two HTTP surfaces, as the `e2b` environment driver reaches them:
//   - the control plane (`api_url`, default https://api.e2b.app), authenticated by `X-API-Key`:
//     `POST /sandboxes`, `GET /sandboxes/{id}`, `GET /v2/sandboxes`, `POST /sandboxes/{id}/pause`,
//     `POST /sandboxes/{id}/connect`, `DELETE /sandboxes/{id}`;
//   - each sandbox's own daemon (envd) on port 49983 of the sandbox's host: Connect RPC services
//     (`process.Process`, `filesystem.Filesystem`) and plain HTTP `/files`, authenticated by the
//     sandbox's access token (`X-Access-Token`) and, for the user commands run as, `Authorization:
//     Basic <user>:`. Requests carry `E2b-Sandbox-Id` and `E2b-Sandbox-Port`, by which E2B's shared
//     sandbox host (and a self-hosted proxy) routes them.
import type { EnvironmentDriverContext } from '../environment-driver.js';
import { EnvironmentDriverError } from '../environment-driver.js';
import { controlPlaneApi, SandboxApiError } from './sandbox-http.js';

/** The port envd listens on inside every sandbox. */
export const ENVD_PORT = 49983;
export const DEFAULT_E2B_DOMAIN = 'e2b.app';
/** The user commands run as and files belong to, unless the template names another. */
export const DEFAULT_E2B_USER = 'user';
const API_SERVICE = 'the E2B API';

/** What the control plane answers about a sandbox (`Sandbox` and `SandboxDetail` share these members). */
export interface E2bSandbox {
  sandboxID: string;
  templateID?: string;
  envdVersion?: string;
  envdAccessToken?: string;
  domain?: string | null;
  state?: 'running' | 'paused';
  metadata?: Record<string, string>;
}

export function apiUrlOf(ctx: EnvironmentDriverContext): string {
  const configured = ctx.providerConfig.api_url;
  if (typeof configured === 'string' && configured) return configured.replace(/\/+$/, '');
  return `https://api.${domainOf(ctx)}`;
}

function domainOf(ctx: EnvironmentDriverContext): string {
  const domain = ctx.providerConfig.domain;
  return typeof domain === 'string' && domain ? domain : DEFAULT_E2B_DOMAIN;
}

function apiKeyOf(ctx: EnvironmentDriverContext): string {
  const key = ctx.credential?.api_key;
  if (typeof key !== 'string' || !key) throw new EnvironmentDriverError('unavailable', 'the E2B provider has no API key');
  return key;
}

/** One control-plane call (see controlPlaneApi). */
export const e2bApi = controlPlaneApi({
  vendor: 'E2B',
  service: API_SERVICE,
  apiUrl: (ctx) => apiUrlOf(ctx),
  headers: (ctx) => ({ 'x-api-key': apiKeyOf(ctx) }),
});

/** How to reach one sandbox's envd: its base URL and the headers every request carries. */
export interface EnvdAccess {
  baseUrl: string;
  headers: Record<string, string>;
  /** The outbound policy's fetch (the driver context's). */
  fetch: typeof fetch;
}

/**
 * envd's base URL: the provider's `sandbox_url` with `{sandbox_id}` and `{port}` filled in (one
 * shared host routes by the `E2b-Sandbox-*` headers), else `https://49983-<id>.<domain>` on the
 * sandbox's own domain.
 */
export function envdBaseUrl(ctx: EnvironmentDriverContext, sandbox: Pick<E2bSandbox, 'sandboxID' | 'domain'>): string {
  const template = ctx.providerConfig.sandbox_url;
  if (typeof template === 'string' && template)
    return template.replaceAll('{sandbox_id}', sandbox.sandboxID).replaceAll('{port}', String(ENVD_PORT)).replace(/\/+$/, '');
  return `https://${ENVD_PORT}-${sandbox.sandboxID}.${sandbox.domain || domainOf(ctx)}`;
}

/** The user commands run as: the template's `user`, else E2B's default user. */
export function userOf(ctx: EnvironmentDriverContext): string {
  const user = ctx.environmentConfig.user;
  return typeof user === 'string' && user ? user : DEFAULT_E2B_USER;
}

export function envdAccess(ctx: EnvironmentDriverContext, sandbox: E2bSandbox): EnvdAccess {
  return {
    baseUrl: envdBaseUrl(ctx, sandbox),
    headers: {
      'e2b-sandbox-id': sandbox.sandboxID,
      'e2b-sandbox-port': String(ENVD_PORT),
      authorization: `Basic ${Buffer.from(`${userOf(ctx)}:`).toString('base64')}`,
      ...(sandbox.envdAccessToken ? { 'x-access-token': sandbox.envdAccessToken } : {}),
    },
    fetch: ctx.fetch,
  };
}

// The sandbox's access token and address, by control plane and sandbox: fetched once per process
// (GET /sandboxes/{id}) rather than before every command; dropped when the sandbox is paused,
// resumed or killed.
const accessCache = new Map<string, EnvdAccess>();
const cacheKey = (ctx: EnvironmentDriverContext, sandboxId: string) => `${apiUrlOf(ctx)}|${sandboxId}`;

export function forgetAccess(ctx: EnvironmentDriverContext, sandboxId: string) {
  accessCache.delete(cacheKey(ctx, sandboxId));
}

export function rememberAccess(ctx: EnvironmentDriverContext, sandbox: E2bSandbox) {
  accessCache.set(cacheKey(ctx, sandbox.sandboxID), envdAccess(ctx, sandbox));
}

/** How to reach a running sandbox's envd; a paused or vanished sandbox is `unavailable`. */
export async function sandboxAccess(ctx: EnvironmentDriverContext, sandboxId: string): Promise<EnvdAccess> {
  const cached = accessCache.get(cacheKey(ctx, sandboxId));
  if (cached) return cached;
  let detail: E2bSandbox;
  try {
    detail = (await e2bApi<E2bSandbox>(ctx, 'GET', `/sandboxes/${encodeURIComponent(sandboxId)}`, [200])).body;
  } catch (error) {
    if (error instanceof SandboxApiError && error.status === 404)
      throw new EnvironmentDriverError(
        'unavailable',
        `the E2B sandbox ${sandboxId} no longer exists (killed at its timeout, or outside the service)`,
      );
    if (error instanceof SandboxApiError) throw new EnvironmentDriverError('unavailable', `the E2B API answered: ${error.message}`);
    throw error;
  }
  if (detail.state === 'paused') throw new EnvironmentDriverError('unavailable', `the E2B sandbox ${sandboxId} is paused`);
  rememberAccess(ctx, detail);
  return accessCache.get(cacheKey(ctx, sandboxId))!;
}
