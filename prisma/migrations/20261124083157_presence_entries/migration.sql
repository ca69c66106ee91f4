-- Presence shared by every instance (the schema engine's diff, plus the table's fill factor by hand).
-- A touch every few seconds per tab rewrites its row's last_seen_at; room left in each page lets that
-- update stay on the page (HOT: no index write), and no index covers last_seen_at for the same reason.

-- CreateTable
CREATE TABLE "presence_entries" (
    "workspace_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "participant_id" TEXT NOT NULL,
    "principal_kind" TEXT NOT NULL,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "presence_entries_pkey" PRIMARY KEY ("workspace_id","principal_id","participant_id")
);

ALTER TABLE "presence_entries" SET (fillfactor = 70);
