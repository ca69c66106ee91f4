// Web push: VAPID keys, browser subscriptions of the caller, activity (no pushes while the user is
// active in the UI), test notifications and run notifications. Delivery goes through `web-push`
// (RFC 8030 push protocol, RFC 8291 aes128gcm payload encryption, RFC 8292 VAPID).
import { readFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { rootCertificates } from 'node:tls';
import webpush from 'web-push';
import type { PushSubscription as PushSubscriptionRow } from '../../generated/prisma/client.js';
import { AppError, invalidArgument, notFound, quoteInput } from '../../lib/errors.js';
import { looksLikeId, newId } from '../../lib/ids.js';
import { outboundPolicy, outboundRefusalOf, type OutboundPolicy } from '../../lib/outbound-policy.js';
import { diffFields, recordAudit } from '../audit/audit.js';
import type { Deps } from '../../services/deps.js';
import { callContext, inTransaction, type CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import type { SealHook } from '../../services/run-hooks.js';
import { supportRuntime } from './runtime.js';
import { readFailure } from '../runs/run-members.js';
import { readDocument } from '../../lib/json-documents.js';
import Type from 'typebox';

const VAPID_SETTING = 'push.vapid';
const PUSH_TIMEOUT_MS = 10_000;

/** The service's own VAPID key pair as the `push.vapid` service setting keeps it (the private key sealed). */
const StoredVapidKeys = Type.Object({ public_key: Type.String(), private_key_ciphertext: Type.String() });
const storedVapidKeys = (setting: { value: unknown }) =>
  readDocument(StoredVapidKeys, setting.value, 'service_settings.value (push.vapid)');
const PUSH_TTL_SECONDS = 24 * 3600;

// ── VAPID keys ──

/** The VAPID key pair: from config, else stored in service_settings (private key sealed), else generated and stored. */
export function vapidKeys(deps: Deps) {
  const runtime = supportRuntime(deps);
  runtime.vapid ??= (async () => {
    const subject = deps.config.vapidSubject;
    if (deps.config.vapidPublicKey && deps.config.vapidPrivateKey) {
      return { publicKey: deps.config.vapidPublicKey, privateKey: deps.config.vapidPrivateKey, subject, source: 'config' as const };
    }
    const stored = await deps.db.serviceSetting.findUnique({ where: { key: VAPID_SETTING } });
    if (stored) {
      const value = storedVapidKeys(stored);
      return {
        publicKey: value.public_key,
        privateKey: deps.secrets.decrypt(value.private_key_ciphertext),
        subject,
        source: 'stored' as const,
      };
    }
    const generated = webpush.generateVAPIDKeys();
    // Two instances starting at once: the first insert wins and both use what is stored.
    await deps.db.serviceSetting.createMany({
      data: [
        {
          key: VAPID_SETTING,
          value: { public_key: generated.publicKey, private_key_ciphertext: deps.secrets.encrypt(generated.privateKey) },
        },
      ],
      skipDuplicates: true,
    });
    const row = await deps.db.serviceSetting.findUniqueOrThrow({ where: { key: VAPID_SETTING } });
    const value = storedVapidKeys(row);
    deps.logger.info({ publicKey: value.public_key }, 'generated and stored VAPID keys for web push');
    return {
      publicKey: value.public_key,
      privateKey: deps.secrets.decrypt(value.private_key_ciphertext),
      subject,
      source: 'generated' as const,
    };
  })();
  runtime.vapid.catch(() => (runtime.vapid = null));
  return runtime.vapid;
}

export async function getPushConfiguration(call: CallContext) {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const keys = await vapidKeys(deps);
  return {
    enabled: deps.config.pushEnabled,
    publicKey: keys.publicKey,
    activeWindowSeconds: deps.config.pushActiveWindowSeconds,
    notificationKinds: [...RUN_NOTIFICATION_KINDS, 'test'],
  };
}

// ── subscriptions ──

export interface PushSubscriptionInput {
  endpoint?: string | null;
  keys?: { p256dh?: unknown; auth?: unknown } | null;
  expirationTime?: number | null;
}

function base64urlBytes(value: unknown, field: string, length: number, check?: (bytes: Buffer) => boolean): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_-]+={0,2}$/.test(value))
    throw invalidArgument(`${field} must be a base64url string`, field);
  const bytes = Buffer.from(value, 'base64url');
  if (bytes.length !== length || (check && !check(bytes))) throw invalidArgument(`${field} must encode ${length} bytes`, field);
  return value.replace(/=+$/, '');
}

function validateSubscription(deps: Deps, input: PushSubscriptionInput) {
  const endpoint = input.endpoint;
  if (typeof endpoint !== 'string' || endpoint.length === 0) throw invalidArgument('endpoint is required', 'endpoint');
  if (endpoint.length > 2048) throw invalidArgument('endpoint must be at most 2048 characters', 'endpoint');
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalidArgument('endpoint must be an absolute URL', 'endpoint');
  }
  if (url.protocol !== 'https:') throw invalidArgument('endpoint must be an https URL of a push service', 'endpoint');
  // The endpoint is the caller's to name, and the service posts to it: the outbound policy applies.
  const refusal = outboundPolicy(deps.config.outboundAllowPrivate).urlRefusal(url);
  if (refusal) throw invalidArgument(`endpoint: ${refusal.message}`, 'endpoint', { reason: refusal.code });
  if (!input.keys || typeof input.keys !== 'object' || Array.isArray(input.keys))
    throw invalidArgument('keys {p256dh, auth} is required', 'keys');
  const extra = Object.keys(input.keys).filter((key) => key !== 'p256dh' && key !== 'auth');
  if (extra.length) throw invalidArgument(`unknown field ${quoteInput(extra[0])}`, `keys.${extra[0]}`);
  const p256dh = base64urlBytes(input.keys.p256dh, 'keys.p256dh', 65, (bytes) => bytes[0] === 4);
  const auth = base64urlBytes(input.keys.auth, 'keys.auth', 16);
  let expirationTime: Date | null = null;
  if (input.expirationTime !== undefined && input.expirationTime !== null) {
    if (!Number.isFinite(input.expirationTime) || input.expirationTime < 0 || input.expirationTime > 8.64e15) {
      throw invalidArgument('expiration_time must be milliseconds since the epoch, or null', 'expirationTime');
    }
    expirationTime = new Date(Math.floor(input.expirationTime));
  }
  return { endpoint, p256dh, auth, expirationTime };
}

/** Creates or updates the caller's subscription for this endpoint (one row per principal and endpoint). */
export async function upsertPushSubscription(call: CallContext, input: PushSubscriptionInput) {
  const { actor } = call;
  requirePermission(actor, 'read');
  const data = validateSubscription(call.deps, input);
  return inTransaction(call, async (bound) => {
    const tx = bound.db;
    const existing = await tx.pushSubscription.findUnique({
      where: { principalId_endpoint: { principalId: actor.principalId, endpoint: data.endpoint } },
    });
    if (!existing) {
      const created = await tx.pushSubscription.create({
        data: { id: newId('pushSubscription'), workspaceId: actor.workspaceId, principalId: actor.principalId, ...data },
      });
      await recordAudit(bound, {
        action: 'create',
        resourceKind: 'push_subscription',
        resourceId: created.id,
        changes: { endpoint: { from: null, to: data.endpoint }, expirationTime: { from: null, to: data.expirationTime } },
      });
      return created;
    }
    const patch = { workspaceId: actor.workspaceId, p256dh: data.p256dh, auth: data.auth, expirationTime: data.expirationTime };
    const changes = diffFields(existing, patch, ['p256dh', 'auth']);
    if (!changes) return existing;
    const updated = await tx.pushSubscription.update({ where: { id: existing.id }, data: { ...patch, updatedAt: new Date() } });
    if (existing.workspaceId !== actor.workspaceId) {
      // The subscription moves to the workspace the caller now acts in: both trails record it.
      await recordAudit(bound, {
        workspaceId: existing.workspaceId,
        principalId: actor.principalId,
        action: 'delete',
        resourceKind: 'push_subscription',
        resourceId: existing.id,
      });
    }
    await recordAudit(bound, {
      action: 'update',
      resourceKind: 'push_subscription',
      resourceId: existing.id,
      changes,
    });
    return updated;
  });
}

/** How many of a caller's subscriptions the list answers (browsers of one principal: a handful in practice). */
export const PUSH_SUBSCRIPTIONS_LIST_MAX = 200;

/** The caller's own subscriptions in the workspace it acts in, newest first (another principal's are never listed). */
export async function listPushSubscriptions(call: CallContext): Promise<PushSubscriptionRow[]> {
  const { actor } = call;
  requirePermission(actor, 'read');
  return call.db.pushSubscription.findMany({
    where: { workspaceId: actor.workspaceId, principalId: actor.principalId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: PUSH_SUBSCRIPTIONS_LIST_MAX,
  });
}

async function ownSubscription(call: CallContext, id: string): Promise<PushSubscriptionRow> {
  const { actor } = call;
  if (!looksLikeId('pushSubscription', id)) throw notFound('push subscription', id);
  const row = await call.db.pushSubscription.findUnique({ where: { id } });
  // Subscriptions are personal: another principal's (or another workspace's) is as good as absent.
  if (!row || row.workspaceId !== actor.workspaceId || row.principalId !== actor.principalId) throw notFound('push subscription', id);
  return row;
}

export async function deletePushSubscription(call: CallContext, id: string): Promise<boolean> {
  const { actor } = call;
  requirePermission(actor, 'read');
  const row = await ownSubscription(call, id);
  await inTransaction(call, async (bound) => {
    const tx = bound.db;
    const deleted = await tx.pushSubscription.deleteMany({ where: { id: row.id } });
    if (deleted.count) {
      await recordAudit(bound, {
        workspaceId: row.workspaceId,
        principalId: actor.principalId,
        action: 'delete',
        resourceKind: 'push_subscription',
        resourceId: row.id,
      });
    }
  });
  return true;
}

/** The UI is in use on this subscription's browser: no run notifications for the user within the window. Not audited (a heartbeat). */
export async function recordPushActivity(call: CallContext, id: string): Promise<boolean> {
  const { actor } = call;
  requirePermission(actor, 'read');
  const row = await ownSubscription(call, id);
  await call.db.pushSubscription.update({ where: { id: row.id }, data: { lastActiveAt: new Date() } });
  return true;
}

// ── delivery ──

export interface PushOutcome {
  subscriptionId: string;
  delivered: boolean;
  /** HTTP status of the push service's answer; null when no answer came (network error, timeout). */
  statusCode: number | null;
  /** The push service reported the subscription gone (404/410): it was removed. */
  removed: boolean;
  error: string | null;
}

// One agent per outbound policy and CA file. A subscription's endpoint is written by a caller, so
// every delivery connects through the policy: its lookup checks each address a name resolves to.
let cachedAgent: { policy: OutboundPolicy; file: string | undefined; agent: Agent } | null = null;
function pushAgent(deps: Deps, policy: OutboundPolicy): Agent {
  const file = deps.config.pushCaFile ?? undefined;
  if (!cachedAgent || cachedAgent.file !== file || cachedAgent.policy !== policy)
    cachedAgent = {
      policy,
      file,
      agent: new Agent({
        ...(file ? { ca: [...rootCertificates, readFileSync(file, 'utf8')] } : {}),
        keepAlive: false,
        lookup: policy.lookup,
      } as never),
    };
  return cachedAgent.agent;
}

async function deliver(
  deps: Deps,
  row: PushSubscriptionRow,
  payload: Record<string, unknown>,
  urgency: 'normal' | 'high' = 'normal',
): Promise<PushOutcome> {
  const keys = await vapidKeys(deps);
  const base = {
    subscriptionId: row.id,
    delivered: false,
    statusCode: null as number | null,
    removed: false,
    error: null as string | null,
  };
  const policy = outboundPolicy(deps.config.outboundAllowPrivate);
  // A literal address is never looked up: judged here (a subscription written while it was allowed).
  const refusal = policy.urlRefusal(new URL(row.endpoint));
  if (refusal) return { ...base, error: refusal.message };
  try {
    const result = await webpush.sendNotification(
      { endpoint: row.endpoint, keys: { p256dh: row.p256dh, auth: row.auth } },
      JSON.stringify(payload),
      {
        vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
        TTL: PUSH_TTL_SECONDS,
        urgency,
        timeout: PUSH_TIMEOUT_MS,
        contentEncoding: 'aes128gcm',
        agent: pushAgent(deps, policy),
        ...(typeof payload.tag === 'string' ? { topic: payload.tag.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) } : {}),
      },
    );
    return { ...base, delivered: true, statusCode: result.statusCode };
  } catch (error) {
    const statusCode = (error as { statusCode?: number }).statusCode ?? null;
    if (statusCode === 404 || statusCode === 410) {
      // Nobody asked for this removal: the service records it as its own (no request id).
      await inTransaction(callContext(deps, null, null), async (bound) => {
        const tx = bound.db;
        const deleted = await tx.pushSubscription.deleteMany({ where: { id: row.id } });
        if (deleted.count) {
          await recordAudit(bound, {
            workspaceId: row.workspaceId,
            principalId: 'system',
            action: 'delete',
            resourceKind: 'push_subscription',
            resourceId: row.id,
            changes: { reason: { from: null, to: `push service answered ${statusCode}` } },
          });
        }
      });
      return {
        ...base,
        statusCode,
        removed: true,
        error: `the push service reports the subscription gone (${statusCode}); it was removed`,
      };
    }
    const message = statusCode
      ? `the push service answered ${statusCode}`
      : `no answer from the push service: ${(outboundRefusalOf(error) ?? (error as Error)).message}`;
    deps.logger.warn({ subscriptionId: row.id, statusCode, err: error }, 'push delivery failed');
    return { ...base, statusCode, error: message };
  }
}

/** Sends a test notification to one of the caller's subscriptions and reports the push service's outcome. */
export async function sendTestNotification(call: CallContext, id: string): Promise<PushOutcome> {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  if (!deps.config.pushEnabled) throw new AppError('disabled', 'web push is disabled on this service');
  const row = await ownSubscription(call, id);
  return deliver(deps, row, {
    kind: 'test',
    title: 'Test notification',
    body: 'Push notifications work on this browser.',
    url: '/',
    workspace_id: row.workspaceId,
    tag: `test-${row.id}`,
    sent_at: new Date().toISOString(),
  });
}

// ── run notifications (called by the run engine) ──

export const RUN_NOTIFICATION_KINDS = ['run.waiting', 'run.failed', 'run.completed_after_wait'] as const;
export type RunNotificationKind = (typeof RUN_NOTIFICATION_KINDS)[number];

export interface RunNotification {
  workspaceId: string;
  runId: string;
  kind: 'waiting' | 'failed' | 'completed_after_wait';
  threadId?: string | null;
  agentId?: string | null;
  agentName?: string | null;
  /** For waiting: approval | client_call | question. */
  waitingFor?: 'approval' | 'client_call' | 'question' | null;
  /** For failed: the failure code. */
  failureCode?: string | null;
}

export interface NotifyReport {
  sent: PushOutcome[];
  /** Principals skipped because they were active in the UI within the window. */
  skippedActive: string[];
}

function runPayload(event: RunNotification) {
  const who = event.agentName ? `${event.agentName}` : 'A run';
  const text = {
    waiting: `${who} is waiting for ${event.waitingFor === 'client_call' ? 'a client tool result' : event.waitingFor === 'question' ? 'an answer' : 'an approval'}`,
    failed: `${who} failed${event.failureCode ? ` (${event.failureCode})` : ''}`,
    completed_after_wait: `${who} completed`,
  }[event.kind];
  return {
    kind: `run.${event.kind}` as RunNotificationKind,
    title: text,
    body: event.kind === 'waiting' ? 'Open the run to answer.' : 'Open the run to see the result.',
    url: `/workspaces/${event.workspaceId}/runs/${event.runId}`,
    workspace_id: event.workspaceId,
    run_id: event.runId,
    ...(event.threadId ? { thread_id: event.threadId } : {}),
    ...(event.agentId ? { agent_id: event.agentId } : {}),
    ...(event.waitingFor ? { waiting_for: event.waitingFor } : {}),
    ...(event.failureCode ? { failure_code: event.failureCode } : {}),
    tag: `run-${event.runId}`,
    sent_at: new Date().toISOString(),
  };
}

/** Of these principals, those who can still read the workspace: members not disabled, API keys not revoked or expired. */
async function principalsWhoMayRead(deps: Deps, workspaceId: string, principalIds: string[]): Promise<Set<string>> {
  if (principalIds.length === 0) return new Set();
  const now = new Date();
  const [members, keys] = await Promise.all([
    deps.db.membership.findMany({
      where: { workspaceId, userId: { in: principalIds }, user: { disabledAt: null } },
      select: { userId: true },
    }),
    deps.db.apiKey.findMany({
      where: { workspaceId, id: { in: principalIds }, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      select: { id: true, permissions: true },
    }),
  ]);
  return new Set([
    ...members.map((member) => member.userId), // every role includes read
    ...keys.filter((key) => (key.permissions as string[]).includes('read')).map((key) => key.id),
  ]);
}

/**
 * Pushes a run event to the subscriptions of the run's workspace, skipping users active in the UI
 * within the window. Returns at once: delivery happens in the background and never throws into
 * the caller; `settled` resolves with the report (tests and logs only).
 */
export function notifyRunEvent(deps: Deps, event: RunNotification): { settled: Promise<NotifyReport> } {
  const settled = (async (): Promise<NotifyReport> => {
    await Promise.resolve(); // never run a single step inside the caller's tick
    if (!deps.config.pushEnabled) return { sent: [], skippedActive: [] };
    const rows = await deps.db.pushSubscription.findMany({ where: { workspaceId: event.workspaceId }, orderBy: { id: 'asc' } });
    const now = Date.now();
    const windowMs = deps.config.pushActiveWindowSeconds * 1000;
    const active = new Set(
      rows.filter((row) => row.lastActiveAt && now - row.lastActiveAt.getTime() < windowMs).map((row) => row.principalId),
    );
    const allowed = await principalsWhoMayRead(deps, event.workspaceId, [...new Set(rows.map((row) => row.principalId))]);
    const due = rows.filter(
      (row) => allowed.has(row.principalId) && !active.has(row.principalId) && !(row.expirationTime && row.expirationTime.getTime() <= now),
    );
    const payload = runPayload(event);
    const sent = await Promise.all(due.map((row) => deliver(deps, row, payload, event.kind === 'waiting' ? 'high' : 'normal')));
    return { sent, skippedActive: [...active] };
  })().catch((error: unknown) => {
    deps.logger.error({ err: error, runId: event.runId }, 'run notification failed');
    return { sent: [], skippedActive: [] };
  });
  return { settled };
}

/**
 * The seal hook of web push: the people of the workspace hear when a run waits for them, fails, or
 * completes after a wait. Delivery happens in the background: the hook never holds up the others.
 */
export const pushOnSeal: SealHook = {
  name: 'web push',
  onSeal({ call, run }) {
    const waitingFor = { approval: 'approval', client_tool: 'client_call', user_question: 'question' } as const;
    const base = { workspaceId: run.workspaceId, runId: run.id, threadId: run.threadId, agentId: run.agentId };
    if (run.status === 'waiting')
      notifyRunEvent(call.deps, { ...base, kind: 'waiting', waitingFor: waitingFor[run.waitReason as keyof typeof waitingFor] ?? null });
    else if (run.status === 'failed')
      notifyRunEvent(call.deps, { ...base, kind: 'failed', failureCode: readFailure(run.failure)?.code ?? null });
    else if (run.status === 'completed' && run.lineage === 'resume') notifyRunEvent(call.deps, { ...base, kind: 'completed_after_wait' });
  },
};
