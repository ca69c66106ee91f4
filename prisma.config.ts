// Prisma 7 reads its configuration here. The connection URL is only needed by CLI commands that
// talk to a database (e.g. `prisma migrate status`); the service builds its own connection.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/unused' },
});
