// Environments: instances made from an environment template by its provider's driver
// (src/providers/environment-driver.ts). Status: provisioning → ready (or failed); ready → stopped;
// stopped → ready (start, for types whose driver can restart an instance); any → destroyed (DELETE,
// the row stays readable). The row remembers the driver's instance id and the working directory.
// Creating one needs the template and its provider enabled; stopping, starting and destroying work
// whatever the provider's or template's state (a disabled provider's existing environments are
// still maintained). `openEnvironment` hands callers that work inside an environment (run mounts,
// the platform tools) the driver bound to the instance.
import { Prisma, type Environment, type Provider } from '../../generated/prisma/client.js';
import { AppError, invalidArgument, quoteInput } from '../../lib/errors.js';
import { deviceBridgeOf } from '../../providers/device-bridge.js';
import { newId } from '../../lib/ids.js';
import { JsonObjectDocument, readDocument } from '../../lib/json-documents.js';
import { validateLabels } from '../../lib/labels.js';
import { validateName } from '../../lib/text-fields.js';
import {
  EnvironmentDriverError,
  providerType,
  type EnvironmentDriver,
  type EnvironmentDriverContext,
  type EnvironmentInstance,
  type ExecRequest,
  type ProviderType,
} from '../../providers/index.js';
import { recordCreation } from '../audit/audit.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { environmentProvider, getEnvironmentTemplate, requireOffered } from './environment-templates.js';
import { outbound, providerConfig } from '../models/providers.js';
import { requirePermission } from '../access/permissions.js';
import { changeVersioned } from '../../services/versioned.js';
import { listQuery, newestFirst } from '../../services/list-query.js';
import { idsInWorkspace, type NodeRowsLoader } from '../../services/nodes.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

export const ENVIRONMENT_STATUSES = ['provisioning', 'ready', 'stopped', 'failed', 'destroyed'] as const;
export type EnvironmentStatus = (typeof ENVIRONMENT_STATUSES)[number];

export async function getEnvironment(call: CallContext, id: string): Promise<Environment> {
  const { db, actor } = call;
  requirePermission(actor, 'read');
  return inCallersWorkspace(call, 'environment', id, await db.environment.findUnique({ where: { id } }));
}

export interface CreateEnvironmentInput {
  templateId?: string | null;
  name?: unknown;
  labels?: unknown;
}

/** The driver of a provider's type, or a clear refusal for types that are described but cannot make instances here. */
function driverOf(type: ProviderType, field: string): EnvironmentDriver {
  const driver = type.environment?.driver;
  if (!driver)
    throw new AppError('failed_precondition', `the environment type ${type.type} cannot provision environments on this service yet`, {
      field,
    });
  return driver;
}

/** An environment's config, copied from its template (checked against the type's schema there). */
const environmentConfig = (row: Pick<Environment, 'config'>): JsonObjectDocument =>
  readDocument(JsonObjectDocument, row.config, 'environments.config');

function driverContext(call: CallContext, provider: Provider, row: Pick<Environment, 'config'>): EnvironmentDriverContext {
  return {
    providerConfig: providerConfig(provider),
    credential: provider.credentialCiphertext
      ? call.deps.secrets.decryptJson<Record<string, unknown>>(provider.credentialCiphertext)
      : null,
    environmentConfig: environmentConfig(row),
    dataDir: call.deps.config.dataDir,
    ...outbound(call.deps),
    workspaceId: provider.workspaceId,
    devices: deviceBridgeOf(call.deps),
  };
}

/** A driver problem as the caller's error (a path outside the instance is their input; a vanished instance is a state). */
export function driverProblem(error: unknown, field?: string): never {
  if (error instanceof EnvironmentDriverError) {
    if (error.reason === 'not_found') throw new AppError('not_found', error.message, field ? { field } : undefined);
    if (error.reason === 'unavailable') throw new AppError('failed_precondition', error.message);
    throw invalidArgument(error.message, field ?? 'path');
  }
  throw error;
}

/**
 * Makes an environment from a template and provisions it: the row is written `provisioning` (and
 * audited) first, so an instance whose provisioning fails or never finishes is still visible and
 * can be destroyed; then the driver provisions and the row becomes `ready` (or `failed` with the
 * driver's message).
 */
export async function createEnvironment(call: CallContext, input: CreateEnvironmentInput): Promise<Environment> {
  const { actor } = call;
  requirePermission(actor, 'write');
  if (!input.templateId) throw invalidArgument('template_id is required', 'template_id');
  const templateId = input.templateId;
  const labels = input.labels === undefined || input.labels === null ? {} : validateLabels(input.labels);
  const created = await inTransaction(call, async (bound) => {
    const template = await getEnvironmentTemplate(bound, templateId).catch((error: unknown) => {
      if ((error as AppError).code === 'not_found')
        throw new AppError('not_found', `environment template ${quoteInput(templateId)} not found`, { field: 'template_id' });
      throw error;
    });
    if (!template.enabled) throw new AppError('disabled', `environment template ${template.id} is disabled`, { field: 'template_id' });
    const { provider, type } = await environmentProvider(bound, template.providerId, 'template_id');
    requireOffered(bound, type, 'template_id');
    if (!provider.enabled) throw new AppError('disabled', `environment provider ${provider.id} is disabled`, { field: 'template_id' });
    driverOf(type, 'template_id');
    const name = input.name === undefined || input.name === null ? template.name : validateName(input.name);
    const row = await bound.db.environment.create({
      data: {
        id: newId('environment'),
        workspaceId: actor.workspaceId,
        templateId: template.id,
        providerId: provider.id,
        name,
        status: 'provisioning',
        config: template.config as Prisma.InputJsonValue,
        labels,
        createdById: actor.principalId,
        updatedById: actor.principalId,
      },
    });
    await recordCreation(bound, 'environment', row.id, {
      name: { from: null, to: name },
      template_id: { from: null, to: template.id },
      provider_id: { from: null, to: provider.id },
    });
    return { row, provider, type };
  });
  return provision(call, created.row, created.provider, created.type);
}

async function provision(call: CallContext, row: Environment, provider: Provider, type: ProviderType): Promise<Environment> {
  const driver = driverOf(type, 'template_id');
  let outcome: Prisma.EnvironmentUpdateManyMutationInput;
  try {
    const instance = await driver.provision(driverContext(call, provider, row), {
      environmentId: row.id,
      config: environmentConfig(row),
    });
    outcome = { status: 'ready', externalId: instance.instanceId, workingDirectory: instance.workingDirectory };
  } catch (error) {
    call.logger.warn({ err: error, environmentId: row.id }, 'environment provisioning failed');
    outcome = { status: 'failed', failureMessage: (error as Error).message.slice(0, 1000) };
  }
  // Only a row still provisioning moves on: a DELETE that came first wins (its destroy removed what
  // the driver made, or will find nothing).
  const moved = await call.db.environment.updateMany({
    where: { id: row.id, status: 'provisioning' },
    data: { ...outcome, version: { increment: 1 }, updatedAt: new Date() },
  });
  const current = await call.db.environment.findUniqueOrThrow({ where: { id: row.id } });
  if (moved.count === 0 && current.status === 'destroyed' && outcome.status === 'ready')
    await driver.destroy(driverContext(call, provider, row), instanceOf(current, outcome)).catch(() => undefined);
  return current;
}

function instanceOf(row: Environment, fallback?: Prisma.EnvironmentUpdateManyMutationInput): EnvironmentInstance {
  return {
    instanceId: row.externalId ?? (fallback?.externalId as string | undefined) ?? row.id,
    workingDirectory: row.workingDirectory ?? (fallback?.workingDirectory as string | undefined) ?? '',
  };
}

export async function listEnvironments(
  call: CallContext,
  args: {
    label?: readonly string[] | null;
    status?: string | null;
    templateId?: string | null;
    limit?: number | null;
    cursor?: string | null;
  },
) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const query = listQuery(newestFirst('environments'), call, args);
  if (args.status != null && !(ENVIRONMENT_STATUSES as readonly string[]).includes(args.status))
    throw invalidArgument(`status must be one of ${ENVIRONMENT_STATUSES.join(', ')}`, 'status');
  const rows = await call.db.environment.findMany(
    query.findArgs({
      ...(args.status != null ? { status: args.status } : {}),
      ...(args.templateId ? { templateId: args.templateId } : {}),
    }),
  );
  return query.page(rows);
}

/** The provider and type an existing environment was made by (enabled or not: maintenance always works). */
async function maintainer(call: CallContext, row: Environment) {
  const provider = await call.db.provider.findUniqueOrThrow({ where: { id: row.providerId } });
  const type = providerType('environment', provider.type);
  return { provider, driver: type?.environment?.driver ?? null };
}

/**
 * Records what the driver did to an environment's instance (stopped, started, destroyed): the row's
 * new state with a new version and an audit row. No If-Match: maintenance is not an edit of the
 * environment's description, so a client never needs the current version to ask for it.
 */
function recordMaintenance(call: CallContext, row: Environment, action: 'stop' | 'start' | 'delete', data: Prisma.EnvironmentUpdateInput) {
  return inTransaction(call, async (bound) =>
    changeVersioned({
      call: bound,
      delegate: bound.db.environment,
      row,
      ifMatch: null,
      ifMatchRequired: false,
      resourceKind: 'environment',
      action,
      data,
    }),
  );
}

/** Ends what runs in a ready environment; its files stay. A stopped, failed or destroyed one is left as it is. */
export async function stopEnvironment(call: CallContext, id: string): Promise<Environment> {
  requirePermission(call.actor, 'write');
  const row = await getEnvironment(call, id);
  if (row.status !== 'ready') return row;
  const { provider, driver } = await maintainer(call, row);
  // A type that says it cannot stop (pods) is refused here, before its driver is reached.
  if (providerType('environment', provider.type)?.environment?.stop === false)
    throw new AppError('failed_precondition', `environments of type ${provider.type} cannot be stopped: destroy the environment instead`);
  if (driver && row.externalId)
    await driver.stop(driverContext(call, provider, row), instanceOf(row)).catch((error: unknown) => driverProblem(error));
  return recordMaintenance(call, row, 'stop', { status: 'stopped' });
}

/**
 * Starts a stopped environment again: the driver restarts the instance with its files as they were,
 * and the environment is `ready` (audited `start`). Starting a ready one changes nothing. Like stop
 * it is maintenance, so a disabled provider or template does not refuse it; a type this deployment
 * does not offer (any more) does, since a started environment is open to new work again. Any other
 * status, and a type that cannot restart instances, answer `failed_precondition`.
 */
export async function startEnvironment(call: CallContext, id: string): Promise<Environment> {
  requirePermission(call.actor, 'write');
  const row = await getEnvironment(call, id);
  if (row.status === 'ready') return row;
  if (row.status !== 'stopped')
    throw new AppError('failed_precondition', `environment ${row.id} is ${row.status}: only a stopped environment can be started`, {
      status: row.status,
    });
  const { provider, driver } = await maintainer(call, row);
  const type = providerType('environment', provider.type);
  if (!type || !driver) throw new AppError('failed_precondition', `the environment type of ${row.id} is not installed`);
  requireOffered(call, type, 'environment_id');
  if (!driver.start)
    throw new AppError('failed_precondition', `the environment type ${provider.type} cannot start a stopped environment again`);
  const instance = await driver.start(driverContext(call, provider, row), instanceOf(row)).catch((error: unknown) => driverProblem(error));
  return recordMaintenance(call, row, 'start', {
    status: 'ready',
    externalId: instance.instanceId,
    workingDirectory: instance.workingDirectory,
  });
}

/** DELETE: destroys the instance (its files too) and marks the row `destroyed`; destroying a destroyed environment changes nothing. */
export async function destroyEnvironment(call: CallContext, id: string): Promise<Environment> {
  requirePermission(call.actor, 'write');
  const row = await getEnvironment(call, id);
  if (row.status === 'destroyed') return row;
  const { provider, driver } = await maintainer(call, row);
  if (driver) await driver.destroy(driverContext(call, provider, row), instanceOf(row)).catch((error: unknown) => driverProblem(error));
  return recordMaintenance(call, row, 'delete', { status: 'destroyed', deletedAt: new Date() });
}

/** The runs that mount each environment (newest first, at most `perEnvironment` each), in one statement. */
export async function runIdsUsing(
  call: CallContext,
  environmentIds: readonly string[],
  perEnvironment = 50,
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>(environmentIds.map((id) => [id, []]));
  if (!environmentIds.length) return found;
  // Per environment, the newest runs whose mounts contain it, found through the partial GIN index on
  // runs.environment_mounts (the condition repeats the index's predicate). Not a LATERAL … ORDER BY id
  // LIMIT: its estimate makes the planner walk the primary key backwards through every run instead
  // (measured: 80 ms against 0.25 ms at 200k runs).
  const rows = await call.db.$queryRaw<{ environment_id: string; run_id: string }[]>(Prisma.sql`
    SELECT environment_id, run_id FROM (
      SELECT e.id AS environment_id, runs.id AS run_id,
        row_number() OVER (PARTITION BY e.id ORDER BY runs.id DESC) AS n
      FROM unnest(${[...environmentIds]}::text[]) AS e(id)
      JOIN runs ON runs.workspace_id = ${call.actor.workspaceId}
        AND jsonb_array_length(runs.environment_mounts) > 0
        AND runs.environment_mounts @> jsonb_build_array(jsonb_build_object('environment_id', e.id))
    ) used
    WHERE n <= ${perEnvironment}
    ORDER BY environment_id, run_id DESC`);
  for (const row of rows) {
    const list = found.get(row.environment_id);
    if (list && list.length < perEnvironment && !list.includes(row.run_id)) list.push(row.run_id);
  }
  return found;
}

/** An environment's driver bound to its instance: what run mounts and the platform tools work through. */
export interface OpenEnvironment {
  environment: Environment;
  exec(request: ExecRequest): ReturnType<EnvironmentDriver['exec']>;
  readFile(path: string, options: { maxBytes: number }): ReturnType<EnvironmentDriver['readFile']>;
  writeFile(path: string, content: Buffer | string): ReturnType<EnvironmentDriver['writeFile']>;
  listFiles(path: string, options: { depth: number; limit: number }): ReturnType<EnvironmentDriver['listFiles']>;
}

/**
 * Opens a ready environment of the caller's workspace for work inside it. Work in an existing
 * environment is maintenance, not new use: it goes on while the provider or template is disabled.
 * Driver problems come back as the caller's errors (`driverProblem`).
 */
export async function openEnvironment(call: CallContext, id: string): Promise<OpenEnvironment> {
  const row = await getEnvironment(call, id);
  if (row.status !== 'ready')
    throw new AppError('failed_precondition', `environment ${row.id} is ${row.status}, not ready`, { status: row.status });
  const { provider, driver } = await maintainer(call, row);
  if (!driver) throw new AppError('failed_precondition', `the environment type of ${row.id} is not installed`);
  const ctx = driverContext(call, provider, row);
  const instance = instanceOf(row);
  const guarded = <T>(work: () => Promise<T>) => work().catch((error: unknown) => driverProblem(error));
  return {
    environment: row,
    exec: (request) => guarded(() => driver.exec(ctx, instance, request)),
    readFile: (path, options) => guarded(() => driver.readFile(ctx, instance, path, options)),
    writeFile: (path, content) => guarded(() => driver.writeFile(ctx, instance, path, content)),
    listFiles: (path, options) => guarded(() => driver.listFiles(ctx, instance, path, options)),
  };
}

const MAX_RUN_MOUNTS = 8;
const MOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** One mount as a caller asks for it (`name` filled in with its default). */
export interface RunMountRequest {
  environment_id: string;
  name: string;
  working_directory?: unknown;
}

/**
 * The shape of a run's `environment_mounts` as the caller asked for them (also the
 * `EnvironmentMounts` GraphQL scalar's check): a list of at most 8 objects, each naming an
 * environment, with a unique mount name (default: `default` for the first, else the environment's id).
 */
export function checkRunMountRequests(value: unknown, field = 'environment_mounts'): RunMountRequest[] {
  if (!Array.isArray(value)) throw invalidArgument(`${field} must be a list`, field);
  if (value.length > MAX_RUN_MOUNTS) throw invalidArgument(`${field} has at most ${MAX_RUN_MOUNTS} mounts`, field);
  const requests: RunMountRequest[] = [];
  for (const [index, raw] of value.entries()) {
    const at = `${field}[${index}]`;
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalidArgument(`${at} must be an object`, at);
    const { environment_id: environmentId, name, working_directory: workingDirectory, ...rest } = raw as Record<string, unknown>;
    const unknownKey = Object.keys(rest)[0];
    if (unknownKey) throw invalidArgument(`${at}.${unknownKey} is not a known field`, `${at}.${unknownKey}`);
    if (typeof environmentId !== 'string' || !environmentId)
      throw invalidArgument(`${at}.environment_id is required`, `${at}.environment_id`);
    const mountName = name ?? (index === 0 ? 'default' : environmentId);
    if (typeof mountName !== 'string' || !MOUNT_NAME.test(mountName))
      throw invalidArgument(`${at}.name must be 1–64 of a-z, 0-9, _ and - (starting with a letter or digit)`, `${at}.name`);
    if (requests.some((m) => m.name === mountName)) throw invalidArgument(`${at}.name ${mountName} is mounted twice`, `${at}.name`);
    requests.push({
      environment_id: environmentId,
      name: mountName,
      ...(workingDirectory === undefined ? {} : { working_directory: workingDirectory }),
    });
  }
  return requests;
}

/**
 * A run's `environment_mounts` as the caller asked for them at the start (checkRunMountRequests): each
 * an environment of the caller's workspace that is `ready` (a stopped, failed or destroyed one cannot
 * be worked in), and a working directory inside the environment (a relative path under its own;
 * default its own).
 */
export async function resolveRunMounts(call: CallContext, value: unknown, field = 'environment_mounts'): Promise<EnvironmentMountView[]> {
  const mounts: EnvironmentMountView[] = [];
  for (const [index, request] of checkRunMountRequests(value, field).entries()) {
    const at = `${field}[${index}]`;
    const environment = await call.db.environment.findUnique({ where: { id: request.environment_id } });
    if (!environment || environment.workspaceId !== call.actor.workspaceId)
      throw new AppError('not_found', `environment ${quoteInput(request.environment_id)} not found`, { field: `${at}.environment_id` });
    if (environment.status !== 'ready' || !environment.workingDirectory)
      throw new AppError('failed_precondition', `environment ${environment.id} is ${environment.status}, not ready`, {
        field: `${at}.environment_id`,
      });
    mounts.push({
      environment_id: environment.id,
      name: request.name,
      working_directory: mountDirectory(environment.workingDirectory, request.working_directory, at),
    });
  }
  return mounts;
}

/** The mount's working directory: the environment's, or a relative path under it. */
function mountDirectory(base: string, requested: unknown, at: string): string {
  if (requested === undefined || requested === null || requested === '') return base;
  if (typeof requested !== 'string' || requested.startsWith('/') || requested.split(/[\\/]/).includes('..') || requested.length > 1024)
    throw invalidArgument(`${at}.working_directory must be a relative path inside the environment`, `${at}.working_directory`);
  return `${base.replace(/\/+$/, '')}/${requested.replace(/^\.\/+/, '').replace(/\/+$/, '')}`;
}

/** One element of a run's `environment_mounts`. */
export interface EnvironmentMountView {
  environment_id: string;
  name: string;
  working_directory: string | null;
}

/** Environments by id for `node(id)` (src/services/nodes.ts). */
export const loadEnvironments: NodeRowsLoader<Environment> = (call, ids) =>
  call.db.environment.findMany({ where: idsInWorkspace(call, ids) });
