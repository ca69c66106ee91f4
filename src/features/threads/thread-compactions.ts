// The context state of threads whose history outgrew their model (prisma model ThreadCompaction):
// read when a run prepares its model requests, added to when a run compacts or stubs the committed
// history. Raw SQL: this is on the run's path (one indexed read per run, and only for threads whose
// history is long enough to need it).
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { newId } from '../../lib/ids.js';

export interface ThreadContextState {
  /** How many messages from the start of the history `summary` stands for (0: none). */
  coveredMessages: number;
  /** Tool results of the messages before this index are sent as stubs. */
  stubbedBefore: number;
  summary: string;
}

/** What identifies the last message a state covers: a state whose history changed beneath it is not used. */
export function messageDigest(message: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(message ?? null))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * The latest state for a history of `history` messages: of this thread, else of the thread it was
 * forked from (and so on up), covering no more than the history holds and matching its messages.
 */
export async function latestContextState(
  db: PrismaClient,
  threadId: string,
  history: readonly unknown[],
): Promise<ThreadContextState | null> {
  const rows = await db.$queryRaw<{ covered_messages: number; covered_digest: string; stubbed_before: number; summary: string }[]>`
    WITH RECURSIVE lineage(id, depth) AS (
      SELECT ${threadId}::text, 0
      UNION ALL
      SELECT t.origin_thread_id, l.depth + 1 FROM threads t JOIN lineage l ON t.id = l.id
      WHERE t.origin = 'fork' AND t.origin_thread_id IS NOT NULL AND l.depth < 16
    )
    SELECT c.covered_messages, c.covered_digest, c.stubbed_before, c.summary
    FROM thread_compactions c JOIN lineage l ON c.thread_id = l.id
    WHERE c.covered_messages <= ${history.length} AND c.stubbed_before <= ${history.length}
    ORDER BY c.covered_messages DESC, c.stubbed_before DESC, c.created_at DESC
    LIMIT 8`;
  for (const row of rows) {
    const last = Math.max(row.covered_messages, row.stubbed_before) - 1;
    if (last < 0 || messageDigest(history[last]) === row.covered_digest)
      return { coveredMessages: row.covered_messages, stubbedBefore: row.stubbed_before, summary: row.summary };
  }
  return null;
}

/** Records a new state of a thread's committed history (it covers and stubs no more than `history` holds). */
export async function addContextState(
  db: PrismaClient,
  ids: { workspaceId: string; threadId: string; runId: string },
  history: readonly unknown[],
  state: ThreadContextState,
): Promise<void> {
  const last = Math.max(state.coveredMessages, state.stubbedBefore) - 1;
  const digest = last < 0 ? '' : messageDigest(history[last]);
  await db.$executeRaw`INSERT INTO thread_compactions (id, workspace_id, thread_id, run_id, covered_messages, covered_digest, stubbed_before, summary)
    VALUES (${newId('threadCompaction')}, ${ids.workspaceId}, ${ids.threadId}, ${ids.runId}, ${state.coveredMessages}, ${digest}, ${state.stubbedBefore}, ${state.summary})`;
}
