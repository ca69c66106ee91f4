-- CreateTable
CREATE TABLE "thread_compactions" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "thread_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "covered_messages" INTEGER NOT NULL,
    "covered_digest" TEXT NOT NULL,
    "stubbed_before" INTEGER NOT NULL,
    "summary" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "thread_compactions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "thread_compactions_thread_id_covered_messages_idx" ON "thread_compactions"("thread_id", "covered_messages");
