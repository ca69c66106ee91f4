// Presence: who is present in the workspace's UI. Each GET /api/presence registers the caller's
// participant (a browser tab, say) and returns the frame; entries expire presenceTtlSeconds after
// they were last seen. Kept in PostgreSQL (`presence_entries`), so every instance answers the same
// participants; times are the database's clock, the same for every instance. A change of who is
// present (an arrival, a leave, an expiry a touch or leave cleared) is announced on `presenceChanged`
// — only a signal, through Redis with REDIS_URL; each instance's subscribers read the frame
// themselves (presence-watch.ts). A touch of a participant already present writes its row's
// last-seen time and nothing else: no audit row, no announcement.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';
import { invalidArgument } from '../../lib/errors.js';
import type { Deps } from '../../services/deps.js';
import type { CallContext, Tx } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';

export const PARTICIPANT_ID_MAX = 80;

/** One present participant of a workspace. */
export interface PresenceEntry {
  participantId: string;
  principalId: string;
  principalKind: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
}

/** Who is present in a workspace, as `presence`, `touchPresence`, `leavePresence` and `presenceChanged` answer it. */
export interface PresenceFrame {
  workspaceId: string;
  /** The participant the frame answers ('' in a frame a subscriber got for an expiry). */
  participantId: string;
  ttlSeconds: number;
  serverTime: Date;
  participants: (PresenceEntry & { expiresAt: Date })[];
}

/** A presence row as the statements below answer it, with the database's time of the statement. */
interface EntryRow extends PresenceEntry {
  serverTime: Date;
}

const ENTRY_COLUMNS = Prisma.sql`e.participant_id AS "participantId", e.principal_id AS "principalId",
  e.principal_kind AS "principalKind", e.first_seen_at AS "firstSeenAt", e.last_seen_at AS "lastSeenAt"`;

const ttlOf = (deps: Deps) => Prisma.sql`(${deps.config.presenceTtlSeconds}::int * interval '1 second')`;

/** The frame from the rows of one statement (a row with a null participant only carries the time). */
function frameOf(deps: Deps, workspaceId: string, participantId: string, rows: EntryRow[]): PresenceFrame {
  const ttlMs = deps.config.presenceTtlSeconds * 1000;
  return {
    workspaceId,
    participantId,
    ttlSeconds: deps.config.presenceTtlSeconds,
    serverTime: rows[0]!.serverTime,
    participants: rows
      .filter((row) => row.participantId !== null)
      .map(({ participantId, principalId, principalKind, firstSeenAt, lastSeenAt }) => ({
        participantId,
        principalId,
        principalKind,
        firstSeenAt,
        lastSeenAt,
        expiresAt: new Date(lastSeenAt.getTime() + ttlMs),
      }))
      .sort((a, b) => a.participantId.localeCompare(b.participantId) || a.principalId.localeCompare(b.principalId)),
  };
}

/**
 * The workspace's present participants, read by any instance; the workspace's expired rows are
 * deleted in the same statement (nothing is announced: each instance's subscribers learn of an
 * expiry from their own reads).
 */
export async function readPresence(deps: Deps, db: Db | Tx, workspaceId: string, participantId: string): Promise<PresenceFrame> {
  const ttl = ttlOf(deps);
  const rows = await db.$queryRaw<EntryRow[]>`
    WITH expired AS (
      DELETE FROM presence_entries WHERE workspace_id = ${workspaceId} AND last_seen_at <= now() - ${ttl}
    )
    SELECT now() AS "serverTime", ${ENTRY_COLUMNS}
    FROM (SELECT 1) AS one
    LEFT JOIN presence_entries e ON e.workspace_id = ${workspaceId} AND e.last_seen_at > now() - ${ttl}`;
  return frameOf(deps, workspaceId, participantId, rows);
}

export function validateParticipantId(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (value.length > PARTICIPANT_ID_MAX)
    throw invalidArgument(`participant_id must be at most ${PARTICIPANT_ID_MAX} characters`, 'participant_id');
  if (value.length === 0 || !/^[\x20-\x7e\u00a0-\uffff]+$/.test(value))
    throw invalidArgument('participant_id must be 1 to 80 printable characters', 'participant_id');
  return value;
}

/** Tells every instance's subscribers of the workspace that who is present changed. */
function announce(call: CallContext, participantId: string) {
  call.events.publish('presenceChanged', call.actor.workspaceId, { participantId });
}

/**
 * What a touch and a leave share: the caller may read the workspace, the participant (default: the
 * caller's principal id), the caller's own entry of it, and the first part of both statements — the
 * workspace's expired entries deleted, except the caller's own, whose fate the statement decides.
 */
function participantChange(call: CallContext, participantId: string | null | undefined) {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const participant = validateParticipantId(participantId) ?? actor.principalId;
  const ttl = ttlOf(deps);
  const workspace = actor.workspaceId;
  const own = Prisma.sql`principal_id = ${actor.principalId} AND participant_id = ${participant}`;
  const deleteExpired = Prisma.sql`
    DELETE FROM presence_entries WHERE workspace_id = ${workspace} AND last_seen_at <= now() - ${ttl} AND NOT (${own})
    RETURNING 1`;
  return { participant, ttl, workspace, own, deleteExpired };
}

/** Registers the caller's participant as present (default participant: the caller's principal id) and returns the frame. */
export async function touchPresence(call: CallContext, participantId: string | null | undefined): Promise<PresenceFrame> {
  const { actor } = call;
  const { participant, ttl, workspace, deleteExpired } = participantChange(call, participantId);
  // One statement: the workspace's expired rows go and the caller's row is written (an expired one of
  // its own comes back as a new arrival). `arrived`: the row is new (first seen now) — a touch of a
  // present participant only moves its last-seen time.
  const rows = await call.db.$queryRaw<{ expired: number; arrived: boolean }[]>`
    WITH expired AS (${deleteExpired}), touched AS (
      INSERT INTO presence_entries AS e (workspace_id, principal_id, participant_id, principal_kind, first_seen_at, last_seen_at)
      VALUES (${workspace}, ${actor.principalId}, ${participant}, ${actor.principalKind}, now(), now())
      ON CONFLICT (workspace_id, principal_id, participant_id) DO UPDATE SET
        last_seen_at = now(),
        first_seen_at = CASE WHEN e.last_seen_at <= now() - ${ttl} THEN now() ELSE e.first_seen_at END
      RETURNING e.*
    )
    SELECT (SELECT count(*) FROM expired)::int AS expired, e.first_seen_at = e.last_seen_at AS arrived
    FROM touched e`;
  if (rows[0]!.expired > 0 || rows[0]!.arrived) announce(call, participant);
  return answeredFrame(call, participant);
}

/**
 * The caller's participant leaves at once (default participant: the caller's principal id) instead of
 * expiring after the TTL: subscribers get the frame without it. Leaving when not present (already
 * left, expired, or never registered) is not an error: `left` is false and nothing is announced
 * unless the call cleared expired entries. A caller removes only its own participants (another
 * principal's with the same id stay).
 */
export async function leavePresence(
  call: CallContext,
  participantId: string | null | undefined,
): Promise<{ left: boolean; presence: PresenceFrame }> {
  const { participant, ttl, workspace, own, deleteExpired } = participantChange(call, participantId);
  const rows = await call.db.$queryRaw<{ removed: number; left: boolean }[]>`
    WITH expired AS (${deleteExpired}), gone AS (
      DELETE FROM presence_entries WHERE workspace_id = ${workspace} AND ${own}
      RETURNING last_seen_at > now() - ${ttl} AS present
    )
    SELECT ((SELECT count(*) FROM expired) + (SELECT count(*) FROM gone))::int AS removed,
      coalesce((SELECT bool_or(present) FROM gone), false) AS left`;
  if (rows[0]!.removed > 0) announce(call, participant);
  return { left: rows[0]!.left, presence: await answeredFrame(call, participant) };
}

/**
 * The frame a touch or leave answers, read after its change committed. A client keeps the frame with
 * the newest `serverTime`, so that time must be when the frame was read: a frame read inside the
 * change's own statement would carry the statement's start, earlier than a read that overlapped it
 * and did not see the change yet — and the client would keep that read, without the change.
 */
function answeredFrame(call: CallContext, participantId: string): Promise<PresenceFrame> {
  return readPresence(call.deps, call.db, call.actor.workspaceId, participantId);
}

/** The current frame without registering anyone. */
export async function currentPresence(call: CallContext): Promise<PresenceFrame> {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  return readPresence(deps, call.db, actor.workspaceId, actor.principalId);
}

/**
 * Deletes every workspace's expired entries, at most `batch` of them (housekeeping, in
 * src/engine/housekeeping.ts: a workspace nobody reads any more keeps its rows until then).
 * Returns how many went.
 */
export async function deleteExpiredPresence(deps: Deps, batch: number): Promise<number> {
  return deps.db.$executeRaw`
    DELETE FROM presence_entries WHERE ctid IN (
      SELECT ctid FROM presence_entries WHERE last_seen_at <= now() - ${ttlOf(deps)} LIMIT ${batch}::int
    )`;
}
