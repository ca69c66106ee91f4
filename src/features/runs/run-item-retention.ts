// Run-item retention (RUN_ITEM_RETENTION_DAYS): the items of sealed runs are removed once the run
// sealed longer ago than the retention, in two steps that are each bounded:
//
// 1. Marking: a batch of eligible runs (oldest seal first) gets `items_removed_at` and a row in
//    `run_data_purges`, in one statement. From then on the run's items answer as removed
//    (docs/api/runs.md, "Retention"), whatever rows are still stored.
// 2. Purging: the rows of the queued runs are deleted from every per-run table in batches of at most
//    `batch` rows, and a queued run leaves the queue once none of its rows is left.
//
// The run itself stays (its output, usage, lineage), and so does its thread's history: what a resume or
// a fork reads is on the run and the thread, never in the items.
//
// Which runs keep their items whatever their age (the protection):
// - a waiting run nobody resumed yet (`waiting`, no `resumed_by_id`): a client can still resume it and
//   renders what it waits for from its items — also in an archived thread, since a resume is accepted there;
// - the latest run of an open thread (`threads.last_run_id`): a client reopening the conversation sees
//   its last exchange. Archiving the thread lifts this protection.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

// Step 1 writes the runs table, so it lives with every other write of a run, in the run lifecycle.
export { markExpiredRuns, markExpiredRunsStatement, type MarkCursor } from './run-lifecycle.js';

/**
 * The tables that hold rows per run which retention removes with the run's items: each has a
 * `run_id` column and an index that starts with it. A new per-run table joins retention by one line
 * here. Stored appends of streamed text are deleted when their item ends; an attempt that died leaves
 * some until the next attempt closes its items, so they are listed too.
 */
export const RUN_DATA_TABLES = ['run_items', 'run_item_appends'] as const;

/**
 * The statement deleting up to `batch` rows of `table` that belong to queued runs. The rows are
 * named by their physical address (`ctid = ANY(ARRAY(…))`: a TID scan), so any per-run table works
 * without knowing its key. Each queued run's rows are read through the table's `run_id` index (a
 * LATERAL per queued run: a plain join could be planned as a hash join over the whole table when the
 * queue's statistics say it is empty — bench:retention saw that cost grow with the table).
 */
export const purgeStatement = (table: (typeof RUN_DATA_TABLES)[number], batch: number) => Prisma.sql`
  DELETE FROM ${Prisma.raw(table)} WHERE ctid = ANY(ARRAY(
    SELECT d.ctid FROM run_data_purges q
    CROSS JOIN LATERAL (SELECT ctid FROM ${Prisma.raw(table)} WHERE run_id = q.run_id LIMIT ${batch}::int) d
    LIMIT ${batch}::int
  ))`;

/**
 * The statement taking up to `batch` runs out of the queue that have no row left in any per-run table.
 * Each check is a scalar subquery per queued run, so it stays an index probe: as a join the planner
 * may hash the whole table when the (small, rarely analysed) queue looks empty to it.
 */
export const finishPurgesStatement = (batch: number) => Prisma.sql`
  DELETE FROM run_data_purges WHERE run_id IN (
    SELECT q.run_id FROM run_data_purges q
    WHERE ${Prisma.join(
      RUN_DATA_TABLES.map((table) => Prisma.sql`(SELECT d.run_id FROM ${Prisma.raw(table)} d WHERE d.run_id = q.run_id LIMIT 1) IS NULL`),
      ' AND ',
    )}
    LIMIT ${batch}::int
  )`;

/** Deletes up to `batch` rows of one per-run table of the queued runs (step 2). Returns how many went. */
export const purgeBatch = (db: Db, table: (typeof RUN_DATA_TABLES)[number], batch: number): Promise<number> =>
  db.$executeRaw(purgeStatement(table, batch));

/** Takes the runs whose rows are all gone out of the queue. Returns how many left it. */
export const finishPurges = (db: Db, batch: number): Promise<number> => db.$executeRaw(finishPurgesStatement(batch));
