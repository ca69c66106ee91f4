-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "trace_id" TEXT,
ADD COLUMN     "trace_parent_span_id" TEXT;

-- CreateTable
CREATE TABLE "trace_spans" (
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "parent_span_id" TEXT,
    "workspace_id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "attributes" JSONB NOT NULL DEFAULT '{}',
    "events" JSONB NOT NULL DEFAULT '[]',
    "links" JSONB NOT NULL DEFAULT '[]',
    "status_code" TEXT NOT NULL DEFAULT 'unset',
    "status_message" TEXT,
    "start_time" TIMESTAMPTZ(3) NOT NULL,
    "start_time_unix_nano" BIGINT NOT NULL,
    "end_time_unix_nano" BIGINT NOT NULL,

    CONSTRAINT "trace_spans_pkey" PRIMARY KEY ("trace_id","span_id")
);

-- CreateIndex
CREATE INDEX "trace_spans_run_id_start_time_unix_nano_idx" ON "trace_spans"("run_id", "start_time_unix_nano");

-- CreateIndex
CREATE INDEX "trace_spans_workspace_id_start_time_idx" ON "trace_spans"("workspace_id", "start_time");

-- CreateIndex
CREATE INDEX "trace_spans_workspace_id_agent_id_start_time_idx" ON "trace_spans"("workspace_id", "agent_id", "start_time");

-- AddForeignKey
ALTER TABLE "trace_spans" ADD CONSTRAINT "trace_spans_run_id_fkey" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateIndex
CREATE INDEX "runs_workspace_id_trace_id_idx" ON "runs"("workspace_id", "trace_id");

-- CreateIndex
CREATE INDEX "trace_spans_start_time_idx" ON "trace_spans"("start_time");
