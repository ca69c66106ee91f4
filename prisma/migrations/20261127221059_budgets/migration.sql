-- CreateTable
CREATE TABLE "budgets" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scope_kind" TEXT NOT NULL,
    "scope_id" TEXT,
    "period" TEXT NOT NULL,
    "limit_cost_picos" DECIMAL(38,0),
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "limit_tokens" DECIMAL(20,0),
    "action" TEXT NOT NULL,
    "notify_at" DOUBLE PRECISION[],
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_by_id" TEXT NOT NULL,
    "updated_by_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "budgets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "budget_periods" (
    "budget_id" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "spent_picos" DECIMAL(38,0) NOT NULL DEFAULT 0,
    "spent_tokens" BIGINT NOT NULL DEFAULT 0,
    "in_flight" INTEGER NOT NULL DEFAULT 0,
    "notified" DOUBLE PRECISION[] DEFAULT ARRAY[]::DOUBLE PRECISION[],
    "exceeded_at" TIMESTAMPTZ(3),

    CONSTRAINT "budget_periods_pkey" PRIMARY KEY ("budget_id","period_start")
);

-- CreateIndex
CREATE INDEX "budgets_workspace_id_id_idx" ON "budgets"("workspace_id", "id");
