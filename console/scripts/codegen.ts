// Generates console/generated/graphql.ts — the console's typed documents — from the service's
// schema.graphql and the console's operations in console/src/graphql/*.graphql, with the client
// package's codegen settings. It lives beside console/src rather than in it: it is machine output,
// and the documents it carries at run time are exactly those of console/src/graphql, which the
// console build's source digest already covers. `npm run codegen` writes it; test/unit/console-codegen.test.ts fails when
// it is stale, and `npm run typecheck` fails when a page reads a field its document does not select.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypedDocuments } from '../../client/scripts/codegen.js';

const consoleDir = join(fileURLToPath(import.meta.url), '..', '..');
export const CONSOLE_GENERATED = join(consoleDir, 'generated', 'graphql.ts');
const CONSOLE_DOCUMENTS = join(consoleDir, 'src', 'graphql');

/** The generated module's text for the current schema.graphql and console documents. */
export function generateConsoleDocuments(): Promise<string> {
  return generateTypedDocuments(CONSOLE_DOCUMENTS, 'console/src/graphql', 'schema.graphql and console/src/graphql/');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(CONSOLE_GENERATED, await generateConsoleDocuments());
  console.log(`wrote ${CONSOLE_GENERATED}`);
}
