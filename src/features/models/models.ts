// Models: named by a key unique in the workspace (never an id), bound to a model provider, with the
// provider's model name, the model API and its settings. Live rows: PATCH in place, version, ETag
// "{key}:{version}"; `enabled: false` stops new use at once.
import { Prisma, type Model } from '../../generated/prisma/client.js';
import { MODEL_KEY } from '../agents/documents/config-schema.js';
import { checkIfMatch } from '../../lib/etag.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { isMediaKind, MEDIA_KINDS } from '../../lib/media.js';
import { validateDescription, validateOptionalName, validateProviderModel } from '../../lib/text-fields.js';
import { validateLabels } from '../../lib/labels.js';
import { diffFields, recordAudit, recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { getProvider } from './providers.js';
import { validatePricing } from './pricing.js';
import { providerType } from '../../providers/index.js';
import { listQuery } from '../../services/list-query.js';
import type { NodeRowsLoader } from '../../services/nodes.js';
import { JsonObjectDocument, readDocument } from '../../lib/json-documents.js';

const KEY = new RegExp(MODEL_KEY);

function validateApi(type: string, api: unknown): string {
  const t = providerType('model', type);
  const apis = t?.modelApis?.map((a) => a.api) ?? [];
  if (api === undefined || api === null) return apis[0] ?? '';
  if (typeof api !== 'string' || !apis.includes(api))
    throw invalidArgument(`api must be one of ${apis.join(', ')} for ${type} providers`, 'api');
  return api;
}

/**
 * A model's stored settings (`models.settings`): a JSON object, checked as one here; its members are
 * its model API's to read (each type's settings schema), `input_media` checked when written.
 */
export const storedModelSettings = (value: unknown): JsonObjectDocument =>
  value === null || value === undefined ? {} : readDocument(JsonObjectDocument, value, 'models.settings');

function validateSettings(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidArgument('settings must be an object', 'settings');
  // `input_media` says which media the model reads itself (media understanding describes the rest).
  const inputMedia = (value as { input_media?: unknown }).input_media;
  if (inputMedia !== undefined && !(Array.isArray(inputMedia) && inputMedia.every(isMediaKind)))
    throw invalidArgument(`settings.input_media must be a list of ${MEDIA_KINDS.join(', ')}`, 'settings.input_media');
  return value as Record<string, unknown>;
}

export async function getModel(call: CallContext, key: string): Promise<Model> {
  const { db, actor } = call;
  requirePermission(actor, 'read');
  const row = await db.model.findUnique({ where: { workspaceId_key: { workspaceId: actor.workspaceId, key } } });
  if (!row) throw notFound('model', key);
  return row;
}

export interface CreateModelInput {
  key?: unknown;
  providerId?: unknown;
  providerModel?: unknown;
  api?: unknown;
  name?: unknown;
  description?: unknown;
  settings?: unknown;
  pricing?: unknown;
  enabled?: boolean | null;
  labels?: unknown;
}

/** A nullable JSON column's value as Prisma writes it (null is the database's NULL). */
const jsonOrNull = (value: object | null) => (value === null ? Prisma.DbNull : (value as Prisma.InputJsonValue));

export async function createModel(call: CallContext, input: CreateModelInput) {
  const { actor } = call;
  requirePermission(actor, 'write');
  if (typeof input.key !== 'string' || !KEY.test(input.key))
    throw invalidArgument('key must be 1 to 128 characters of a-z, 0-9, . and -, starting with a letter or digit', 'key');
  if (typeof input.providerId !== 'string') throw invalidArgument('provider_id is required', 'provider_id');
  validateProviderModel(input.providerModel);
  const pricing = validatePricing(input.pricing);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const provider = await getProvider(bound, 'model', input.providerId as string);
    const exists = await tx.model.findUnique({ where: { workspaceId_key: { workspaceId: actor.workspaceId, key: input.key as string } } });
    if (exists) throw new AppError('conflict', `a model with key ${quoteInput(input.key)} already exists`, { field: 'key' });
    const row = await tx.model.create({
      data: {
        workspaceId: actor.workspaceId,
        key: input.key as string,
        providerId: provider.id,
        providerModel: input.providerModel as string,
        api: validateApi(provider.type, input.api),
        name: validateOptionalName(input.name),
        description: validateDescription(input.description),
        settings: validateSettings(input.settings) as Prisma.InputJsonValue,
        pricing: jsonOrNull(pricing),
        enabled: input.enabled ?? true,
        labels: input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels),
        createdById: actor.principalId,
        updatedById: actor.principalId,
      },
    });
    await recordCreation(bound, 'model', row.key, {
      provider_id: { from: null, to: provider.id },
      provider_model: { from: null, to: row.providerModel },
    });
    return row;
  });
}

export async function listModels(
  call: CallContext,
  args: {
    providerId?: string | null;
    enabled?: boolean | null;
    q?: string | null;
    label?: readonly string[] | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  const { actor } = call;
  requirePermission(actor, 'read');
  // Keyed by the workspace's own model keys, so the list reads in key order.
  const query = listQuery({ list: 'models', sort: { field: 'key', direction: 'asc' }, search: ['key', 'name', 'description'] }, call, args);
  const rows = await call.db.model.findMany(
    query.findArgs({
      ...(args.providerId ? { providerId: args.providerId } : {}),
      ...(args.enabled != null ? { enabled: args.enabled } : {}),
    }),
  );
  return query.page(rows);
}

export async function updateModel(call: CallContext, key: string, ifMatch: string | null | undefined, patch: CreateModelInput) {
  const { actor } = call;
  requirePermission(actor, 'write');
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await getModel(bound, key);
    checkIfMatch(ifMatch, row.key, row.version);
    if (patch.key !== undefined && patch.key !== row.key) throw invalidArgument('a model key never changes', 'key');
    const data: Record<string, unknown> = {};
    if (patch.providerModel !== undefined) {
      data.providerModel = validateProviderModel(patch.providerModel);
    }
    if (patch.providerId !== undefined && patch.providerId !== row.providerId)
      throw invalidArgument('a model stays with its provider; create a new model for another provider', 'provider_id');
    if (patch.api !== undefined) {
      const provider = await tx.provider.findUniqueOrThrow({ where: { id: row.providerId } });
      data.api = validateApi(provider.type, patch.api);
    }
    if (patch.name !== undefined) data.name = validateOptionalName(patch.name);
    if (patch.description !== undefined) data.description = validateDescription(patch.description);
    if (patch.settings !== undefined) data.settings = validateSettings(patch.settings);
    // A new price replaces the model's own price whole; null removes it (the catalogue's applies again).
    if (patch.pricing !== undefined) data.pricing = validatePricing(patch.pricing);
    if (patch.enabled !== undefined && patch.enabled !== null) data.enabled = patch.enabled;
    if (patch.labels !== undefined) data.labels = validateLabels(patch.labels ?? {});
    const changes = diffFields(row, data);
    if (!changes) return row;
    const updated = await tx.model
      .update({
        where: { workspaceId_key: { workspaceId: row.workspaceId, key: row.key }, version: row.version },
        data: {
          ...data,
          ...('pricing' in data ? { pricing: jsonOrNull(data.pricing as object | null) } : {}),
          version: row.version + 1,
          updatedById: actor.principalId,
          updatedAt: new Date(),
        },
      })
      .catch((error: { code?: string }) => {
        if (error.code === 'P2025') throw new AppError('precondition_failed', 'the model was changed concurrently; read it again');
        throw error;
      });
    await recordAudit(bound, {
      action: 'update',
      resourceKind: 'model',
      resourceId: row.key,
      version: updated.version,
      changes,
    });
    return updated;
  });
}

// A model has no stored id (its key is unique in a workspace only): its global id is
// `mdl_<workspaceId>:<key>`, unique everywhere like the stored ids.

/** The prefix of model global ids (no stored id carries it). */
export const MODEL_NODE_PREFIX = 'mdl';

// A workspace id, then a model key (1–128 of a-z, 0-9, `.` and `-`).
const MODEL_ID = /^mdl_(wsp_[0-9A-HJKMNP-TV-Z]{26}):([a-z0-9][a-z0-9.-]{0,127})$/;

/** The global id of the model `key` of `workspaceId`. */
export function modelNodeId(workspaceId: string, key: string): string {
  return `${MODEL_NODE_PREFIX}_${workspaceId}:${key}`;
}

/** The workspace and key a model global id names, or null when it is not one. */
export function parseModelNodeId(globalId: string): { workspaceId: string; key: string } | null {
  const match = MODEL_ID.exec(globalId);
  return match ? { workspaceId: match[1]!, key: match[2]! } : null;
}

/** Models by global id for `node(id)` (src/services/nodes.ts): only those of the caller's workspace are looked up. */
export const loadModels: NodeRowsLoader<Model> = async (call, ids) => {
  const keys = ids.map(parseModelNodeId).flatMap((parsed) => (parsed?.workspaceId === call.actor.workspaceId ? [parsed.key] : []));
  if (keys.length === 0) return [];
  return call.db.model.findMany({ where: { workspaceId: call.actor.workspaceId, key: { in: keys } } });
};
