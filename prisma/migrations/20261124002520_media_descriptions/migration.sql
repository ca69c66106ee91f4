-- CreateTable
CREATE TABLE "media_descriptions" (
    "workspace_id" TEXT NOT NULL,
    "model_key" TEXT NOT NULL,
    "content_sha256" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "media_descriptions_pkey" PRIMARY KEY ("workspace_id","model_key","content_sha256")
);
