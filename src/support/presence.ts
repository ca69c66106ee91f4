// Presence: who is present in the workspace's UI. Each GET /api/presence registers the caller's
// participant (a browser tab, say) and returns the frame; entries expire presenceTtlSeconds after
// they were last seen. Kept in memory of this instance; changes are published on `presenceChanged`.
import { invalidArgument } from '../lib/errors.js';
import type { Deps } from '../services/deps.js';
import type { CallContext } from '../services/call-context.js';
import { requirePermission } from '../services/permissions.js';
import { supportRuntime } from './runtime.js';

export const PARTICIPANT_ID_MAX = 80;

import type { PresenceFrame } from '../services/event-topics.js';

export type { PresenceFrame };

function frame(deps: Deps, workspaceId: string, participantId: string): PresenceFrame {
  const ttlMs = deps.config.presenceTtlSeconds * 1000;
  const entries = [...(supportRuntime(deps).presence.get(workspaceId)?.values() ?? [])];
  return {
    workspaceId,
    participantId,
    ttlSeconds: deps.config.presenceTtlSeconds,
    serverTime: new Date(),
    participants: entries
      .sort((a, b) => a.participantId.localeCompare(b.participantId))
      .map((entry) => ({ ...entry, expiresAt: new Date(entry.lastSeenAt.getTime() + ttlMs) })),
  };
}

/** Drops expired entries of a workspace; publishes a frame when any went. */
function expire(deps: Deps, workspaceId: string): boolean {
  const entries = supportRuntime(deps).presence.get(workspaceId);
  if (!entries) return false;
  const cutoff = Date.now() - deps.config.presenceTtlSeconds * 1000;
  let changed = false;
  for (const [key, entry] of entries) {
    if (entry.lastSeenAt.getTime() <= cutoff) {
      entries.delete(key);
      changed = true;
    }
  }
  if (entries.size === 0) supportRuntime(deps).presence.delete(workspaceId);
  return changed;
}

export function validateParticipantId(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > PARTICIPANT_ID_MAX)
    throw invalidArgument(`participant_id must be at most ${PARTICIPANT_ID_MAX} characters`, 'participant_id');
  if (value.length === 0 || !/^[\x20-\x7e\u00a0-\uffff]+$/.test(value))
    throw invalidArgument('participant_id must be 1 to 80 printable characters', 'participant_id');
  return value;
}

/** Registers the caller's participant as present (default participant: the caller's principal id) and returns the frame. */
export function touchPresence(call: CallContext, participantId: string | null | undefined): PresenceFrame {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const participant = validateParticipantId(participantId) ?? actor.principalId;
  const runtime = supportRuntime(deps);
  startExpiryTimer(deps);
  let changed = expire(deps, actor.workspaceId);
  let entries = runtime.presence.get(actor.workspaceId);
  if (!entries) runtime.presence.set(actor.workspaceId, (entries = new Map()));
  const key = `${actor.principalId}\u0000${participant}`;
  const now = new Date();
  const existing = entries.get(key);
  if (existing) existing.lastSeenAt = now;
  else {
    entries.set(key, {
      participantId: participant,
      principalId: actor.principalId,
      principalKind: actor.principalKind,
      firstSeenAt: now,
      lastSeenAt: now,
    });
    changed = true;
  }
  const result = frame(deps, actor.workspaceId, participant);
  if (changed) deps.events.publish('presenceChanged', actor.workspaceId, result);
  return result;
}

/**
 * The caller's participant leaves at once (default participant: the caller's principal id) instead of
 * expiring after the TTL: the frame without it is published on `presenceChanged`. Leaving when not
 * present (already left, expired, or never registered) is not an error: `left` is false and nothing is
 * published. A caller removes only its own participants (another principal's with the same id stay).
 */
export function leavePresence(call: CallContext, participantId: string | null | undefined): { left: boolean; presence: PresenceFrame } {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const participant = validateParticipantId(participantId) ?? actor.principalId;
  const runtime = supportRuntime(deps);
  const expired = expire(deps, actor.workspaceId);
  const entries = runtime.presence.get(actor.workspaceId);
  const left = entries?.delete(`${actor.principalId}\u0000${participant}`) ?? false;
  if (entries && entries.size === 0) runtime.presence.delete(actor.workspaceId);
  const result = frame(deps, actor.workspaceId, participant);
  if (left || expired) deps.events.publish('presenceChanged', actor.workspaceId, result);
  return { left, presence: result };
}

/** The current frame without registering anyone (subscriptions start with it). */
export function currentPresence(call: CallContext): PresenceFrame {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  expire(deps, actor.workspaceId);
  return frame(deps, actor.workspaceId, actor.principalId);
}

function startExpiryTimer(deps: Deps) {
  const runtime = supportRuntime(deps);
  if (runtime.presenceTimer) return;
  runtime.presenceTimer = true;
  const period = Math.max(200, Math.min(5_000, (deps.config.presenceTtlSeconds * 1000) / 4));
  const timer = setInterval(() => {
    for (const workspaceId of [...runtime.presence.keys()]) {
      if (expire(deps, workspaceId)) deps.events.publish('presenceChanged', workspaceId, frame(deps, workspaceId, ''));
    }
  }, period);
  timer.unref();
  runtime.timers.add(timer);
}
