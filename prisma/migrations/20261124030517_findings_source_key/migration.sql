-- AlterTable
ALTER TABLE "finding_analyses" ALTER COLUMN "run_status" DROP NOT NULL,
ALTER COLUMN "run_status" DROP DEFAULT;

-- CreateIndex
CREATE UNIQUE INDEX "findings_workspace_id_agent_id_source_key_key" ON "findings"("workspace_id", "agent_id", "source_key");
