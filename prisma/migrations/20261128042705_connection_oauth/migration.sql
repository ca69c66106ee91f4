-- AlterTable
ALTER TABLE "connections" ADD COLUMN     "oauth_ciphertext" TEXT,
ADD COLUMN     "oauth_expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "oauth_status" TEXT,
ADD COLUMN     "oauth_status_reason" TEXT;

-- CreateTable
CREATE TABLE "connection_oauth_states" (
    "state_hash" TEXT NOT NULL,
    "connection_id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "pending_ciphertext" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connection_oauth_states_pkey" PRIMARY KEY ("state_hash")
);

-- CreateIndex
CREATE INDEX "connection_oauth_states_connection_id_idx" ON "connection_oauth_states"("connection_id");

-- CreateIndex
CREATE INDEX "connection_oauth_states_expires_at_idx" ON "connection_oauth_states"("expires_at");
