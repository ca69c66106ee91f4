-- AlterTable
ALTER TABLE "webhook_subscriptions" ADD COLUMN     "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "disabled_at" TIMESTAMPTZ(3),
ADD COLUMN     "disabled_reason" TEXT,
ADD COLUMN     "labels" JSONB NOT NULL DEFAULT '{}',
ADD COLUMN     "previous_secret_ciphertext" TEXT,
ADD COLUMN     "previous_secret_expires_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "webhook_events" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "subscription_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "event_kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) DEFAULT CURRENT_TIMESTAMP,
    "lease_expires_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "last_latency_ms" INTEGER,
    "attempt_log" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_events_workspace_id_id_idx" ON "webhook_events"("workspace_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_subscription_id_id_idx" ON "webhook_deliveries"("subscription_id", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- Kind-prefixed, ULID-shaped ids made inside a statement: the outbox writes one delivery per
-- subscription that wants an event, in the same statement (and transaction) as the change itself.
CREATE OR REPLACE FUNCTION webhook_new_id(prefix text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  alphabet constant text := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  ms bigint := floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint;
  result text := '';
BEGIN
  FOR i IN REVERSE 9..0 LOOP
    result := result || substr(alphabet, ((ms >> (5 * i)) & 31)::int + 1, 1);
  END LOOP;
  FOR i IN 1..16 LOOP
    result := result || substr(alphabet, floor(random() * 32)::int + 1, 1);
  END LOOP;
  RETURN prefix || '_' || result;
END $$;

-- Pending deliveries by due time: what the deliverers claim.
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries"("next_attempt_at") WHERE "status" = 'pending';

-- The outbox write, called in the transaction (or the statement) of the change an event reports:
-- nothing but one indexed look-up when no enabled subscription of the workspace wants the kind;
-- otherwise the event, one pending delivery per such subscription, and a NOTIFY (sent at commit)
-- that wakes the deliverers. Returns the number of deliveries written.
CREATE OR REPLACE FUNCTION webhook_enqueue(p_workspace text, p_kind text, p_data jsonb) RETURNS integer LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  new_event text;
  queued integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE workspace_id = p_workspace AND enabled AND p_kind = ANY (event_kinds)) THEN
    RETURN 0;
  END IF;
  new_event := webhook_new_id('evt');
  INSERT INTO webhook_events (id, workspace_id, kind, payload, created_at) VALUES (new_event, p_workspace, p_kind, p_data, now());
  INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, event_kind, next_attempt_at, created_at, updated_at)
    SELECT webhook_new_id('whd'), p_workspace, s.id, new_event, p_kind, now(), now(), now()
    FROM webhook_subscriptions s WHERE s.workspace_id = p_workspace AND s.enabled AND p_kind = ANY (s.event_kinds);
  GET DIAGNOSTICS queued = ROW_COUNT;
  PERFORM pg_notify('webhook_deliveries', new_event);
  RETURN queued;
END $$;
