// Records the current contracts as the compatibility baseline (contracts/): the GraphQL SDL and the
// OpenAPI documents of both REST surfaces. test/unit/contracts.test.ts fails on any breaking change
// against this baseline, so run this only deliberately: at a release, or for a breaking change that
// docs/api/compatibility.md allows (a removal after its sunset), and say so in the commit message.
import { writeFileSync } from 'node:fs';
import { getSchema, printSortedSchema } from '../src/graphql/schema.js';
import { buildOpenApi } from '../rest-shim/openapi.js';

const schema = getSchema();
writeFileSync('contracts/schema.graphql', printSortedSchema());
writeFileSync('contracts/openapi-v1.json', `${JSON.stringify(buildOpenApi(schema, 'v1'), null, 1)}\n`);
writeFileSync('contracts/openapi-support.json', `${JSON.stringify(buildOpenApi(schema, 'support'), null, 1)}\n`);
console.log('wrote contracts/schema.graphql, contracts/openapi-v1.json, contracts/openapi-support.json');
