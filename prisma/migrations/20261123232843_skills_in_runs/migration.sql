-- A skill now appears at most once per agent revision (configurations naming one twice are refused),
-- so the key becomes (revision, skill). Rows written before, pinning two revisions of one skill in one
-- agent revision, keep the smallest revision id.
DELETE FROM "agent_revision_skills" a USING "agent_revision_skills" b
WHERE a."revision_id" = b."revision_id" AND a."skill_id" = b."skill_id" AND a."skill_revision_id" > b."skill_revision_id";

-- AlterTable
ALTER TABLE "agent_revision_skills" DROP CONSTRAINT "agent_revision_skills_pkey",
ALTER COLUMN "skill_revision_id" DROP NOT NULL,
ADD CONSTRAINT "agent_revision_skills_pkey" PRIMARY KEY ("revision_id", "skill_id");

-- AlterTable
ALTER TABLE "runs" ADD COLUMN     "resolved_skills" JSONB;
