// Every mutation records the request that made it: each row sends one mutation over REST with its
// own X-Request-ID and reads the audit rows back through the audit API. The list of mutations comes
// from the schema, so a new mutation fails here until it has a row (or a stated reason). The rows and
// the reasons live with their domain in test/api/fixtures/ (put together, in order, by its index.ts).
import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { AUDIT_ROWS, NO_AUDIT_ROW } from './fixtures/index.js';

let t: TestApp;
beforeAll(async () => {
  // Local environments: the environment rows below make real ones.
  // No webhook retries: the ping the redelivery row needs fails for good at its first attempt.
  // Plain HTTP on loopback: the OAuth row's authorization server.
  t = await startTestApp({ allowLocalEnvironments: true, webhookRetryDelaysMs: [], allowPlainHttpEndpoints: ['127.0.0.1'] });
});
afterAll(async () => {
  await t.stop();
  await made.oauthServer?.close();
});

/** What earlier rows created, for later rows to act on. */
const made: Record<string, any> = {};

/** Mutations that record the request id but cannot be reached from this table, and why (none today). */
const NOT_IN_TABLE: Record<string, string> = {};

describe('X-Request-ID on audit rows', () => {
  it('every mutation of the schema has a row here, or a stated reason', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const mutations = Object.keys((schema.getMutationType() as GraphQLObjectType).getFields());
    const known = new Set([...AUDIT_ROWS.map(([name]) => name), ...Object.keys(NO_AUDIT_ROW), ...Object.keys(NOT_IN_TABLE)]);
    expect(mutations.filter((name) => !known.has(name))).toEqual([]);
    expect([...known].filter((name) => !mutations.includes(name))).toEqual([]);
  });

  for (const [index, [mutation, send]] of AUDIT_ROWS.entries()) {
    it(`${mutation} records the request id`, async () => {
      const requestId = `audit-${index}-${mutation}`;
      const response = await send({ 'x-request-id': requestId }, { t, made });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      const events = await t.rest('GET', '/api/v1/audit-events?limit=100');
      const mine = events.body.items.filter((event: { request_id: string | null }) => event.request_id === requestId);
      expect(mine.length, `${mutation}: no audit row with request id ${requestId}`).toBeGreaterThan(0);
    });
  }

  it("a queued entry's turn is audited for its sender, with the request that delivered it (not the cancel's)", async () => {
    const events = await t.rest('GET', `/api/v1/audit-events?resource_id=${made.promotedRunId}`);
    expect(events.body.items).toEqual([expect.objectContaining({ action: 'create', request_id: 'deliver-queued' })]);
  });
});
