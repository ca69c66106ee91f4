// The console reads every answer through the typed documents generated from its own operations
// (console/src/graphql/*.graphql) and the service's schema.graphql. A stale generated module would let
// a page compile against fields its document no longer selects, or miss a schema change: it must be
// exactly what `npm run codegen` writes now.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONSOLE_GENERATED, generateConsoleDocuments } from '../../console/scripts/codegen.js';

describe('the console typed documents', () => {
  it('are generated from the current schema.graphql and console/src/graphql (npm run codegen)', async () => {
    // A boolean, not the two texts: a stale module's diff is thousands of characters of document JSON.
    const current = readFileSync(CONSOLE_GENERATED, 'utf8') === (await generateConsoleDocuments());
    expect(current, 'console/generated/graphql.ts is stale: run npm run codegen').toBe(true);
  });

  it('name every console operation Console…, so the service logs tell its requests apart', () => {
    const generated = readFileSync(CONSOLE_GENERATED, 'utf8');
    const operations = [...generated.matchAll(/"operation":"\w+","name":\{"kind":"Name","value":"(\w+)"\}/g)].map((match) => match[1]);
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter((name) => !name?.startsWith('Console'))).toEqual([]);
  });
});
