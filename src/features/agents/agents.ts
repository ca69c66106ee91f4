// Agents: revisioned heads whose revisions hold an agent configuration.
import type { Agent, AgentRevision } from '../../generated/prisma/client.js';
import { agentConfigSchema, applyOverrides, fallbackModels, normalizeAgentConfig, type AgentConfig } from './documents/config-schema.js';
import { readDocument } from '../../lib/json-documents.js';
import { COMPOSER_DEFINITION, COMPOSER_PRESET, COMPOSER_VERSION_LABEL, composerConfig } from './documents/composer.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { MEDIA_KINDS } from '../../lib/media.js';
import type { Deps } from '../../services/deps.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import {
  changeHead,
  createHead,
  getHead,
  headList,
  headOperations,
  insertHeadWithFirstRevision,
  publishRevision,
  unarchiveHead,
  validateHeadPatch,
  type HeadListArgs,
  type RevisionedKind,
} from '../../services/revisioned.js';
import { listQuery } from '../../services/list-query.js';
import { storedLabels } from '../../lib/labels.js';
import { assetContentPath, decodeImage, insertAsset } from '../assets/assets.js';
import { checkSkillReferences, configuredSkills } from './skill-references.js';
import { usableModelKeys } from '../models/usable-models.js';

export const AGENTS: RevisionedKind<Agent, AgentRevision> = {
  kind: 'agent',
  table: 'agents',
  revisionIdKind: 'agentRevision',
  headDelegate: (db) => db.agent,
  revisionDelegate: (db) => db.agentRevision,
  headKey: 'agentId',
  contentField: 'config',
  async afterInsert(tx, revision, content) {
    // The content was checked against the configuration schema before it was inserted.
    const { pins } = configuredSkills(storedAgentConfig(content));
    if (pins.length === 0) return;
    await tx.agentRevisionSkill.createMany({
      data: pins.map((pin) => ({
        revisionId: revision.id,
        agentId: revision.agentId,
        workspaceId: revision.workspaceId,
        skillId: pin.skill_id,
        // Null: the skill without a pin (its default revision when a run starts).
        skillRevisionId: pin.revision_id ?? null,
      })),
      skipDuplicates: true,
    });
  },
};

export const {
  get: getAgent,
  archive: archiveAgent,
  unarchive: unarchiveAgent,
  setDefault: setDefaultAgentRevision,
  getRevision: getAgentRevision,
  listRevisions: listAgentRevisions,
} = headOperations(AGENTS);

/**
 * Every reference in a configuration must name a resource of the caller's workspace; anything else
 * answers as not existing (404), naming the field. One query per kind of reference.
 */
export async function checkConfigReferences(call: CallContext, config: AgentConfig, prefix = 'config'): Promise<void> {
  const { db } = call;
  const ws = call.actor.workspaceId;
  const missing = (kind: string, id: string, field: string) => new AppError('not_found', `${kind} ${quoteInput(id)} not found`, { field });

  const modelRefs: [string, string][] = [[config.model, `${prefix}.model`]];
  if (config.reviewer?.model) modelRefs.push([config.reviewer.model, `${prefix}.reviewer.model`]);
  const fallbacks = (settings: Record<string, unknown> | undefined, field: string) =>
    fallbackModels(settings ?? {}).forEach((key, index) => modelRefs.push([key, `${field}.fallback_models[${index}]`]));
  fallbacks(config.model_settings, `${prefix}.model_settings`);
  fallbacks(config.reviewer?.model_settings, `${prefix}.reviewer.model_settings`);
  for (const kind of MEDIA_KINDS) {
    const key = config.media_understanding?.[kind];
    if (key) modelRefs.push([key, `${prefix}.media_understanding.${kind}`]);
  }
  const models = new Set(
    (await db.model.findMany({ where: { workspaceId: ws, key: { in: modelRefs.map(([key]) => key) } }, select: { key: true } })).map(
      (m) => m.key,
    ),
  );
  for (const [key, field] of modelRefs) if (!models.has(key)) throw missing('model', key, field);

  await checkSkillReferences(call, config, prefix);
  /** The query arguments that find which of the ids are rows of the caller's workspace. */
  const idsInWorkspace = (ids: string[]) => ({ where: { workspaceId: ws, id: { in: ids } }, select: { id: true } }) as const;
  const checkIds = async (
    ids: string[],
    field: (index: number) => string,
    kind: string,
    query: (ids: string[]) => Promise<{ id: string }[]>,
  ) => {
    if (!ids.length) return;
    const found = new Set((await query(ids)).map((row) => row.id));
    ids.forEach((id, index) => {
      if (!found.has(id)) throw missing(kind, id, field(index));
    });
  };
  /** Checks the ids the entries of a list of the configuration name (`<list>[i].<idKey>`). */
  const checkListedIds = (list: string, idKey: string, ids: string[], kind: string, query: (ids: string[]) => Promise<{ id: string }[]>) =>
    checkIds(ids, (i) => `${prefix}.${list}[${i}].${idKey}`, kind, query);
  await checkListedIds(
    'connection_tools',
    'connection_id',
    (config.connection_tools ?? []).map((entry) => entry.connection_id),
    'connection',
    (ids) => db.connection.findMany(idsInWorkspace(ids)),
  );
  await checkListedIds(
    'memory_mounts',
    'memory_id',
    (config.memory_mounts ?? []).map((entry) => entry.memory_id),
    'memory',
    (ids) => db.memory.findMany(idsInWorkspace(ids)),
  );
  const template = config.default_environment_template_id;
  if (template) {
    await checkIds(
      [template],
      () => `${prefix}.default_environment_template_id`,
      'environment template',
      (ids) => db.environmentTemplate.findMany(idsInWorkspace(ids)),
    );
  }
  // Subagents: agents of the workspace (another workspace's agent is not found), and a named
  // revision must be one of that agent's.
  const subagents = Object.entries(config.subagents ?? {});
  await checkIds(
    subagents.map(([, subagent]) => subagent.agent_id),
    (i) => `${prefix}.subagents.${subagents[i]![0]}.agent_id`,
    'agent',
    (ids) => db.agent.findMany(idsInWorkspace(ids)),
  );
  const pinned = subagents.filter(([, subagent]) => subagent.revision_id);
  // A subagent's overrides name workspace resources too (a model, memories, nested subagents…). Their
  // model defaults to this configuration's, already checked above, just for the check.
  for (const [name, subagent] of subagents as [string, { overrides?: Record<string, unknown> }][]) {
    if (subagent.overrides)
      await checkConfigReferences(call, { model: config.model, ...subagent.overrides }, `${prefix}.subagents.${name}.overrides`);
  }
  await checkIds(
    pinned.map(([, subagent]) => subagent.revision_id!),
    (i) => `${prefix}.subagents.${pinned[i]![0]}.revision_id`,
    'agent revision',
    async (ids) =>
      (await db.agentRevision.findMany({ where: { workspaceId: ws, id: { in: ids } }, select: { id: true, agentId: true } })).filter(
        (revision) => pinned.some(([, subagent]) => subagent.revision_id === revision.id && subagent.agent_id === revision.agentId),
      ),
  );
  // The web toolset's providers: web providers of the workspace.
  const webConfig = (config.toolsets as { web?: { config?: Record<string, unknown> } } | undefined)?.web?.config ?? {};
  const webRefs = (['provider_id', 'fetch_provider_id'] as const).filter((member) => typeof webConfig[member] === 'string');
  await checkIds(
    webRefs.map((member) => webConfig[member] as string),
    (i) => `${prefix}.toolsets.web.config.${webRefs[i]}`,
    'web provider',
    (ids) => db.provider.findMany({ where: { workspaceId: ws, kind: 'web', id: { in: ids } }, select: { id: true } }),
  );
}

/** null or "" removes the image (the representation shows "" when there is none). */
function validateImageUrl(value: unknown): string | null {
  if (value === null || value === '') return null;
  if (typeof value !== 'string' || value.length > 2048)
    throw invalidArgument('image_url must be an http(s) URL of at most 2048 characters', 'image_url');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidArgument('image_url must be an absolute http(s) URL', 'image_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidArgument('image_url must be an http(s) URL', 'image_url');
  return value;
}

export interface CreateAgentInput {
  name: unknown;
  description?: unknown;
  labels?: unknown;
  imageUrl?: unknown;
  config?: unknown;
  note?: unknown;
}

export const createAgent = (call: CallContext, input: CreateAgentInput) =>
  createHead(AGENTS, call, input, {
    columns: () => ({
      organizationId: call.actor.organizationId,
      imageUrl: input.imageUrl === undefined ? null : validateImageUrl(input.imageUrl),
    }),
    content: () => normalizeAgentConfig(input.config),
    check: checkConfigReferences,
  });

export interface AgentListArgs extends HeadListArgs {
  source?: string | null;
  presetKind?: string | null;
  skillId?: string | null;
  skillRevisionId?: string | null;
}

export async function listAgents(call: CallContext, args: AgentListArgs) {
  requirePermission(call.actor, 'read');
  const query = listQuery(headList('agents'), call, args);
  const pins =
    args.skillId || args.skillRevisionId
      ? {
          revisions: {
            some: {
              skillPins: {
                some: {
                  ...(args.skillId ? { skillId: args.skillId } : {}),
                  ...(args.skillRevisionId ? { skillRevisionId: args.skillRevisionId } : {}),
                },
              },
            },
          },
        }
      : {};
  const rows = await call.db.agent.findMany(
    query.findArgs({
      ...(args.source ? { source: args.source } : {}),
      ...(args.presetKind ? { presetKind: args.presetKind } : {}),
      ...pins,
    }),
  );
  return query.page(rows);
}

export async function updateAgent(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  patch: { name?: unknown; description?: unknown; labels?: unknown; imageUrl?: unknown },
) {
  const data = validateHeadPatch(patch);
  if (patch.imageUrl !== undefined) data.imageUrl = validateImageUrl(patch.imageUrl);
  return changeHead(AGENTS, call, id, ifMatch, 'update', () => data);
}

/** DELETE avatar: If-Match optional (spec), a stale one is still refused. */
export const deleteAgentAvatar = (call: CallContext, id: string, ifMatch: string | null | undefined) =>
  changeHead(AGENTS, call, id, ifMatch, 'delete_avatar', () => ({ imageUrl: null, imageAssetId: null }), { ifMatchRequired: false });

export async function publishAgentRevision(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  input: { config?: unknown; note?: unknown; makeDefault?: boolean | null },
) {
  requirePermission(call.actor, 'write');
  const config = normalizeAgentConfig(input.config);
  await checkConfigReferences(call, config);
  return publishRevision(AGENTS, call, id, ifMatch, { content: config, note: input.note, makeDefault: input.makeDefault });
}

/** For runs: the head if it may start new runs (archived → failed_precondition). */
export async function agentForNewRun(call: CallContext, id: string) {
  const head = await getHead(AGENTS, call, id);
  assertAgentTakesRuns(head);
  if (!head.defaultRevisionId) throw notFound('agent revision');
  return head;
}

/**
 * The revision a new run of `agent` uses — the one asked for, or the agent's default — with its
 * configuration and the run's overrides applied. A revision of another agent or workspace is not found.
 */
export async function revisionForNewRun(
  call: CallContext,
  agent: { id: string; defaultRevisionId: string | null },
  revisionId: string | null | undefined,
  overrides: Record<string, unknown> | null | undefined,
) {
  const id = revisionId ?? agent.defaultRevisionId!;
  const revision = await call.db.agentRevision.findUnique({ where: { id } });
  if (!revision || revision.agentId !== agent.id || revision.workspaceId !== call.actor.workspaceId) throw notFound('agent revision', id);
  // A revision's configuration and the run's overrides were each checked against the agent
  // configuration schema (normalizeAgentConfig, normalizeRunOptions): together they are one.
  return {
    revision,
    effective: applyOverrides(storedAgentConfig(revision.config), overrides ?? undefined),
  };
}

/** An archived agent refuses new runs. */
export function assertAgentTakesRuns(agent: { archivedAt: Date | null } | { archived: boolean }) {
  if ('archived' in agent ? agent.archived : agent.archivedAt)
    throw new AppError('failed_precondition', 'the agent is archived; new runs are refused');
}

/** The composer, as a built-in agent. */
const COMPOSER: BuiltinAgent = { presetKind: COMPOSER_PRESET, versionLabel: COMPOSER_VERSION_LABEL, definition: COMPOSER_DEFINITION };

/**
 * Creates the workspace's composer agent, or brings it up to date with the shipped definition.
 * It keeps its current model while that stays usable; otherwise it takes the first usable model by
 * key. No usable model → model_required. Concurrent calls serialise on a per-workspace lock.
 */
export async function prepareComposer(call: CallContext) {
  requirePermission(call.actor, 'write');
  const outcome = await inTransaction(call, async (call) => {
    await call.db.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`composer:${call.actor.workspaceId}`}))`;
    const models = await usableModelKeys(call);
    const existing = await findBuiltinAgent(call, COMPOSER);
    if (!existing) {
      if (models.length === 0)
        throw new AppError('model_required', 'the workspace has no enabled model the composer can use; add a model first');
      const head = await insertBuiltinAgent(
        call,
        COMPOSER,
        normalizeAgentConfig(composerConfig(models[0]!)),
        `composer definition ${COMPOSER_DEFINITION.version}`,
      );
      return { head, publish: null };
    }
    const { model } = await builtinAgentModel(call, existing, models);
    if (!model) throw new AppError('model_required', 'the workspace has no enabled model the composer can use; add a model first');
    return { head: existing, publish: normalizeAgentConfig(composerConfig(model)) };
  });
  if (!outcome.publish) return outcome.head;
  let head = outcome.head;
  if (head.archivedAt) head = await unarchiveHead(AGENTS, call, head.id, '*');
  // A composer of an older definition: its label moves as a PATCH would (a new version, an audit row).
  if (storedLabels(head.labels, 'agents.labels')[COMPOSER_VERSION_LABEL] !== String(COMPOSER_DEFINITION.version))
    head = await changeHead(AGENTS, call, head.id, '*', 'update', (current) => ({
      labels: { ...storedLabels(current.labels, 'agents.labels'), [COMPOSER_VERSION_LABEL]: String(COMPOSER_DEFINITION.version) },
    }));
  const published = await publishRevision(AGENTS, call, head.id, '*', {
    content: outcome.publish,
    note: `composer definition ${COMPOSER_DEFINITION.version}`,
    makeDefault: true,
  });
  return published.head;
}

/** Stores an uploaded avatar image as an asset and points the head's image_url at it. */
export async function uploadAgentAvatar(
  call: CallContext,
  id: string,
  ifMatch: string | null | undefined,
  input: { mediaType: string; contentBase64: string },
) {
  requirePermission(call.actor, 'write');
  const bytes = decodeImage(input.mediaType, input.contentBase64);
  return changeHead(
    AGENTS,
    call,
    id,
    ifMatch,
    'upload_avatar',
    async (head, call) => {
      const asset = await insertAsset(call, {
        name: `avatar of ${head.id}`,
        mediaType: input.mediaType.split(';')[0]!.trim().toLowerCase(),
        content: bytes,
      });
      return { imageUrl: assetContentPath(asset.id), imageAssetId: asset.id };
    },
    { ifMatchRequired: false },
  );
}

/**
 * A revision's stored configuration (`agent_revisions.config`), read as the agent configuration
 * document: it was validated against the same schema when it was published (normalizeAgentConfig).
 */
export const storedAgentConfig = (config: unknown): AgentConfig => readDocument(agentConfigSchema, config, 'agent_revisions.config');

/** A built-in agent of every workspace (the composer, the analyst): its preset, its definition and the label carrying the definition's version. */
export interface BuiltinAgent {
  presetKind: string;
  versionLabel: string;
  definition: { name: string; description: string; version: number };
}

/** The workspace's built-in agent of a preset (the oldest, should there be two), or null. */
export const findBuiltinAgent = (call: CallContext, builtin: BuiltinAgent) =>
  call.db.agent.findFirst({
    where: { workspaceId: call.actor.workspaceId, source: 'builtin', presetKind: builtin.presetKind },
    orderBy: { id: 'asc' },
  });

/** Creates the workspace's built-in agent with its first revision (`config`), labelled with its definition's version. */
export async function insertBuiltinAgent(call: CallContext, builtin: BuiltinAgent, config: AgentConfig, note: string) {
  const { head } = await insertHeadWithFirstRevision(
    AGENTS,
    call,
    {
      id: newId('agent'),
      organizationId: call.actor.organizationId,
      name: builtin.definition.name,
      description: builtin.definition.description,
      labels: { [builtin.versionLabel]: String(builtin.definition.version) },
      source: 'builtin',
      presetKind: builtin.presetKind,
    },
    config,
    note,
  );
  return head;
}

/**
 * A built-in agent's default revision (null when it has none) and the model it keeps: its
 * revision's, while the workspace can still use it (`models`, by key), else the first of `models`
 * (undefined when there is none).
 */
export async function builtinAgentModel(call: CallContext, head: Pick<Agent, 'defaultRevisionId'>, models: readonly string[]) {
  const current = head.defaultRevisionId ? await call.db.agentRevision.findUnique({ where: { id: head.defaultRevisionId } }) : null;
  const currentModel = current ? storedAgentConfig(current.config).model : undefined;
  return { current, currentModel, model: currentModel && models.includes(currentModel) ? currentModel : models[0] };
}

/** A revision's stored configuration, by id (a run's pinned revision: the engine caches it, revisions never change). */
export async function agentRevisionConfig(db: Deps['db'], revisionId: string): Promise<AgentConfig> {
  const revision = await db.agentRevision.findUniqueOrThrow({ where: { id: revisionId }, select: { config: true } });
  return storedAgentConfig(revision.config);
}
