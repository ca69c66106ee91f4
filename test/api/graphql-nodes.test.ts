// Relay object identification over HTTP GraphQL: every main type is a `Node` whose global id is its
// id (models: `mdl_<workspace>:<key>`); `node(id)` finds it; another workspace's id, an unknown id and
// a malformed one all answer null alike; `nodes(ids)` keeps the order with nulls in place and loads
// with one query per type; a caller without `read` gets 403-style `permission_denied`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
/** A second instance on the same database without run workers: nothing in the background adds queries to its count. */
let quiet: TestApp;
let otherKey: string;
/** One id of each node type in the test app's workspace, by type name. */
const ids: Record<string, string> = {};
/** Ids of the other workspace (its key finds them). */
const foreign: Record<string, string> = {};
const input = { content: [{ type: 'text', text: 'hello' }] };

async function graphqlOk(query: string, variables: Record<string, unknown> = {}, token?: string) {
  const response = await t.graphql(query, variables, token === undefined ? {} : { token });
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data;
}

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherKey = other.apiKey.token;

  const model = await insertModel(t, 'main');
  const agent = (await t.rest('POST', '/api/v1/agents', { body: { name: 'Noder', config: { model: 'main' } } })).body;
  const skill = (await t.rest('POST', '/api/v1/skills', { body: { name: 'Skill', content: { name: 'skill', instructions: 'x' } } })).body;
  const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Notes' } })).body;
  const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
  const delivered = (await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: agent.id, payload: input } })).body;
  const run = await settleRun(t, delivered.run.id);
  expect(run.status).toBe('completed');
  const items = await graphqlOk(`query ($id: ID!) { runItems(runId: $id) { items { id } } }`, { id: run.id });
  const modelId = (await graphqlOk(`{ model(key: "main") { id } }`)).model.id;
  Object.assign(ids, {
    Run: run.id,
    RunItem: items.runItems.items[0].id,
    Thread: thread.id,
    Session: thread.session_id,
    InboxEntry: delivered.entry.id,
    Agent: agent.id,
    AgentRevision: agent.default_revision_id,
    Skill: skill.id,
    SkillRevision: skill.default_revision_id,
    Provider: model.providerId,
    Model: modelId,
    Memory: memory.id,
  });

  const otherModel = await insertModel(t, 'main', { workspaceId: other.workspace.id });
  const otherThread = (await t.rest('POST', '/api/v1/threads', { token: otherKey, body: {} })).body;
  const otherMemory = (await t.rest('POST', '/api/v1/memories', { token: otherKey, body: { name: 'B notes' } })).body;
  Object.assign(foreign, {
    Thread: otherThread.id,
    Session: otherThread.session_id,
    Memory: otherMemory.id,
    Provider: otherModel.providerId,
    Model: (await graphqlOk(`{ model(key: "main") { id } }`, {}, otherKey)).model.id,
  });
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
});

describe('node(id)', () => {
  it('finds an object of every node type by its global id, which is its id', async () => {
    expect(Object.keys(ids)).toHaveLength(12);
    for (const [typename, id] of Object.entries(ids)) {
      const data = await graphqlOk(`query ($id: ID!) { node(id: $id) { __typename id } }`, { id });
      expect(data.node, typename).toEqual({ __typename: typename, id });
    }
  });

  it('answers the same object the type’s own query answers', async () => {
    const data = await graphqlOk(
      `query ($run: ID!, $entry: ID!, $thread: ID!, $revision: ID!, $model: ID!) {
        run: node(id: $run) { ... on Run { status threadId etag } }
        entry: node(id: $entry) { ... on InboxEntry { threadId assignedRunId threadEtag } }
        revision: node(id: $revision) { ... on AgentRevision { agentId number config { model } } }
        model: node(id: $model) { ... on Model { key providerId etag } }
        ownModel: model(key: "main") { key providerId etag }
        ownRun: run(id: $run) { status threadId etag }
        ownEntry: inboxEntry(threadId: $thread, entryId: $entry) { threadId assignedRunId threadEtag }
      }`,
      { run: ids.Run, entry: ids.InboxEntry, thread: ids.Thread, revision: ids.AgentRevision, model: ids.Model },
    );
    expect(data.run).toEqual(data.ownRun);
    expect(data.entry).toEqual(data.ownEntry);
    expect(data.revision).toMatchObject({ agentId: ids.Agent, number: 1, config: { model: 'main' } });
    expect(data.model).toEqual(data.ownModel);
    expect(data.model).toMatchObject({ key: 'main', providerId: ids.Provider });
  });

  it('REST ids and GraphQL ids are the same strings (the REST views are unchanged)', async () => {
    const rest = (await t.rest('GET', `/api/v1/runs/${ids.Run}`)).body;
    expect(rest.id).toBe(ids.Run);
    const data = await graphqlOk(`query ($id: ID!) { run(id: $id) { id agentId } }`, { id: ids.Run });
    expect(data.run).toEqual({ id: rest.id, agentId: rest.agent_id });
    // Every `…Id` field is a global id too: `node` follows it.
    const agent = await graphqlOk(`query ($id: ID!) { node(id: $id) { __typename } }`, { id: data.run.agentId });
    expect(agent.node).toEqual({ __typename: 'Agent' });
  });

  it('answers null for another workspace’s object, an unknown id and a malformed one, alike', async () => {
    const unknown = ['run_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'thr_01ARZ3NDEKTSV4RRFFQ69G5FAV', `mdl_${t.workspaceId}:absent`];
    const malformed = [
      '',
      'nope',
      'run_1',
      'run_01arz3ndektsv4rrffq69g5fav',
      t.workspaceId,
      'UnVuOnJ1bl8x',
      `mdl_${t.workspaceId}:Bad_Key`,
      'x'.repeat(256),
    ];
    for (const id of [...Object.values(foreign), ...unknown, ...malformed]) {
      const response = await t.graphql(`query ($id: ID!) { node(id: $id) { __typename id } }`, { id });
      expect(response, id.slice(0, 80)).toEqual({ status: 200, data: { node: null }, errors: undefined });
    }
    // Longer than any id: refused by the input rules before it is read, as every ID argument is.
    const long = await t.graphql(`query ($id: ID!) { node(id: $id) { id } }`, { id: 'x'.repeat(257) });
    expect(long.status).toBe(400);
    expect(long.errors![0]!.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'id' } });
    // The other workspace's own key finds them: they exist.
    for (const [typename, id] of Object.entries(foreign)) {
      const data = await graphqlOk(`query ($id: ID!) { node(id: $id) { __typename id } }`, { id }, otherKey);
      expect(data.node, typename).toEqual({ __typename: typename, id });
    }
  });

  it('needs `read`: a caller without it gets permission_denied, before any id is looked at', async () => {
    const runOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'run' })).token;
    for (const query of [
      `{ node(id: "${ids.Run}") { id } }`,
      `{ node(id: "nope") { id } }`,
      `{ nodes(ids: ["${ids.Run}", "nope"]) { id } }`,
    ]) {
      const response = await t.graphql(query, {}, { token: runOnly });
      expect(response.errors, query).toHaveLength(1);
      expect(response.errors![0]!.extensions, query).toMatchObject({ code: 'permission_denied', details: { permission: 'read' } });
      expect(response.data?.node ?? response.data?.nodes ?? null, query).toBeNull();
    }
  });
});

describe('nodes(ids)', () => {
  it('keeps the order of the ids, with null in place of each it cannot answer', async () => {
    const asked = [
      ids.Thread,
      'nope',
      foreign.Memory,
      ids.Run,
      ids.Thread,
      ids.Model,
      foreign.Model,
      'run_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      ids.Memory,
    ];
    const data = await graphqlOk(`query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`, { ids: asked });
    expect(data.nodes).toEqual([
      { __typename: 'Thread', id: ids.Thread },
      null,
      null,
      { __typename: 'Run', id: ids.Run },
      { __typename: 'Thread', id: ids.Thread },
      { __typename: 'Model', id: ids.Model },
      null,
      null,
      { __typename: 'Memory', id: ids.Memory },
    ]);
  });

  it('loads with one query per type, however many ids of each', async () => {
    // Several ids of some types: a second thread and session, every item of the run, the other workspace's ids.
    const thread = (await quiet.rest('POST', '/api/v1/threads', { body: {} })).body;
    const second = await graphqlOk(`query ($id: ID!) { runItems(runId: $id) { items { id } } }`, { id: ids.Run });
    const asked = [
      ...Object.values(ids),
      thread.id,
      thread.session_id,
      ...second.runItems.items.map((item: { id: string }) => item.id),
      ...Object.values(foreign),
      'nope',
    ];
    const query = `query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`;
    const counted = async (asking: string[]) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.graphql(query, { ids: asking });
      expect(response.errors).toBeUndefined();
      return { nodes: response.data.nodes as unknown[], used: quiet.app.database.operationCount() - before };
    };
    await counted([ids.Run!]); // the caller's credential is remembered from here on
    const one = await counted([ids.Run!]);
    const all = await counted(asked);
    expect(all.nodes.filter(Boolean)).toHaveLength(Object.keys(ids).length + 2 + second.runItems.items.length);
    // One statement for the one run; every other of the twelve types adds one at most, whatever the number of its ids.
    expect(one.used).toBe(1);
    expect(all.used).toBeLessThanOrEqual(one.used + 11);
  });

  it(`takes at most 100 ids (400 invalid_argument naming ids)`, async () => {
    const response = await t.graphql(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: Array.from({ length: 101 }, () => ids.Run),
    });
    expect(response.errors![0]!.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'ids' } });
  });
});
