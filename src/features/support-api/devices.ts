// Paired devices of a workspace: listing, info, revocation (credential refused at once, live
// connection closed) and directory listings relayed over the device's websocket.
import type { Device } from '../../generated/prisma/client.js';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { hashToken, TOKEN_PREFIX } from '../../lib/crypto.js';
import { looksLikeId } from '../../lib/ids.js';
import { recordAudit } from '../audit/audit.js';
import type { Deps } from '../../services/deps.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { supportRuntime } from './runtime.js';
import { inCallersWorkspace } from '../../services/workspace-rows.js';

export function deviceSummary(deps: Deps, row: Device) {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    status: row.status,
    online: row.status === 'active' && supportRuntime(deps).devices.has(row.id),
    lastSeenAt: row.lastSeenAt,
    createdAt: row.createdAt,
  };
}

export function deviceInfo(deps: Deps, row: Device) {
  return {
    ...deviceSummary(deps, row),
    workspaceId: row.workspaceId,
    approvedById: row.approvedById,
    publicKey: row.publicKey,
    revokedAt: row.revokedAt,
    updatedAt: row.updatedAt,
  };
}

async function findDevice(call: CallContext, id: string): Promise<Device> {
  if (!looksLikeId('device', id)) throw notFound('device', id);
  return inCallersWorkspace(call, 'device', id, await call.db.device.findUnique({ where: { id } }));
}

export async function listDevices(call: CallContext) {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const rows = await call.db.device.findMany({ where: { workspaceId: actor.workspaceId }, orderBy: { id: 'asc' }, take: 1000 });
  return rows.map((row) => deviceSummary(deps, row));
}

export async function getDevice(call: CallContext, id: string) {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  return deviceInfo(deps, await findDevice(call, id));
}

/** Revokes the device: its credential stops working at once and its live connection is closed. Repeating it changes nothing. */
export async function revokeDevice(call: CallContext, id: string) {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const row = await findDevice(call, id);
  const result = await inTransaction(call, async (bound) => {
    const tx = bound.db;
    const current = await tx.device.findUniqueOrThrow({ where: { id: row.id } });
    if (current.status === 'revoked') return current;
    const now = new Date();
    const updated = await tx.device.update({ where: { id: row.id }, data: { status: 'revoked', revokedAt: now, updatedAt: now } });
    await recordAudit(bound, {
      action: 'revoke',
      resourceKind: 'device',
      resourceId: row.id,
      changes: { status: { from: current.status, to: 'revoked' } },
    });
    return updated;
  });
  supportRuntime(deps).devices.get(row.id)?.close(4401, 'device revoked');
  return deviceSummary(deps, result);
}

/** The device named by a device credential (wsd_…), if it is active; null otherwise. */
export async function authenticateDevice(deps: Deps, authorization: string | null | undefined): Promise<Device | null> {
  const match = authorization ? /^Bearer[ \t]+([!-~]+)[ \t]*$/i.exec(authorization) : null;
  const token = match?.[1];
  if (!token || !token.startsWith(TOKEN_PREFIX.device)) return null;
  const row = await deps.db.device.findUnique({ where: { credentialHash: hashToken(token) } });
  return row && row.status === 'active' && !row.revokedAt ? row : null;
}

export async function markDeviceSeen(deps: Deps, deviceId: string): Promise<void> {
  await deps.db.device.updateMany({ where: { id: deviceId, status: 'active' }, data: { lastSeenAt: new Date() } });
}

export interface DirectoryListing {
  deviceId: string;
  /** The listed directory; null when the device's roots were listed. */
  path: string | null;
  entries: { name: string; path: string }[];
  truncated: boolean;
}

/**
 * Lists directories on the device (no path: its roots). The request is relayed over the device's
 * websocket; the daemon refuses paths outside its roots.
 */
export async function listDeviceDirectories(call: CallContext, id: string, path: string | null | undefined): Promise<DirectoryListing> {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const row = await findDevice(call, id);
  if (path !== undefined && path !== null) {
    if (path.length === 0 || path.length > 4096 || path.includes('\u0000'))
      throw invalidArgument('path must be 1 to 4096 characters', 'path');
  }
  if (row.status !== 'active') throw new AppError('failed_precondition', 'the device is revoked', { status: row.status });
  const connection = supportRuntime(deps).devices.get(row.id);
  if (!connection) {
    throw new AppError('device_offline', 'the device is not connected; start its daemon (npm run envd -- serve) and try again', {
      device_id: row.id,
      last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    });
  }
  const answer = (await connection.request('list_directories', { path: path ?? null })) as {
    path?: string | null;
    entries?: { name: string; path: string }[];
    truncated?: boolean;
  };
  return {
    deviceId: row.id,
    path: answer.path ?? null,
    entries: Array.isArray(answer.entries) ? answer.entries : [],
    truncated: Boolean(answer.truncated),
  };
}
