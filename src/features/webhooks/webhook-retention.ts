// Webhook retention (WEBHOOK_RETENTION_DAYS): settled deliveries and the events they leave behind are
// deleted once they are older than the retention; the run workers' maintenance calls these (see
// src/engine/worker.ts). Retention is global: every workspace's rows follow the same rule.
//
// Each statement deletes at most `batch` rows, so a long backlog is cleared over several statements
// without one long lock. Both are served by indexes (see the migration that adds
// `webhook_deliveries_settled_idx` and `webhook_events_created_at_idx`): settled deliveries by when
// they settled, events by when they were written, and an event's deliveries by `event_id`.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

/**
 * The statement deleting up to `batch` deliveries that settled (succeeded, or failed for good) more
 * than `retentionDays` ago. Pending deliveries — still to be attempted or retried — are never
 * deleted, whatever their age.
 *
 * The rows are locked with SKIP LOCKED: a delivery a redelivery holds is left for a later pass, and
 * one a redelivery made pending after the statement began is not deleted (the lock reads the row
 * again and checks its condition).
 */
export const expiredDeliveriesStatement = (retentionDays: number, batch: number) => Prisma.sql`
  DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM webhook_deliveries
    WHERE status <> 'pending' AND completed_at < now() - make_interval(days => ${retentionDays}::int)
    LIMIT ${batch}::int
    FOR UPDATE SKIP LOCKED
  )`;

/**
 * The statement deleting up to `batch` events written more than `retentionDays` ago that have no
 * delivery left (theirs were deleted by retention, or with their subscription). An event with any
 * delivery, pending or recent, stays: its attempts carry its id and body.
 */
export const expiredEventsStatement = (retentionDays: number, batch: number) => Prisma.sql`
  DELETE FROM webhook_events WHERE id IN (
    SELECT e.id FROM webhook_events e
    WHERE e.created_at < now() - make_interval(days => ${retentionDays}::int)
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
    LIMIT ${batch}::int
    FOR UPDATE SKIP LOCKED
  )`;

/** Deletes up to `batch` expired settled deliveries. Returns how many went. */
export const deleteExpiredDeliveries = (db: Db, retentionDays: number, batch = 5_000): Promise<number> =>
  db.$executeRaw(expiredDeliveriesStatement(retentionDays, batch));

/** Deletes up to `batch` expired events with no delivery left. Returns how many went. */
export const deleteExpiredEvents = (db: Db, retentionDays: number, batch = 5_000): Promise<number> =>
  db.$executeRaw(expiredEventsStatement(retentionDays, batch));
