// Runs `prisma generate` without the schema-engine download.
// The Prisma CLI insists on resolving a schema-engine binary before it generates, even though
// generation itself never executes it. That binary is fetched from a host many deployments (and this
// project's CI) cannot reach, so we point PRISMA_SCHEMA_ENGINE_BINARY at an existing executable.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const prismaCli = 'node_modules/prisma/build/index.js';
if (!existsSync(prismaCli)) {
  console.log('prisma CLI not installed yet; skipping generate');
  process.exit(0);
}
const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
// Generators such as prisma-pothos-types are resolved from node_modules/.bin.
env.PATH = `${join(process.cwd(), 'node_modules', '.bin')}${delimiter}${env.PATH ?? ''}`;
env.CHECKPOINT_DISABLE = '1';
const result = spawnSync(process.execPath, [prismaCli, 'generate'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
