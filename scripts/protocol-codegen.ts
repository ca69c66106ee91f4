// Generates src/generated/protocol-documents.ts — the protocol adapters' typed documents — from the
// service's schema.graphql and the adapters' operations in src/protocols/operations/*.graphql, with the
// client package's codegen settings. The adapters read every answer through these types: a document
// is written once, and a field it does not select does not compile. Like the Prisma client it is
// machine output kept out of the repository (src/generated/ is ignored): `npm run generate` and
// `npm run codegen` write it, so it always matches the schema and the documents it was made from.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTypedDocuments } from '../client/scripts/codegen.js';

const root = join(fileURLToPath(import.meta.url), '..', '..');
export const PROTOCOL_DOCUMENTS = join(root, 'src', 'generated', 'protocol-documents.ts');
const OPERATIONS = join(root, 'src', 'protocols', 'operations');

/** The generated module's text for the current schema.graphql and protocol operations. */
export function generateProtocolDocuments(): Promise<string> {
  return generateTypedDocuments(OPERATIONS, 'src/protocols/operations', 'schema.graphql and src/protocols/operations/');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(dirname(PROTOCOL_DOCUMENTS), { recursive: true });
  writeFileSync(PROTOCOL_DOCUMENTS, await generateProtocolDocuments());
  console.log(`wrote ${PROTOCOL_DOCUMENTS}`);
}
