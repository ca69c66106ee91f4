// Providers: configured accounts of external services, of five kinds. Credentials (and a model
// provider's extra headers) are write-only and sealed with AES-256-GCM; views say only whether one
// is configured. Endpoints pass the deployment's policy. Disabled providers refuse new use.
import { ajvOfDraft } from '../../lib/json-schema-drafts.js';
import type { AnySchema } from 'ajv';
import type { Prisma } from '../../db.js';
import { fieldPath } from '../agents/documents/config-schema.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { validateDescription, validateName } from '../../lib/text-fields.js';
import { newId } from '../../lib/ids.js';
import { JsonObjectDocument, readDocument } from '../../lib/json-documents.js';
import { plainHttpAllowed } from '../../lib/host-allowance.js';
import { outboundPolicy } from '../../lib/outbound-policy.js';
import { validateLabels } from '../../lib/labels.js';
import {
  PROVIDER_KINDS,
  describeType,
  isOffered,
  providerType,
  providerTypes,
  type ProbeResult,
  type ProviderKind,
  type ProviderType,
} from '../../providers/index.js';
import { REDACTED, recordCreation } from '../audit/audit.js';
import type { Deps } from '../../services/deps.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { namedPatchData, newNamedRow } from '../../services/named-patch.js';
import { requirePermission } from '../access/permissions.js';
import { changeVersioned } from '../../services/versioned.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import type { Provider } from '../../generated/prisma/client.js';

// The service's own fixed schemas (provider types' configuration): compiled once into one shared instance.
const ajv = ajvOfDraft('2020-12', { strict: false, allErrors: false });
const compiled = new Map<object, ReturnType<typeof ajv.compile>>();

export function validateAgainst(schema: object, value: unknown, field: string) {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema as AnySchema);
    compiled.set(schema, validate);
  }
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const path = fieldPath(field, error);
    throw invalidArgument(
      `${path} ${error.keyword === 'additionalProperties' ? 'is not a known field' : error.keyword === 'required' ? 'is required' : error.message}`,
      path,
    );
  }
}

export function parseKind(kind: string): ProviderKind {
  if (!(PROVIDER_KINDS as readonly string[]).includes(kind))
    throw new AppError('not_found', `there is no provider kind ${quoteInput(kind)}`);
  return kind as ProviderKind;
}

/** The types of a kind this deployment offers (the local environment type only with ALLOW_LOCAL_ENVIRONMENTS, the development model type with ALLOW_DEVELOPMENT_MODELS). */
export function listProviderTypes(deps: Pick<Deps, 'config'>, kind: string) {
  return providerTypes(parseKind(kind), deps.config).map(describeType);
}

/** The setting that offers each type only some deployments offer (named in the refusal). */
const DEPLOYMENT_SWITCHES: Record<string, string> = {
  'environment:local': 'ALLOW_LOCAL_ENVIRONMENTS',
  'model:development': 'ALLOW_DEVELOPMENT_MODELS',
};

function typeOf(deps: Pick<Deps, 'config'>, kind: ProviderKind, type: unknown): ProviderType {
  if (typeof type !== 'string' || !type) throw invalidArgument('type is required', 'type');
  const found = providerType(kind, type);
  if (found && !isOffered(found, deps.config))
    throw invalidArgument(
      `the ${kind} provider type ${quoteInput(type)} is not offered by this deployment${DEPLOYMENT_SWITCHES[`${kind}:${type}`] ? ` (${DEPLOYMENT_SWITCHES[`${kind}:${type}`]})` : ''}`,
      'type',
    );
  if (!found) throw invalidArgument(`unknown ${kind} provider type ${quoteInput(type)}; see GET /api/v1/provider-types/${kind}`, 'type');
  return found;
}

/**
 * The endpoint policy: HTTPS, unless the operator allows plain HTTP (ALLOW_PLAIN_HTTP_ENDPOINTS=true,
 * or a comma-separated host list), and no literal address the outbound policy refuses (private,
 * loopback, …: OUTBOUND_ALLOW_PRIVATE; src/lib/outbound-policy.ts). A name is checked when it is used,
 * on the address it resolves to.
 */
export function checkEndpointPolicy(deps: Deps, t: ProviderType, config: Record<string, unknown>) {
  // Local processes (MCP over stdio) run on the service's own machine: only where the operator allows it.
  if (t.kind === 'connector' && config.transport === 'stdio' && !deps.config.allowStdioConnectors) {
    throw invalidArgument('stdio MCP servers are not allowed on this deployment (ALLOW_STDIO_CONNECTORS)', 'config.transport');
  }
  for (const field of t.endpointFields ?? []) {
    const value = config[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw invalidArgument(`config.${field} must be a URL`, `config.${field}`);
    if (value.startsWith('unix://')) {
      // A socket of this machine (the container engine's gives whoever uses it the machine): only
      // where the deployment allows its path (OUTBOUND_ALLOW_PRIVATE `unix:/path` or `unix:*`).
      const refusal = outboundPolicy(deps.config.outboundAllowPrivate).socketRefusal(value.slice('unix://'.length));
      if (refusal) throw invalidArgument(`config.${field}: ${refusal.message}`, `config.${field}`, { reason: refusal.code });
      continue;
    }
    checkEndpointUrl(deps, value.replace(/^tcp:/, 'http:'), `config.${field}`);
  }
}

/**
 * The endpoint policy for one URL (a provider's endpoint, or a URL a run's tool reaches): https, or
 * plain http where the operator allows it. Throws `invalid_argument` naming `field`.
 */
export function checkEndpointUrl(deps: Pick<Deps, 'config'>, value: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument(`${field} is not a URL`, field);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidArgument(`${field} must be an https URL`, field);
  if (url.protocol === 'http:' && !plainHttpAllowed(deps.config.allowPlainHttpEndpoints, url.hostname))
    throw invalidArgument(`${field} uses plain HTTP, which this deployment does not allow (ALLOW_PLAIN_HTTP_ENDPOINTS)`, field);
  const refusal = outboundPolicy(deps.config.outboundAllowPrivate).urlRefusal(url);
  if (refusal) throw invalidArgument(`${field}: ${refusal.message}`, field, { reason: refusal.code });
  return url;
}

/** A model provider's extra request headers: header name → a single-line value (also the `ExtraHeaders` scalar's check). */
export function validateExtraHeaders(value: unknown, field = 'extra_headers'): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalidArgument(`${field} must map header names to values`, field);
  // Collected as entries: Object.fromEntries defines each member (a header named `__proto__` too).
  const headers: [string, string][] = [];
  for (const [name, header] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/.test(name) || /^(host|content-length|transfer-encoding|connection)$/i.test(name))
      throw invalidArgument(`${field}.${name} is not an allowed header name`, `${field}.${name}`);
    if (typeof header !== 'string' || /[\r\n]/.test(header) || header.length > 4096)
      throw invalidArgument(`${field}.${name} must be a single-line string`, `${field}.${name}`);
    headers.push([name, header]);
  }
  return Object.fromEntries(headers);
}

function validateObject(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidArgument(`${field} must be an object`, field);
  return value as Record<string, unknown>;
}

/** A provider's config (checked against its type's schema when written; here only as an object). */
export const providerConfig = (row: Pick<Provider, 'config'>): JsonObjectDocument =>
  readDocument(JsonObjectDocument, row.config, 'providers.config');

export async function getProvider(call: CallContext, kind: ProviderKind, id: string): Promise<Provider> {
  const { db, actor } = call;
  requirePermission(actor, 'read');
  const row = await db.provider.findUnique({ where: { id } });
  if (!row || row.workspaceId !== actor.workspaceId || row.kind !== kind) throw notFound(`${kind} provider`, id);
  return row;
}

export interface CreateProviderInput {
  type?: unknown;
  name?: unknown;
  description?: unknown;
  config?: unknown;
  credential?: unknown;
  extraHeaders?: unknown;
  labels?: unknown;
  enabled?: boolean | null;
}

export async function createProvider(call: CallContext, kindName: string, input: CreateProviderInput) {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const kind = parseKind(kindName);
  const t = typeOf(deps, kind, input.type);
  validateName(input.name);
  const config = input.config === undefined || input.config === null ? {} : validateObject(input.config, 'config');
  validateAgainst(t.configurationSchema, config, 'config');
  checkEndpointPolicy(deps, t, config);
  const credential = input.credential === undefined || input.credential === null ? null : validateObject(input.credential, 'credential');
  if (credential) validateAgainst(t.credentialSchema, credential, 'credential');
  if (!credential && t.credentialRequired) throw invalidArgument(`a ${t.type} provider needs a credential`, 'credential');
  if (input.extraHeaders !== undefined && input.extraHeaders !== null && kind !== 'model')
    throw invalidArgument('extra_headers are for model providers', 'extra_headers');
  const extraHeaders = input.extraHeaders === undefined || input.extraHeaders === null ? null : validateExtraHeaders(input.extraHeaders);
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  const description = validateDescription(input.description);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await tx.provider.create({
      data: {
        // The name was checked with the provider's type (above); labels before the description.
        ...newNamedRow(actor, newId('provider'), { name: input.name as string, description, labels }, input.enabled),
        kind,
        type: t.type,
        config: config as Prisma.InputJsonValue,
        credentialCiphertext: credential ? deps.secrets.encryptJson(credential) : null,
        extraHeadersCiphertext: extraHeaders && Object.keys(extraHeaders).length ? deps.secrets.encryptJson(extraHeaders) : null,
      },
    });
    await recordCreation(bound, `${kind}_provider`, row.id, {
      type: { from: null, to: t.type },
      name: { from: null, to: row.name },
      config: { from: null, to: config },
      ...(credential ? { credential: { from: REDACTED, to: REDACTED } } : {}),
    });
    return row;
  });
}

export async function listProviders(
  call: CallContext,
  kindName: string,
  args: {
    label?: readonly string[] | null;
    q?: string | null;
    type?: string | null;
    enabled?: boolean | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const kind = parseKind(kindName);
  const query = listQuery(newestFirst(`providers:${kind}`, { search: NAME_AND_DESCRIPTION }), call, args);
  const rows = await call.db.provider.findMany(
    query.findArgs({
      kind,
      ...(args.type ? { type: args.type } : {}),
      ...(args.enabled != null ? { enabled: args.enabled } : {}),
    }),
  );
  return query.page(rows);
}

export interface UpdateProviderInput {
  name?: unknown;
  description?: unknown;
  labels?: unknown;
  enabled?: boolean | null;
  config?: unknown;
  /** A value replaces, null removes, undefined keeps. */
  credential?: unknown;
  extraHeaders?: unknown;
}

export async function updateProvider(
  call: CallContext,
  kindName: string,
  id: string,
  ifMatch: string | null | undefined,
  patch: UpdateProviderInput,
  present: { credential: boolean; extraHeaders: boolean },
) {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const kind = parseKind(kindName);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await getProvider(bound, kind, id);
    const t = providerType(kind, row.type);
    if (!t) throw new AppError('failed_precondition', `provider type ${row.type} is no longer installed`);
    const data = namedPatchData(patch);
    let configChanged = false;
    if (patch.config !== undefined) {
      const config = validateObject(patch.config, 'config');
      validateAgainst(t.configurationSchema, config, 'config');
      checkEndpointPolicy(deps, t, config);
      data.config = config;
      configChanged = JSON.stringify(config) !== JSON.stringify(row.config);
    }
    // Provider rule 3: a config change may point the credential somewhere new, so a stored
    // credential (and every stored extra header) must be replaced or removed in the same change.
    if (configChanged) {
      const missing = [
        ...(row.credentialCiphertext && !present.credential ? ['credential'] : []),
        ...(row.extraHeadersCiphertext && !present.extraHeaders ? ['extra_headers'] : []),
      ];
      if (missing.length)
        throw invalidArgument(
          `changing config while ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} stored needs ${missing.join(' and ')} replaced or removed (null) too`,
          missing[0],
          { missing },
        );
    }
    if (present.credential) {
      if (patch.credential === null) data.credentialCiphertext = null;
      else {
        const credential = validateObject(patch.credential, 'credential');
        validateAgainst(t.credentialSchema, credential, 'credential');
        data.credentialCiphertext = deps.secrets.encryptJson(credential);
      }
    }
    if (present.extraHeaders) {
      if (kind !== 'model') throw invalidArgument('extra_headers are for model providers', 'extra_headers');
      const headers = patch.extraHeaders === null ? null : validateExtraHeaders(patch.extraHeaders);
      data.extraHeadersCiphertext = headers && Object.keys(headers).length ? deps.secrets.encryptJson(headers) : null;
    }
    // A new credential always counts as a change (its ciphertext is new); the audit row says so without it.
    return changeVersioned({
      call: bound,
      delegate: tx.provider,
      row,
      ifMatch,
      resourceKind: `${kind}_provider`,
      action: 'update',
      data,
      secretFields: ['credentialCiphertext', 'extraHeadersCiphertext'],
    });
  });
}

function decryptSecrets(deps: Deps, row: Provider) {
  return {
    credential: row.credentialCiphertext ? deps.secrets.decryptJson<Record<string, unknown>>(row.credentialCiphertext) : null,
    extraHeaders: row.extraHeadersCiphertext ? deps.secrets.decryptJson<Record<string, string>>(row.extraHeadersCiphertext) : {},
  };
}

/** Needs `run`. One inexpensive probe; `unsupported` for types without one (spec, provider rule 6). */
export async function testProvider(call: CallContext, kindName: string, id: string): Promise<ProbeResult> {
  const { deps, actor } = call;
  requirePermission(actor, 'run');
  const kind = parseKind(kindName);
  const row = await getProvider(call, kind, id);
  if (!row.enabled) throw new AppError('disabled', 'the provider is disabled');
  const t = providerType(kind, row.type);
  if (!t?.probe) return { status: 'unsupported' };
  const secrets = decryptSecrets(deps, row);
  if (t.credentialRequired && !secrets.credential) return { status: 'failed', message: 'no credential is configured' };
  return t.probe({ config: providerConfig(row), ...secrets, signal: AbortSignal.timeout(15_000), db: deps.db, ...outbound(deps) });
}

/** For the engine: the provider's secrets and type, refusing disabled providers. */
export function providerForUse(deps: Deps, row: Provider) {
  if (!row.enabled) throw new AppError('disabled', `provider ${row.id} is disabled`);
  const t = providerType(row.kind, row.type);
  if (!t) throw new AppError('failed_precondition', `provider type ${row.type} is not installed`);
  return { type: t, config: providerConfig(row), ...decryptSecrets(deps, row), ...outbound(deps) };
}

/** The fetch every request made for a provider goes through: the deployment's outbound policy. */
export const outboundFetch = (deps: Pick<Deps, 'config'>) => outboundPolicy(deps.config.outboundAllowPrivate).fetch;

/** A provider context's outbound members: the policy's fetch, and the policy for clients with sockets of their own. */
export function outbound(deps: Pick<Deps, 'config'>) {
  const policy = outboundPolicy(deps.config.outboundAllowPrivate);
  return { fetch: policy.fetch, outbound: policy };
}

/** The type and whether enabled of the named providers of the caller's workspace, by id (for pages that name providers). */
export async function providerSummaries(call: CallContext, ids: readonly string[]) {
  const rows = await call.db.provider.findMany({
    where: { workspaceId: call.actor.workspaceId, id: { in: [...new Set(ids)] } },
    select: { id: true, type: true, enabled: true },
  });
  return new Map(rows.map((row) => [row.id, row]));
}
/** Providers by id for `node(id)` and relations (src/services/nodes.ts). */
export const loadProviders: NodeRowsLoader<Provider> = (call, ids) => call.db.provider.findMany({ where: idsInWorkspace(call, ids) });
