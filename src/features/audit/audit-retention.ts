// Audit retention (AUDIT_RETENTION_DAYS, 365 by default, 0 keeps the trail forever): audit rows older
// than the retention are deleted, in batches, through `audit_events_created_at_idx`. Every workspace's
// rows follow the same rule.
import { Prisma } from '../../generated/prisma/client.js';
import type { Db } from '../../db.js';

/** The statement deleting up to `batch` audit rows written more than `retentionDays` ago. */
export const expiredAuditStatement = (retentionDays: number, batch: number) => Prisma.sql`
  DELETE FROM audit_events WHERE id IN (
    SELECT id FROM audit_events
    WHERE created_at < now() - make_interval(days => ${retentionDays}::int)
    LIMIT ${batch}::int
  )`;

/** Deletes up to `batch` expired audit rows. Returns how many went. */
export const deleteExpiredAudit = (db: Db, retentionDays: number, batch: number): Promise<number> =>
  db.$executeRaw(expiredAuditStatement(retentionDays, batch));
