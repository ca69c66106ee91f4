-- CreateTable
CREATE TABLE "run_item_appends" (
    "run_id" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "sequence" BIGINT NOT NULL,
    "member" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,

    CONSTRAINT "run_item_appends_pkey" PRIMARY KEY ("run_id","ordinal","sequence")
);
