-- CreateTable
CREATE TABLE "usage_records" (
    "run_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "model_key" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "principal_id" TEXT NOT NULL,
    "sealed_at" TIMESTAMPTZ(3) NOT NULL,
    "requests" INTEGER NOT NULL,
    "input_tokens" BIGINT NOT NULL,
    "output_tokens" BIGINT NOT NULL,
    "cached_input_tokens" BIGINT NOT NULL,
    "reasoning_tokens" BIGINT NOT NULL,
    "cost_picos" DECIMAL(38,0) NOT NULL,
    "currency" TEXT,
    "complete" BOOLEAN NOT NULL,

    CONSTRAINT "usage_records_pkey" PRIMARY KEY ("run_id","attempt","model_key")
);

-- CreateIndex
CREATE INDEX "usage_records_workspace_id_sealed_at_idx" ON "usage_records"("workspace_id", "sealed_at");

-- CreateIndex
CREATE INDEX "usage_records_workspace_id_agent_id_sealed_at_idx" ON "usage_records"("workspace_id", "agent_id", "sealed_at");

-- CreateIndex
CREATE INDEX "usage_records_workspace_id_model_key_sealed_at_idx" ON "usage_records"("workspace_id", "model_key", "sealed_at");
