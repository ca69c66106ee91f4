// Device pairing. A daemon asks to pair (open endpoint, rate-limited per client address) and gets a
// short user code plus a polling secret; a user of a workspace approves the pending challenge (the
// device is created in the user's workspace and its credential is handed to the daemon's next poll,
// once) or rejects it. Pairings expire after pairingTtlSeconds.
import { createHash, randomInt } from 'node:crypto';
import type { DevicePairing } from '../../generated/prisma/client.js';
import { AppError, invalidArgument, notFound } from '../../lib/errors.js';
import { hashToken, newToken, TOKEN_PREFIX } from '../../lib/crypto.js';
import { looksLikeId, newId } from '../../lib/ids.js';
import { recordAudit } from '../audit/audit.js';
import type { Actor, Deps } from '../../services/deps.js';
import { inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { deviceSummary } from './devices.js';
import { supportRuntime } from './runtime.js';
import { isUniqueViolation } from '../../lib/unique-conflict.js';

const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ23456789'; // no vowels (no words), no 0/O, 1/I
export const POLL_INTERVAL_SECONDS = 2;
const PAIRING_RETENTION_MS = 24 * 3600 * 1000;

export interface PairingRequestInput {
  deviceName?: string | null;
  platform?: string | null;
  publicKey?: string | null;
  workspaceId?: string | null;
}

function text(value: unknown, field: string, max: number, multiline = false): string {
  const name = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (typeof value !== 'string' || value.trim() === '') throw invalidArgument(`${name} is required`, field);
  if (value.length > max) throw invalidArgument(`${name} must be at most ${max} characters`, field);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if ((multiline ? /[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]/ : /[\x00-\x1f\x7f]/).test(value))
    throw invalidArgument(`${name} must not contain control characters`, field);
  return value.trim();
}

function userCode(): string {
  const pick = () => Array.from({ length: 4 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join('');
  return `${pick()}-${pick()}`;
}

export function publicKeyFingerprint(publicKey: string): string {
  return `SHA256:${createHash('sha256').update(publicKey).digest('base64').replace(/=+$/, '')}`;
}

function rateLimit(deps: Deps, clientAddress: string) {
  const attempts = supportRuntime(deps).pairingAttempts;
  const now = Date.now();
  const recent = (attempts.get(clientAddress) ?? []).filter((time) => now - time < 60_000);
  if (recent.length >= deps.config.pairingRateLimitPerMinute) {
    throw new AppError('rate_limited', 'too many pairing requests from this address; try again in a minute', {
      retry_after_seconds: Math.ceil((60_000 - (now - recent[0]!)) / 1000),
    });
  }
  recent.push(now);
  attempts.set(clientAddress, recent);
  if (attempts.size > 10_000) {
    for (const [address, times] of attempts) if (!times.some((time) => now - time < 60_000)) attempts.delete(address);
  }
}

/** POST /api/envd/pair: open, rate-limited. Nothing is audited yet: the pairing belongs to no workspace until approved. */
export async function requestPairing(call: CallContext<null>, input: PairingRequestInput, clientAddress: string) {
  const { deps } = call;
  const deviceName = text(input.deviceName, 'deviceName', 100);
  const platform = text(input.platform, 'platform', 64);
  const publicKey = text(input.publicKey, 'publicKey', 4096, true);
  let workspaceId: string | null = null;
  if (input.workspaceId !== undefined && input.workspaceId !== null) {
    if (!looksLikeId('workspace', input.workspaceId)) throw invalidArgument('workspace_id must be a workspace id (wsp_…)', 'workspaceId');
    workspaceId = input.workspaceId;
  }
  rateLimit(deps, clientAddress);
  // Answered and expired pairings are kept a day for the daemon's late polls and the UI, then dropped
  // (with any sealed credential nobody claimed; the device itself stays and can be revoked).
  await call.db.devicePairing.deleteMany({ where: { expiresAt: { lt: new Date(Date.now() - PAIRING_RETENTION_MS) } } });
  const pollSecret = newToken(TOKEN_PREFIX.pairingPoll);
  const expiresAt = new Date(Date.now() + deps.config.pairingTtlSeconds * 1000);
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await call.db.devicePairing.create({
        data: {
          id: newId('pairing'),
          userCode: userCode(),
          pollSecretHash: hashToken(pollSecret),
          deviceName,
          platform,
          publicKey,
          workspaceId,
          expiresAt,
        },
      });
      return { pairingId: row.id, userCode: row.userCode, pollSecret, expiresAt, pollIntervalSeconds: POLL_INTERVAL_SECONDS };
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error; // user code collision: draw again
    }
  }
}

function effectiveStatus(row: DevicePairing, now = new Date()): string {
  return row.status === 'pending' && row.expiresAt <= now ? 'expired' : row.status;
}

export function pairingChallenge(row: DevicePairing) {
  return {
    id: row.id,
    userCode: row.userCode,
    deviceName: row.deviceName,
    platform: row.platform,
    publicKeyFingerprint: publicKeyFingerprint(row.publicKey),
    status: effectiveStatus(row),
    workspaceId: row.workspaceId,
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
  };
}

/**
 * The daemon polls with its secret. approved → the device credential, exactly once (the pairing
 * becomes `claimed` and the sealed copy is erased); pending, rejected, expired, claimed otherwise.
 */
export async function pollPairing(call: CallContext<null>, pollSecret: string | null | undefined) {
  const { deps } = call;
  if (typeof pollSecret !== 'string' || !pollSecret.startsWith(TOKEN_PREFIX.pairingPoll))
    throw invalidArgument('poll_secret must be the wsp_… secret of a pairing', 'pollSecret');
  const row = await call.db.devicePairing.findUnique({ where: { pollSecretHash: hashToken(pollSecret) } });
  if (!row) throw notFound('pairing');
  const status = effectiveStatus(row);
  if (status === 'expired' && row.status === 'pending') {
    await call.db.devicePairing.updateMany({
      where: { id: row.id, status: 'pending' },
      data: { status: 'expired', updatedAt: new Date() },
    });
  }
  const base = {
    pairingId: row.id,
    status,
    expiresAt: row.expiresAt,
    deviceId: row.deviceId,
    workspaceId: row.workspaceId,
    deviceCredential: null as string | null,
  };
  if (status !== 'approved' || !row.credentialCiphertext) return base;
  const claimed = await call.db.devicePairing.updateMany({
    where: { id: row.id, status: 'approved' },
    data: { status: 'claimed', credentialCiphertext: null, updatedAt: new Date() },
  });
  if (claimed.count === 0) return { ...base, status: 'claimed' }; // a concurrent poll took it
  return { ...base, status: 'approved', deviceCredential: deps.secrets.decrypt(row.credentialCiphertext) };
}

/** Accepts a user code as typed (any case, with or without the hyphen) and returns it as stored. */
export function normalizeUserCode(value: string): string {
  const compact = value.toUpperCase().replace(/[^A-Z0-9]/g, '');
  if (compact.length !== 8) throw invalidArgument('user_code must be the 8-character code the daemon printed, e.g. BCDF-2345', 'userCode');
  return `${compact.slice(0, 4)}-${compact.slice(4)}`;
}

/**
 * Pending, unexpired challenges the caller's workspace may answer: those addressed to it, and an
 * unaddressed one only when the caller names its user code (which only the person in front of the
 * daemon knows), so no tenant can see or grab another's daemon.
 */
export async function listPairings(call: CallContext, userCode?: string | null) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const code = userCode === undefined || userCode === null ? null : normalizeUserCode(userCode);
  const rows = await call.db.devicePairing.findMany({
    where: {
      status: 'pending',
      expiresAt: { gt: new Date() },
      OR: [
        { workspaceId: actor.workspaceId, ...(code ? { userCode: code } : {}) },
        ...(code ? [{ workspaceId: null, userCode: code }] : []),
      ],
    },
    orderBy: { id: 'asc' },
    take: 200,
  });
  return rows.map(pairingChallenge);
}

async function answerable(tx: Pick<Deps['db'], 'devicePairing'>, actor: Actor, id: string): Promise<DevicePairing> {
  if (!looksLikeId('pairing', id)) throw notFound('pairing', id);
  const row = await tx.devicePairing.findUnique({ where: { id } });
  if (!row || (row.workspaceId !== null && row.workspaceId !== actor.workspaceId)) throw notFound('pairing', id);
  const status = effectiveStatus(row);
  // Answered pairings of other workspaces stay invisible; this workspace's own are a conflict.
  if (status !== 'pending') {
    if (row.workspaceId === null) throw notFound('pairing', id);
    throw new AppError('failed_precondition', `the pairing is ${status}; only pending pairings can be answered`, { status });
  }
  return row;
}

/** Approving creates the device in the caller's workspace and returns its summary. Needs `write`. */
export async function approvePairing(call: CallContext, id: string) {
  const { deps, actor } = call;
  requirePermission(actor, 'write');
  const credential = newToken(TOKEN_PREFIX.device);
  const device = await inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await answerable(tx, actor, id);
    const now = new Date();
    const device = await tx.device.create({
      data: {
        id: newId('device'),
        workspaceId: actor.workspaceId,
        name: row.deviceName,
        platform: row.platform,
        publicKey: row.publicKey,
        credentialHash: hashToken(credential),
        approvedById: actor.principalId,
      },
    });
    const updated = await tx.devicePairing.updateMany({
      where: { id: row.id, status: 'pending' },
      data: {
        status: 'approved',
        workspaceId: actor.workspaceId,
        deviceId: device.id,
        approvedById: actor.principalId,
        credentialCiphertext: deps.secrets.encrypt(credential),
        updatedAt: now,
      },
    });
    if (updated.count === 0) throw new AppError('failed_precondition', 'the pairing was answered concurrently');
    await recordAudit(bound, {
      action: 'approve',
      resourceKind: 'device_pairing',
      resourceId: row.id,
      changes: { status: { from: 'pending', to: 'approved' }, deviceId: { from: null, to: device.id } },
    });
    await recordAudit(bound, {
      action: 'create',
      resourceKind: 'device',
      resourceId: device.id,
      changes: {
        name: { from: null, to: device.name },
        platform: { from: null, to: device.platform },
        status: { from: null, to: 'active' },
      },
    });
    return device;
  });
  return deviceSummary(deps, device);
}

/** Rejecting ends the pairing; the daemon's next poll learns it. Needs `write`. */
export async function rejectPairing(call: CallContext, id: string): Promise<boolean> {
  const { actor } = call;
  requirePermission(actor, 'write');
  await inTransaction(call, async (bound) => {
    const tx = bound.db;
    const row = await answerable(tx, actor, id);
    const updated = await tx.devicePairing.updateMany({
      where: { id: row.id, status: 'pending' },
      data: { status: 'rejected', workspaceId: actor.workspaceId, approvedById: actor.principalId, updatedAt: new Date() },
    });
    if (updated.count === 0) throw new AppError('failed_precondition', 'the pairing was answered concurrently');
    await recordAudit(bound, {
      action: 'reject',
      resourceKind: 'device_pairing',
      resourceId: row.id,
      changes: { status: { from: 'pending', to: 'rejected' } },
    });
  });
  return true;
}
