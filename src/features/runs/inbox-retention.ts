// Inbox retention (INBOX_RETENTION_DAYS): finished inbox entries (completed, failed, cancelled,
// incorporated) are deleted once they finished longer ago than the retention. Entries still pending or
// assigned are never deleted, and neither is the entry that started a run whose items retention keeps
// (a waiting run nobody resumed, the latest run of an open thread: see run-item-retention.ts), so a
// thread a client still works in keeps the entry of its last exchange. Archiving the thread lifts the
// latter. A thread's inbox positions keep growing from the thread's own counter, so a deleted entry
// never frees its position.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

/** Where the deletes continue in one sweep: after this entry, by (finished_at, id). */
export interface EntryCursor {
  finishedAt: Date;
  id: string;
}

/**
 * The statement deleting up to `batch` expired entries after `cursor` (so one sweep never reads the
 * protected entries it passed again), read through `inbox_entries_finished_idx`, oldest first; rows
 * another transaction holds are skipped. Returns the deleted entries' keys.
 */
export const expiredEntriesStatement = (retentionDays: number, batch: number, cursor: EntryCursor | null) => Prisma.sql`
  DELETE FROM inbox_entries WHERE id IN (
    SELECT e.id FROM inbox_entries e
    WHERE e.finished_at IS NOT NULL AND e.finished_at < now() - make_interval(days => ${retentionDays}::int)
      ${cursor ? Prisma.sql`AND (e.finished_at, e.id) > (${cursor.finishedAt}::timestamptz, ${cursor.id})` : Prisma.empty}
      -- Scalar subqueries: primary-key probes per candidate, never a join over all runs or threads.
      AND (SELECT r.status = 'waiting' AND r.resumed_by_id IS NULL FROM runs r WHERE r.id = e.assigned_run_id) IS NOT TRUE
      AND (e.assigned_run_id = (SELECT t.last_run_id FROM threads t WHERE t.id = e.thread_id AND t.archived_at IS NULL)) IS NOT TRUE
    ORDER BY e.finished_at, e.id
    LIMIT ${batch}::int
    FOR UPDATE OF e SKIP LOCKED
  )
  RETURNING id, finished_at AS "finishedAt"`;

/** Deletes up to `batch` expired entries. Returns them (the latest, by finished_at and id, is the next cursor). */
export const deleteExpiredEntries = (db: Db, retentionDays: number, batch: number, cursor: EntryCursor | null) =>
  db.$queryRaw<EntryCursor[]>(expiredEntriesStatement(retentionDays, batch, cursor));
