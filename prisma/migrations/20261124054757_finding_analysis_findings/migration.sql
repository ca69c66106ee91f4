-- CreateTable
CREATE TABLE "finding_analysis_findings" (
    "workspace_id" TEXT NOT NULL,
    "analysis_id" TEXT NOT NULL,
    "finding_id" TEXT NOT NULL,
    "change" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "finding_analysis_findings_pkey" PRIMARY KEY ("analysis_id","finding_id")
);

-- CreateIndex
CREATE INDEX "finding_analysis_findings_workspace_id_analysis_id_finding__idx" ON "finding_analysis_findings"("workspace_id", "analysis_id", "finding_id");

-- Analyses made before this table: each finding is listed under the analysis that last found it
-- (what was recorded then); `change` is `created` for findings never changed since, else `updated`.
INSERT INTO "finding_analysis_findings" ("workspace_id", "analysis_id", "finding_id", "change", "created_at")
SELECT "workspace_id", "analysis_id", "id", CASE WHEN "version" = 1 THEN 'created' ELSE 'updated' END, "updated_at"
FROM "findings"
ON CONFLICT DO NOTHING;
