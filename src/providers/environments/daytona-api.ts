// Daytona's two HTTP surfaces, as the `daytona` environment driver reaches them, both with the
// API key as `Authorization: Bearer` (and `X-Daytona-Organization-ID` when the provider names one):
//   - the API (`api_url`, default https://app.daytona.io/api): `POST /sandbox`, `GET /sandbox/{id
//     or name}`, `POST /sandbox/{id}/start`, `POST /sandbox/{id}/stop`, `DELETE /sandbox/{id}`;
//   - each sandbox's toolbox (the daemon inside it, reached through the `toolboxProxyUrl` the API
//     gives for the sandbox, as `<toolboxProxyUrl>/<sandbox id>`): `POST /process/execute`,
//     `GET /work-dir`, `GET /files`, `GET /files/info`, `GET /files/download`,
//     `POST /files/upload`, `POST /files/folder`.
import { setTimeout as delay } from 'node:timers/promises';
import { EnvironmentDriverError, type EnvironmentDriverContext } from '../environment-driver.js';
import { controlPlaneApi, SandboxApiError } from './sandbox-http.js';

export const DEFAULT_DAYTONA_API_URL = 'https://app.daytona.io/api';
const API_SERVICE = 'the Daytona API';
/** How long provisioning, start and stop wait for the sandbox to reach the state asked for. */
export const DAYTONA_STATE_TIMEOUT_MS = 5 * 60_000;

export interface DaytonaSandbox {
  id: string;
  name?: string;
  state?: string;
  errorReason?: string;
  toolboxProxyUrl?: string;
}

export function apiUrlOf(ctx: EnvironmentDriverContext): string {
  const configured = ctx.providerConfig.api_url;
  return (typeof configured === 'string' && configured ? configured : DEFAULT_DAYTONA_API_URL).replace(/\/+$/, '');
}

/** The headers every Daytona request carries. */
export function daytonaHeaders(ctx: EnvironmentDriverContext): Record<string, string> {
  const key = ctx.credential?.api_key;
  if (typeof key !== 'string' || !key) throw new EnvironmentDriverError('unavailable', 'the Daytona provider has no API key');
  const organization = ctx.providerConfig.organization_id;
  return {
    authorization: `Bearer ${key}`,
    ...(typeof organization === 'string' && organization ? { 'x-daytona-organization-id': organization } : {}),
  };
}

/** One control-plane call (see controlPlaneApi). */
export const daytonaApi = controlPlaneApi({
  vendor: 'Daytona',
  service: API_SERVICE,
  apiUrl: (ctx) => apiUrlOf(ctx),
  headers: (ctx) => daytonaHeaders(ctx),
});

/** A sandbox by id or name, or null when Daytona has none. */
export async function getSandbox(ctx: EnvironmentDriverContext, idOrName: string, signal?: AbortSignal): Promise<DaytonaSandbox | null> {
  try {
    return (await daytonaApi<DaytonaSandbox>(ctx, 'GET', `/sandbox/${encodeURIComponent(idOrName)}`, [200], undefined, signal)).body;
  } catch (error) {
    if (error instanceof SandboxApiError && error.status === 404) return null;
    throw error;
  }
}

const FAILED_STATES = new Set(['error', 'build_failed']);

/**
 * Waits until the sandbox is in one of `wanted` states: asks at once, then backs off (250 ms
 * doubling to 2 s) — Daytona's start, stop and create answer before the sandbox gets there.
 */
export async function waitForState(
  ctx: EnvironmentDriverContext,
  sandboxId: string,
  wanted: string[],
  signal?: AbortSignal,
): Promise<DaytonaSandbox> {
  const deadline = Date.now() + DAYTONA_STATE_TIMEOUT_MS;
  let pause = 250;
  for (;;) {
    const sandbox = await getSandbox(ctx, sandboxId, signal);
    if (!sandbox) throw new EnvironmentDriverError('unavailable', `the Daytona sandbox ${sandboxId} no longer exists`);
    if (sandbox.state && wanted.includes(sandbox.state)) return sandbox;
    if (sandbox.state && FAILED_STATES.has(sandbox.state))
      throw new Error(`the Daytona sandbox is in state ${sandbox.state}: ${sandbox.errorReason ?? 'no reason given'}`);
    if (Date.now() > deadline)
      throw new EnvironmentDriverError(
        'unavailable',
        `the Daytona sandbox ${sandboxId} did not become ${wanted.join(' or ')} in time (${sandbox.state})`,
      );
    await delay(pause, undefined, { signal });
    pause = Math.min(pause * 2, 2000);
  }
}

// The toolbox address of each sandbox, by API and sandbox: asked for once per process.
const toolboxCache = new Map<string, string>();
const cacheKey = (ctx: EnvironmentDriverContext, sandboxId: string) => `${apiUrlOf(ctx)}|${sandboxId}`;

/** The toolbox base URL the sandbox's DTO gives (older APIs without `toolboxProxyUrl`: the API's own toolbox route). */
export function toolboxUrlOf(ctx: EnvironmentDriverContext, sandbox: DaytonaSandbox): string {
  const url = sandbox.toolboxProxyUrl
    ? `${sandbox.toolboxProxyUrl.replace(/\/+$/, '')}/${encodeURIComponent(sandbox.id)}`
    : `${apiUrlOf(ctx)}/toolbox/${encodeURIComponent(sandbox.id)}/toolbox`;
  toolboxCache.set(cacheKey(ctx, sandbox.id), url);
  return url;
}

export function forgetToolbox(ctx: EnvironmentDriverContext, sandboxId: string) {
  toolboxCache.delete(cacheKey(ctx, sandboxId));
}

/** A started sandbox's toolbox URL; a stopped or vanished sandbox is `unavailable`. */
export async function toolboxUrl(ctx: EnvironmentDriverContext, sandboxId: string): Promise<string> {
  const cached = toolboxCache.get(cacheKey(ctx, sandboxId));
  if (cached) return cached;
  let sandbox: DaytonaSandbox | null;
  try {
    sandbox = await getSandbox(ctx, sandboxId);
  } catch (error) {
    if (error instanceof SandboxApiError) throw new EnvironmentDriverError('unavailable', `the Daytona API answered: ${error.message}`);
    throw error;
  }
  if (!sandbox) throw new EnvironmentDriverError('unavailable', `the Daytona sandbox ${sandboxId} no longer exists`);
  if (sandbox.state !== 'started')
    throw new EnvironmentDriverError('unavailable', `the Daytona sandbox ${sandboxId} is ${sandbox.state ?? 'not started'}`);
  return toolboxUrlOf(ctx, sandbox);
}
