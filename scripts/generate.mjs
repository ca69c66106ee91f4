// `npm run generate` (and postinstall): everything src/generated/ holds, none of it kept in the
// repository — the Prisma client and Pothos types (scripts/prisma-generate.mjs), then the protocol
// adapters' typed documents (scripts/protocol-codegen.ts, from schema.graphql and
// src/protocols/operations/). An install without the development tools skips the second, as
// prisma-generate.mjs skips without the Prisma CLI: such an install does not build the service.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (args) => spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;

const prisma = run(['scripts/prisma-generate.mjs']);
if (prisma !== 0) process.exit(prisma);
if (!existsSync('node_modules/tsx') || !existsSync('node_modules/@graphql-codegen/core')) {
  console.log('tsx or GraphQL codegen not installed; skipping the protocol documents');
  process.exit(0);
}
process.exit(run(['--import', 'tsx', 'scripts/protocol-codegen.ts']));
