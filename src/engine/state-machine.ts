// The run state machine, enforced in one place: MOVES says which status may follow which, and
// every status change is a compare-and-set, so that two actors (a worker and a cancel request, two
// workers after a takeover) can never both move the same run. `transition()` is that compare-and-set
// on (status, version). The worker's two hot statements carry it inside larger statements: the claim
// (accepted → running, `FOR UPDATE SKIP LOCKED` on status 'accepted') and the seal (running → its
// outcome, checked with canMove, on status 'running' and the claiming attempt's id).
import type { Prisma } from '../db.js';
import { AppError } from '../lib/errors.js';

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
