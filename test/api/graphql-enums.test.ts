// The closed sets are GraphQL enums whose values are the spec's lowercase strings: introspection
// lists them, a value outside the set is refused before any resolver runs (400 invalid_argument
// naming the field, the message the services gave before), in a variable and in a literal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { RUN_STATUSES, WAIT_REASONS } from '../../src/features/runs/run-lifecycle.js';
import { DELIVERIES } from '../../src/features/runs/run-plan.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.stop();
});

describe('enums', () => {
  it('carry the spec’s own lowercase values', async () => {
    const { data } = await t.graphql(`{
      status: __type(name: "RunStatus") { kind enumValues { name } }
      reason: __type(name: "WaitReason") { enumValues { name } }
      delivery: __type(name: "InboxDeliveryMode") { enumValues { name } }
      run: __type(name: "Run") { fields { name type { name ofType { name } } } }
    }`);
    expect(data.status.kind).toBe('ENUM');
    expect(data.status.enumValues.map((v: { name: string }) => v.name).sort()).toEqual([...RUN_STATUSES].sort());
    expect(data.reason.enumValues.map((v: { name: string }) => v.name).sort()).toEqual([...WAIT_REASONS].sort());
    expect(data.delivery.enumValues.map((v: { name: string }) => v.name).sort()).toEqual([...DELIVERIES].sort());
    const typeOf = (name: string) => {
      const field = data.run.fields.find((f: { name: string }) => f.name === name);
      return field.type.name ?? field.type.ofType.name;
    };
    expect([typeOf('status'), typeOf('waitReason'), typeOf('trigger'), typeOf('lineage'), typeOf('revisionSelection')]).toEqual([
      'RunStatus',
      'WaitReason',
      'RunTrigger',
      'RunLineage',
      'RevisionSelection',
    ]);
  });

  it('a variable outside its enum is 400 invalid_argument naming the field, with the set in the message', async () => {
    const response = await t.graphql('query($status: [RunStatus!]) { runs(status: $status) { nodes { id status } } }', {
      status: ['completed', 'bogus'],
    });
    expect(response.status).toBe(400);
    expect(response.errors![0]).toMatchObject({
      message: `status must be one of ${RUN_STATUSES.join(', ')}`,
      extensions: { code: 'invalid_argument', details: { field: 'status' } },
    });
    const nested = await t.graphql('mutation($input: DeliverInput!) { deliverToInbox(threadId: "thr_x", input: $input) { waited } }', {
      input: { payload: { content: [] }, delivery: 'later' },
    });
    expect(nested.errors![0]).toMatchObject({
      message: `delivery must be one of ${DELIVERIES.join(', ')}`,
      extensions: { code: 'invalid_argument', details: { field: 'delivery' } },
    });
  });

  it('a literal outside its enum fails validation; a valid one filters', async () => {
    const literal = await t.graphql('{ runs(status: [bogus]) { nodes { id } } }');
    expect(literal.status).toBe(400);
    expect(literal.errors![0]!.extensions).toMatchObject({ code: 'invalid_argument' });
    const valid = await t.graphql('{ runs(status: [waiting, completed]) { nodes { id status } } }');
    expect(valid.errors).toBeUndefined();
    expect(valid.data.runs.nodes).toEqual([]);
  });
});
