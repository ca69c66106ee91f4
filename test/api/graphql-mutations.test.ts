// Mutations over HTTP GraphQL: every mutation answers a payload object named after it and takes its
// arguments as scalars or input objects (no loose JSON arguments); payloads carry the changed object
// under a member named after it and keep the extra members a result has (a delivery's entry, run,
// thread and `waited`); errors keep `extensions.code`.
import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
const message = (text: string) => ({ content: [{ type: 'text', text }] });

async function graphqlOk(query: string, variables: Record<string, unknown> = {}) {
  const response = await t.graphql(query, variables);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data;
}

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  await insertModel(t, 'main');
});
afterAll(async () => {
  await t?.stop();
});

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
/** A browser's push subscription keys (a P-256 public key and a 16-byte secret). */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}
const named = (type: TypeRef): TypeRef => (type.ofType ? named(type.ofType) : type);

describe('the mutation surface', () => {
  it('answers a non-null `<Mutation>Payload` object from every mutation, and takes no loose JSON argument', async () => {
    const typeRef = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
    const data = await graphqlOk(`{ __schema { mutationType { fields { name type { ${typeRef} } args { name type { ${typeRef} } } } } } }`);
    const fields = data.__schema.mutationType.fields as { name: string; type: TypeRef; args: { name: string; type: TypeRef }[] }[];
    expect(fields.length).toBeGreaterThan(40);
    for (const field of fields) {
      const payload = `${field.name[0]!.toUpperCase()}${field.name.slice(1)}Payload`;
      expect(field.type, field.name).toMatchObject({ kind: 'NON_NULL', ofType: { kind: 'OBJECT', name: payload } });
      for (const arg of field.args) expect(named(arg.type).name, `${field.name}(${arg.name})`).not.toBe('JSON');
    }
  });
});

describe('payloads', () => {
  it('carry the changed object under its name, with its relations, and keep extensions.code on errors', async () => {
    const created = await graphqlOk(
      `mutation ($input: CreateAgentInput!) { createAgent(input: $input) { agent { id name defaultRevision { number } } } }`,
      { input: { name: 'Paid', config: { model: 'main' } } },
    );
    expect(created.createAgent.agent).toMatchObject({ name: 'Paid', defaultRevision: { number: 1 } });
    const refused = await t.graphql(`mutation { createAgent(input: { name: "No model", config: {} }) { agent { id } } }`);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'config.model' } });
    // The literal is refused by its document scalar while the document is validated: nothing executes, so there is no data.
    expect(refused.data).toBeUndefined();

    const started = await graphqlOk(
      `mutation ($input: StartRunInput!) { startRun(input: $input, wait: 30) { run { id status agent { name } thread { id } } } }`,
      { input: { agentId: created.createAgent.agent.id, input: message('hi') } },
    );
    expect(started.startRun.run).toMatchObject({ status: 'completed', agent: { name: 'Paid' } });

    // A delivery's payload keeps its members (waited, entry, run, thread); the REST views select them with a fragment on the interface.
    const delivered = await graphqlOk(
      `mutation ($thread: ID!, $input: DeliverInput!) {
        deliverToInbox(threadId: $thread, input: $input, wait: 30) {
          __typename waited entry { id assignedRun { id } } run { id status } thread { id }
          ... on InboxDelivery { thread { currentRunId } }
        }
      }`,
      { thread: started.startRun.run.thread.id, input: { payload: message('more') } },
    );
    const payload = delivered.deliverToInbox;
    expect(payload).toMatchObject({ __typename: 'DeliverToInboxPayload', waited: true, run: { status: 'completed' } });
    expect(payload.entry.assignedRun).toEqual({ id: payload.run.id });
    // The thread as the delivery committed it: the entry's run is its current run.
    expect(payload.thread).toEqual({ id: started.startRun.run.thread.id, currentRunId: payload.run.id });
  });

  it('resumeRun takes ResumeRunInput; a second resume is a conflict, and the first successor is the run’s resumedBy', async () => {
    const agent = await graphqlOk(`mutation ($input: CreateAgentInput!) { createAgent(input: $input) { agent { id } } }`, {
      input: {
        name: 'Pauses',
        config: {
          model: 'main',
          model_settings: { script: [[{ tool_call: { id: 'call_1', name: 'pick' } }], [{ text: 'picked' }]] },
          client_tools: [{ name: 'pick' }],
        },
      },
    });
    const started = await graphqlOk(`mutation ($input: StartRunInput!) { startRun(input: $input) { run { id } } }`, {
      input: { agentId: agent.createAgent.agent.id, input: message('pick') },
    });
    const waiting = await settleRun(t, started.startRun.run.id);
    expect(waiting.status).toBe('waiting');

    const resume = `mutation ($id: ID!, $key: String, $input: ResumeRunInput!) {
      resumeRun(runId: $id, idempotencyKey: $key, input: $input, wait: 30) { run { id status lineage output parent { id } } }
    }`;
    const answers = { calls: { call_1: { status: 'returned', value: 'a' } } };
    const resumed = await graphqlOk(resume, { id: waiting.id, key: 'first', input: answers });
    expect(resumed.resumeRun.run).toMatchObject({ status: 'completed', lineage: 'resume', output: 'picked', parent: { id: waiting.id } });

    const again = await t.graphql(resume, { id: waiting.id, key: 'second', input: answers });
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: 'conflict' });
    // What a client does with the conflict: read the successor through the relation.
    const successor = await graphqlOk(`query ($id: ID!) { run(id: $id) { resumedBy { id status } } }`, { id: waiting.id });
    expect(successor.run.resumedBy).toEqual({ id: resumed.resumeRun.run.id, status: 'completed' });
  });

  it('answers flags under a named member (logout, deletions)', async () => {
    const subscription = await graphqlOk(
      `mutation ($input: PushSubscriptionInput!) { upsertPushSubscription(input: $input) { subscription { id } } }`,
      {
        input: {
          endpoint: 'https://push.example.test/send/payloads',
          keys: browserKeys(),
        },
      },
    );
    const deleted = await graphqlOk(`mutation ($id: String!) { deletePushSubscription(id: $id) { deleted } }`, {
      id: subscription.upsertPushSubscription.subscription.id,
    });
    expect(deleted.deletePushSubscription).toEqual({ deleted: true });
  });
});
