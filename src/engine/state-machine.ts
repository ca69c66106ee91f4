// The run state machine, enforced in one place: MOVES says which status may follow which, and
// every status change is a compare-and-set, so that two actors (a worker and a cancel request, two
// workers after a takeover) can never both move the same run. `transition()` is that compare-and-set
// on (status, version). The worker's hot statements carry it inside larger statements: the claim
// (accepted → running, `FOR UPDATE SKIP LOCKED` on status 'accepted'), the seal (running → its
// outcome, checked with canMove, on status 'running' and the claiming attempt's id) and the
// hand-back of a stopping worker (`handBack` below, on the same two conditions).
import type { Db, Prisma } from '../db.js';
import { Prisma as PrismaSql, type Run } from '../generated/prisma/client.js';
import { RUN_COLUMNS } from '../storage/columns.js';
import { AppError } from '../lib/errors.js';

/** The NOTIFY channel that announces an accepted run (its id is the payload) to every worker. */
export const RUN_ACCEPTED_CHANNEL = 'wsa_run_accepted';

export const RUN_STATUSES = ['accepted', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const WAIT_REASONS = ['approval', 'client_tool', 'user_question'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];
export const TRIGGERS = ['input', 'resume', 'fork', 'queue'] as const;
export const LINEAGES = ['root', 'resume', 'fork'] as const;

/** Terminal statuses: the run is sealed and never changes status again. */
export const SEALED: ReadonlySet<RunStatus> = new Set(['completed', 'failed', 'cancelled']);

const MOVES: Record<RunStatus, readonly RunStatus[]> = {
  // A worker claims it; or it is cancelled before it starts.
  accepted: ['running', 'cancelled'],
  // It finishes, pauses, fails, is cancelled — or its worker died and it is offered again as a
  // new attempt (back to accepted) or failed when attempts are exhausted.
  running: ['completed', 'waiting', 'failed', 'cancelled', 'accepted'],
  // A waiting run is answered by a successor run (it stays waiting, with resumed_by_id), or cancelled.
  waiting: ['cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canMove(from: RunStatus, to: RunStatus): boolean {
  return MOVES[from].includes(to);
}

export class IllegalTransition extends AppError {
  constructor(from: string, to: string) {
    super('conflict', `a ${from} run cannot become ${to}`);
  }
}

/**
 * Moves a run from `from` to `to`, applying `data`, only if it is still in `from` at `version`.
 * Returns the updated run, or null when someone else moved it first.
 */
export async function transition(
  tx: Prisma.TransactionClient,
  run: { id: string; status: string; version: number },
  to: RunStatus,
  data: Prisma.RunUpdateManyMutationInput = {},
) {
  const from = run.status as RunStatus;
  if (!canMove(from, to)) throw new IllegalTransition(from, to);
  const now = new Date();
  const sealed = SEALED.has(to) || to === 'waiting';
  // One statement: update-and-return only if the run is still in `from` at `version`.
  return tx.run
    .update({
      where: { id: run.id, status: from, version: run.version },
      data: { ...(data as Prisma.RunUpdateInput), status: to, version: run.version + 1, updatedAt: now, ...(sealed ? { sealedAt: now } : {}) },
    })
    .catch((error: { code?: string }) => {
      if (error.code === 'P2025') return null;
      throw error;
    });
}

/** Whether a run may have another attempt: attempts its workers handed back on shutdown do not count. */
export function attemptsLeft(run: { attempts: number; maxAttempts: number; handedBack: number }): boolean {
  return run.attempts - run.handedBack < run.maxAttempts;
}

/**
 * A stopping worker hands its run back (running → accepted) in one statement: the attempt's last
 * run items (`itemsWrite`, its in-progress items already closed), the status with claim and lease
 * cleared, and the NOTIFY that lets any worker claim it at once instead of waiting for the lease.
 * The attempt stays counted in `attempts` (its number orders the run's stream positions, which only
 * grow) and in `handed_back`, which `attemptsLeft` subtracts, so a hand-back never uses up the run's
 * attempts. Only the attempt that holds the run can hand it back; null when the run moved on meanwhile.
 */
export async function handBack(db: Db, run: { id: string; currentAttemptId: string | null }, itemsWrite: Prisma.Sql | null): Promise<Run | null> {
  if (!canMove('running', 'accepted')) throw new IllegalTransition('running', 'accepted');
  const rows = await db.$queryRaw<(Run & { notified: boolean })[]>`
    WITH ${itemsWrite ? PrismaSql.sql`written_items AS (${itemsWrite}),` : PrismaSql.empty} handed AS (
      UPDATE runs SET status = 'accepted', version = version + 1, updated_at = now(), lease_owner = NULL, lease_expires_at = NULL,
        handed_back = handed_back + 1
      WHERE id = ${run.id} AND status = 'running' AND current_attempt_id = ${run.currentAttemptId}
      RETURNING *
    )
    SELECT ${RUN_COLUMNS}, pg_notify(${RUN_ACCEPTED_CHANNEL}, handed.id) IS NULL AS "notified" FROM handed`;
  if (rows.length === 0) return null;
  const { notified: _notified, ...handed } = rows[0]!;
  return handed;
}
