// A thread's next turn: when its run ends (or is cancelled before it starts), the next pending
// inbox entry, in inbox order, becomes the thread's next run. Called by workers after a seal and
// by cancellation; safe to call concurrently (the thread's row lock decides).
import type { Prisma } from '../../db.js';
import type { Run } from '../../generated/prisma/client.js';
import { runOptionsSchema } from '../agents/documents/config-schema.js';
import { actingFor, inTransaction, type CallContext } from '../../services/call-context.js';
import type { Actor } from '../../services/deps.js';
import { storedMessage } from './run-input.js';
import { ACTIVE, writeNewRun } from './run-lifecycle.js';
import { planNewRun } from './run-plan.js';
import { enqueueWebhookEvent } from '../webhooks/webhook-events.js';
import { announceThreadChanged } from '../../services/event-topics.js';
import type { SealHook } from '../../services/run-hooks.js';
import { readDocument } from '../../lib/json-documents.js';
import { lockThreadRow } from '../threads/threads.js';

type Tx = Prisma.TransactionClient;

/** The thread's accepted or running run, if any (at most one, by the inbox's rules). */
export const activeRun = (tx: Tx, threadId: string) =>
  tx.run.findFirst({ where: { threadId, status: { in: [...ACTIVE] } }, orderBy: { id: 'desc' } });

/**
 * `call` is whoever ended the thread's run (its worker, or a caller cancelling it); the new run is
 * not theirs: it is planned acting for the entry's sender, with the request that delivered it.
 */
export async function promoteNextEntry(call: CallContext<Actor | null>, threadId: string): Promise<Run | null> {
  // Most runs end with nothing queued: one cheap read avoids the locking transaction.
  if (!(await call.db.inboxEntry.findFirst({ where: { threadId, status: 'pending' }, select: { id: true } }))) return null;
  let entryFailed = false;
  const run = await inTransaction(call, async (bound) => {
    const tx = bound.db;
    // Locked and read in one statement; the active run and the entry are read after the lock.
    const thread = await lockThreadRow(bound.db, threadId);
    if (!thread || (await activeRun(tx, threadId))) return null;
    const entry = await tx.inboxEntry.findFirst({ where: { threadId, status: 'pending' }, orderBy: { position: 'asc' } });
    if (!entry) return null;
    const agent = await tx.agent.findUnique({ where: { id: entry.agentId! } });
    if (!agent || agent.archivedAt) {
      const failure = { code: 'failed_precondition', message: 'the agent is archived or gone' };
      await tx.inboxEntry.update({ where: { id: entry.id }, data: { status: 'failed', finishedAt: new Date(), failure } });
      await enqueueWebhookEvent(tx, entry.workspaceId, 'inbox_entry.failed', {
        inbox_entry: { id: entry.id, thread_id: threadId, run_id: null, status: 'failed', failure },
      });
      entryFailed = true;
      return null;
    }
    const options = readDocument(runOptionsSchema, entry.options, 'runs.options');
    // The run is the entry's sender's, started by the request that delivered the entry.
    const sender = actingFor(bound, entry, entry.requestId);
    return writeNewRun(
      bound,
      planNewRun(sender, {
        agentId: agent.id,
        revisionId: entry.agentRevisionId ?? agent.defaultRevisionId!,
        pinned: Boolean(entry.agentRevisionId),
        input: storedMessage(entry.payload),
        options,
        labels: options.labels ?? {},
        trigger: 'queue',
        lineage: 'root',
        thread: { existing: thread },
        entry: { pending: { id: entry.id } },
      }),
    );
  });
  // The entry became the thread's run (its current run now), or failed: the thread's followers see it.
  if ((run || entryFailed) && !call.inTransaction) announceThreadChanged(call.events, threadId);
  return run;
}

/**
 * The seal hook of the inbox: the thread's next pending entry (queued, interrupting or an
 * unincorporated steer) becomes its next run. The seal says whether any is pending, so most seals
 * skip even the cheap read.
 */
export const inboxPromotionOnSeal: SealHook = {
  name: 'inbox promotion',
  async onSeal({ call, run, threadHasPending }) {
    if (threadHasPending) await promoteNextEntry(call, run.threadId);
  },
};
