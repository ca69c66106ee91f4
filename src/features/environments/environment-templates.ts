// Environment templates: how to make an environment — an environment provider and the `config` its
// type's environment schema describes. Templates are live (changed in place, versioned); PATCH
// `enabled: false` stops new use (new environments, runs that would provision one) with `disabled`.
import type { EnvironmentTemplate, Provider } from '../../generated/prisma/client.js';
import type { Prisma } from '../../db.js';
import { AppError, invalidArgument, quoteInput } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { isOffered, providerType, type ProviderType } from '../../providers/index.js';
import { deviceBridgeOf } from '../../providers/device-bridge.js';
import { recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { namedPatchData, newNamedFields, newNamedRow } from '../../services/named-patch.js';
import { requirePermission } from '../access/permissions.js';
import { validateAgainst } from '../models/providers.js';
import { updateVersioned, type VersionedPatch, type VersionedTable } from '../../services/versioned.js';
import { listQuery, NAME_AND_DESCRIPTION, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

export interface EnvironmentTemplateInput {
  name?: unknown;
  description?: unknown;
  labels?: unknown;
  providerId?: string | null;
  config?: unknown;
  enabled?: boolean | null;
}

export async function getEnvironmentTemplate(call: CallContext, id: string): Promise<EnvironmentTemplate> {
  const { db, actor } = call;
  requirePermission(actor, 'read');
  return inCallersWorkspace(call, 'environment template', id, await db.environmentTemplate.findUnique({ where: { id } }));
}

/** The environment provider a template names, in the caller's workspace, with its installed type. */
export async function environmentProvider(
  call: CallContext,
  providerId: string,
  field = 'provider_id',
): Promise<{ provider: Provider; type: ProviderType }> {
  const provider = await call.db.provider.findUnique({ where: { id: providerId } });
  if (!provider || provider.workspaceId !== call.actor.workspaceId || provider.kind !== 'environment')
    throw new AppError('not_found', `environment provider ${quoteInput(providerId)} not found`, { field });
  const type = providerType('environment', provider.type);
  if (!type?.environment)
    throw new AppError('failed_precondition', `environment provider type ${provider.type} is not installed`, { field });
  return { provider, type };
}

/** The type must be offered by this deployment (a local provider made while it was allowed is not usable once it is not). */
export function requireOffered(call: CallContext, type: ProviderType, field: string) {
  if (!isOffered(type, call.deps.config))
    throw new AppError(
      'failed_precondition',
      `the environment type ${type.type} is not offered by this deployment${type.type === 'local' ? ' (ALLOW_LOCAL_ENVIRONMENTS is not set)' : ''}`,
      { field },
    );
}

async function validateConfig(call: CallContext, type: ProviderType, value: unknown): Promise<Record<string, unknown>> {
  if (value === undefined || value === null) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('config must be an object', 'config');
  validateAgainst(type.environment!.environmentSchema, value, 'config');
  // Checks the schema cannot make: what the config names must be the workspace's (a paired device).
  await type.environment!.checkConfig?.(
    { workspaceId: call.actor.workspaceId, devices: deviceBridgeOf(call.deps) },
    value as Record<string, unknown>,
  );
  return value as Record<string, unknown>;
}

export async function createEnvironmentTemplate(call: CallContext, input: EnvironmentTemplateInput) {
  const { actor } = call;
  requirePermission(actor, 'write');
  const named = newNamedFields(input);
  if (!input.providerId) throw invalidArgument('provider_id is required', 'provider_id');
  const providerId = input.providerId;
  return inTransaction(call, async (bound) => {
    const { provider, type } = await environmentProvider(bound, providerId);
    requireOffered(bound, type, 'provider_id');
    if (!provider.enabled) throw new AppError('disabled', 'the environment provider is disabled', { field: 'provider_id' });
    const config = await validateConfig(bound, type, input.config);
    const row = await bound.db.environmentTemplate.create({
      data: {
        ...newNamedRow(actor, newId('environmentTemplate'), named, input.enabled),
        providerId: provider.id,
        config: config as Prisma.InputJsonValue,
      },
    });
    await recordCreation(bound, 'environment_template', row.id, {
      name: { from: null, to: named.name },
      provider_id: { from: null, to: provider.id },
      config: { from: null, to: config },
    });
    return row;
  });
}

export async function listEnvironmentTemplates(
  call: CallContext,
  args: { label?: readonly string[] | null; q?: string | null; enabled?: boolean | null; limit?: number | null; cursor?: string | null },
) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const query = listQuery(newestFirst('environment_templates', { search: NAME_AND_DESCRIPTION }), call, args);
  const rows = await call.db.environmentTemplate.findMany(query.findArgs(args.enabled != null ? { enabled: args.enabled } : {}));
  return query.page(rows);
}

const TEMPLATES: VersionedTable<EnvironmentTemplate> = {
  resourceKind: 'environment_template',
  read: getEnvironmentTemplate,
  delegate: (bound) => bound.db.environmentTemplate,
};

export const updateEnvironmentTemplate: VersionedPatch<EnvironmentTemplateInput, EnvironmentTemplate> = (call, id, ifMatch, patch) =>
  updateVersioned(call, TEMPLATES, { permission: 'write', id, ifMatch }, async (bound, row) => {
    const data = namedPatchData(patch);
    // A new provider or config is checked against the (new) provider's type; a config kept while the
    // provider changes must suit the new type too.
    if ((patch.providerId !== undefined && patch.providerId !== null) || patch.config !== undefined) {
      const providerId = patch.providerId ?? row.providerId;
      const { type } = await environmentProvider(bound, providerId);
      if (providerId !== row.providerId) {
        requireOffered(bound, type, 'provider_id');
        data.providerId = providerId;
      }
      data.config = await validateConfig(bound, type, patch.config === undefined ? row.config : patch.config);
    }
    return data;
  });

/** Environment templates by id for `node(id)` and relations (src/services/nodes.ts). */
export const loadEnvironmentTemplates: NodeRowsLoader<EnvironmentTemplate> = (call, ids) =>
  call.db.environmentTemplate.findMany({ where: idsInWorkspace(call, ids) });
