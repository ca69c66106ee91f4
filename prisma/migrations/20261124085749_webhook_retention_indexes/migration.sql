-- Retention (WEBHOOK_RETENTION_DAYS): events by when they were written, so the events older than the
-- retention are found without a scan of the outbox (whether one still has a delivery is looked up by
-- webhook_deliveries_event_id_idx).
-- CreateIndex
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");

-- Settled deliveries (succeeded or failed) by when they settled: what retention deletes. Partial:
-- pending deliveries are never deleted and stay out of the index. Written by hand: Prisma's schema
-- language cannot declare a partial index, so prisma/schema.prisma does not list it.
CREATE INDEX "webhook_deliveries_settled_idx" ON "webhook_deliveries"("completed_at") WHERE "status" <> 'pending';
