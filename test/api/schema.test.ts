import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printSortedSchema } from '../../src/graphql/schema.js';
import { loadOperations } from '../../rest-shim/router.js';
import { getSchema } from '../../src/graphql/schema.js';
import { validate } from 'graphql';
import { routes } from '../../rest-shim/routes.js';

describe('schema.graphql', () => {
  it('matches the schema printed from the builder (run `npm run schema:print` when this fails)', () => {
    expect(readFileSync('schema.graphql', 'utf8')).toBe(printSortedSchema());
  });
});

describe('REST shim operations', () => {
  it('every route names an operation, and every operation validates against the schema', () => {
    const operations = loadOperations();
    for (const route of routes) expect(operations.has(route.operation), `${route.method} ${route.path}`).toBe(true);
    for (const [name, operation] of operations) {
      expect(validate(getSchema(), operation.document).map((e) => `${name}: ${e.message}`)).toEqual([]);
    }
  });
});
