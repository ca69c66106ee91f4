-- DropIndex
DROP INDEX "finding_analysis_findings_workspace_id_analysis_id_finding__idx";
