-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "description" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "storage" TEXT NOT NULL DEFAULT 'database',
ALTER COLUMN "content" DROP NOT NULL;
