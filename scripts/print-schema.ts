// Writes schema.graphql: the SDL printed from the Pothos builder, sorted. Committed; a test
// fails when it is stale, so run `npm run schema:print` after changing the schema.
import { writeFileSync } from 'node:fs';
import { printSortedSchema } from '../src/graphql/schema.js';

writeFileSync('schema.graphql', printSortedSchema());
console.log('wrote schema.graphql');
