// Operator actions (CLI and first-start bootstrap): workspaces, API keys, users.
// They run with the service's own authority, not a caller's, and are audited as `system`.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { hashPassword, hashToken, newToken, TOKEN_PREFIX } from '../../lib/crypto.js';
import { invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatRateLimit, parseRateLimit } from '../../lib/rate-limit-policy.js';
import type { Prisma } from '../../db.js';
import { recordAudit } from '../audit/audit.js';
import { announceCredentialChange, forgetCredentials } from './credential-cache.js';
import { PERMISSIONS, ROLES, SYSTEM_PRINCIPAL, type Deps, type Permission, type Role } from '../../services/deps.js';

type Tx = Prisma.TransactionClient;

/** The audit scope of an operator command: nobody's request (no request id), principal `system`. */
const asOperator = (tx: Tx) => ({ db: tx, actor: null, requestId: null });

export function parsePermissions(value: string | readonly string[]): Permission[] {
  const list = (typeof value === 'string' ? value.split(',') : [...value]).map((item) => item.trim()).filter(Boolean);
  if (list.length === 0) throw invalidArgument('at least one permission is required', 'permissions');
  for (const item of list) {
    if (!(PERMISSIONS as readonly string[]).includes(item))
      throw invalidArgument(`unknown permission ${quoteInput(item)}; use ${PERMISSIONS.join(', ')}`, 'permissions');
  }
  return [...new Set(list)] as Permission[];
}

/**
 * A key's own rate limit as the operator wrote it: `"600/60s"` (also `m`, `h`), `"0"` for none, or
 * `"default"` (stored as null: the service's RATE_LIMIT_PER_KEY). Answers the canonical stored form.
 */
export function parseKeyRateLimit(value: string): string | null {
  if (value.trim() === 'default') return null;
  const policy = parseRateLimit(value);
  if ('problem' in policy) throw invalidArgument(`${policy.problem}; or "default"`, 'rate_limit');
  return formatRateLimit(policy);
}

async function insertApiKey(
  tx: Tx,
  workspaceId: string,
  permissions: Permission[],
  name: string,
  token?: string,
  rateLimit?: string | null,
) {
  const secret = token ?? newToken(TOKEN_PREFIX.apiKey);
  const key = await tx.apiKey.create({
    data: {
      id: newId('apiKey'),
      workspaceId,
      name,
      permissions,
      secretHash: hashToken(secret),
      hint: secret.slice(-4),
      createdById: SYSTEM_PRINCIPAL,
      rateLimit: rateLimit ?? null,
    },
  });
  await recordAudit(asOperator(tx), {
    workspaceId,
    principalId: SYSTEM_PRINCIPAL,
    action: 'create',
    resourceKind: 'api_key',
    resourceId: key.id,
    changes: {
      permissions: { from: null, to: permissions },
      name: { from: null, to: name },
      ...(key.rateLimit !== null ? { rate_limit: { from: null, to: key.rateLimit } } : {}),
    },
  });
  return { id: key.id, token: secret, permissions, workspaceId, rateLimit: key.rateLimit };
}

async function findOrCreateOrganization(tx: Tx, nameOrId: string) {
  const existing = await tx.organization.findFirst({ where: { OR: [{ id: nameOrId }, { name: nameOrId }] }, orderBy: { id: 'asc' } });
  return existing ?? tx.organization.create({ data: { id: newId('organization'), name: nameOrId } });
}

/** A workspace in `organization` with its audit row and an all-permission API key (one transaction's part). */
async function insertWorkspace(tx: Tx, organizationId: string, name: string, keyName: string, apiKeyToken?: string) {
  const workspace = await tx.workspace.create({
    data: { id: newId('workspace'), organizationId, name, createdById: SYSTEM_PRINCIPAL, updatedById: SYSTEM_PRINCIPAL },
  });
  await recordAudit(asOperator(tx), {
    workspaceId: workspace.id,
    principalId: SYSTEM_PRINCIPAL,
    action: 'create',
    resourceKind: 'workspace',
    resourceId: workspace.id,
    version: 1,
    changes: { name: { from: null, to: name } },
  });
  const apiKey = await insertApiKey(tx, workspace.id, [...PERMISSIONS], keyName, apiKeyToken);
  return { workspace, apiKey };
}

export async function createWorkspace(deps: Deps, input: { name: string; organization?: string; apiKeyToken?: string }) {
  if (!input.name.trim()) throw invalidArgument('name is required', 'name');
  return deps.db.$transaction(async (tx) => {
    const organization = await findOrCreateOrganization(tx, input.organization?.trim() || 'default');
    const { workspace, apiKey } = await insertWorkspace(tx, organization.id, input.name, 'initial key', input.apiKeyToken);
    return { organization, workspace, apiKey };
  });
}

export async function createApiKey(
  deps: Deps,
  input: { workspaceId: string; permissions: string | string[]; name?: string; rateLimit?: string },
) {
  const permissions = parsePermissions(input.permissions);
  const rateLimit = input.rateLimit === undefined ? null : parseKeyRateLimit(input.rateLimit);
  return deps.db.$transaction(async (tx) => {
    const workspace = await tx.workspace.findUnique({ where: { id: input.workspaceId } });
    if (!workspace) throw notFound('workspace', input.workspaceId);
    return insertApiKey(tx, workspace.id, permissions, input.name ?? '', undefined, rateLimit);
  });
}

/**
 * Sets a key's own rate limit (`parseKeyRateLimit`), audited as an `update` with the change; setting
 * what it already has changes nothing and writes nothing. Every process forgets the key's cached
 * credential (which carries its policy), so the new limit holds from the next request on.
 */
export async function setApiKeyRateLimit(deps: Deps, id: string, value: string) {
  const rateLimit = parseKeyRateLimit(value);
  const result = await deps.db.$transaction(async (tx) => {
    const key = await tx.apiKey.findUnique({ where: { id } });
    if (!key) throw notFound('API key', id);
    if (key.rateLimit === rateLimit) return { id, rateLimit, changed: false };
    await tx.apiKey.update({ where: { id }, data: { rateLimit } });
    await recordAudit(asOperator(tx), {
      workspaceId: key.workspaceId,
      principalId: SYSTEM_PRINCIPAL,
      action: 'update',
      resourceKind: 'api_key',
      resourceId: id,
      changes: { rate_limit: { from: key.rateLimit, to: rateLimit } },
    });
    await announceCredentialChange(tx);
    return { id, rateLimit, changed: true };
  });
  if (result.changed) forgetCredentials(deps);
  return result;
}

export async function revokeApiKey(deps: Deps, id: string) {
  const result = await deps.db.$transaction(async (tx) => {
    const key = await tx.apiKey.findUnique({ where: { id } });
    if (!key) throw notFound('API key', id);
    if (key.revokedAt) return { id: key.id, revokedAt: key.revokedAt, changed: false };
    const revoked = await tx.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
    await recordAudit(asOperator(tx), {
      workspaceId: key.workspaceId,
      principalId: SYSTEM_PRINCIPAL,
      action: 'revoke',
      resourceKind: 'api_key',
      resourceId: id,
    });
    await announceCredentialChange(tx);
    return { id: revoked.id, revokedAt: revoked.revokedAt, changed: true };
  });
  forgetCredentials(deps);
  return result;
}

export async function createUser(deps: Deps, input: { email: string; password: string; workspaceId: string; role: string; name?: string }) {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw invalidArgument('email is not an email address', 'email');
  if (input.password.length < 8) throw invalidArgument('password must be at least 8 characters', 'password');
  if (!(input.role in ROLES)) throw invalidArgument(`role must be one of ${Object.keys(ROLES).join(', ')}`, 'role');
  const passwordHash = await hashPassword(input.password);
  return deps.db
    .$transaction(async (tx) => {
      const workspace = await tx.workspace.findUnique({ where: { id: input.workspaceId } });
      if (!workspace) throw notFound('workspace', input.workspaceId);
      let user = await tx.user.findUnique({ where: { email } });
      if (!user) {
        user = await tx.user.create({ data: { id: newId('user'), email, name: input.name ?? '', passwordHash } });
      } else {
        user = await tx.user.update({ where: { id: user.id }, data: { passwordHash, ...(input.name ? { name: input.name } : {}) } });
      }
      const existing = await tx.membership.findUnique({ where: { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } } });
      const membership = existing
        ? await tx.membership
            .update({ where: { id: existing.id }, data: { role: input.role as Role, updatedAt: new Date() } })
            .then(async (changed) => {
              await announceCredentialChange(tx);
              return changed;
            })
        : await tx.membership.create({ data: { id: newId('membership'), workspaceId: workspace.id, userId: user.id, role: input.role } });
      await recordAudit(asOperator(tx), {
        workspaceId: workspace.id,
        principalId: SYSTEM_PRINCIPAL,
        action: existing ? 'update' : 'create',
        resourceKind: 'membership',
        resourceId: membership.id,
        changes: { user_id: { from: null, to: user.id }, role: { from: existing?.role ?? null, to: input.role } },
      });
      return {
        user: { id: user.id, email: user.email, name: user.name },
        membership: { id: membership.id, workspaceId: workspace.id, role: membership.role },
      };
    })
    .finally(() => forgetCredentials(deps));
}

/**
 * First start on an empty database: organization and workspace `default` and an all-permission
 * API key, printed once and written to DATA_DIR/bootstrap-api-key (0600). An advisory lock keeps
 * two instances starting together from both bootstrapping.
 */
export async function bootstrapIfEmpty(deps: Deps): Promise<{ workspaceId: string; apiKey: string; keyFile: string } | null> {
  const result = await deps.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(72707370)`;
    if ((await tx.organization.count()) > 0) return null;
    const organization = await tx.organization.create({ data: { id: newId('organization'), name: 'default' } });
    const { workspace, apiKey: key } = await insertWorkspace(
      tx,
      organization.id,
      'default',
      'bootstrap key',
      deps.config.bootstrapApiKey ?? undefined,
    );
    return { workspaceId: workspace.id, apiKey: key.token };
  });
  if (!result) return null;
  mkdirSync(deps.config.dataDir, { recursive: true });
  const keyFile = join(deps.config.dataDir, 'bootstrap-api-key');
  writeFileSync(keyFile, `${result.apiKey}\n`, { mode: 0o600 });
  return { ...result, keyFile };
}
