// Single-valued relations over HTTP GraphQL: a run's agent, revision, thread, session, parent and
// successor; a thread's session and current run; the default revisions of agents and skills; a
// model's provider; an inbox entry's run; an audit event's principal (user or API key, never a
// secret). Each relation is read with one statement per level however many rows ask for it (counted
// on an instance without workers), and nothing outside the caller's workspace is ever answered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createUser, createWorkspace } from '../../src/features/access/admin.js';
import { newId } from '../../src/lib/ids.js';

let t: TestApp;
/** A second instance on the same database without run workers: nothing in the background adds statements to its count. */
let quiet: TestApp;
const message = (text: string) => ({ content: [{ type: 'text', text }] });
/** The waiting run and its successor (the newest run of the workspace once beforeAll is done). */
let waiting: any;
let successor: any;
let agentIds: string[] = [];

async function graphqlOk(
  app: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  options: { token?: string; headers?: Record<string, string> } = {},
) {
  const response = await app.graphql(query, variables, options);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data;
}

async function agent(name: string, config: Record<string, unknown> = {}): Promise<string> {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name, config: { model: 'main', ...config } } });
  expect(response.status).toBe(201);
  return response.body.id;
}

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 1 });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'main');
  agentIds = [await agent('First'), await agent('Second')];
  // 18 root runs, each in a new thread and session, over two agents.
  for (let i = 0; i < 18; i++) {
    const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentIds[i % 2], input: message(`run ${i}`) } });
    expect(started.status).toBe(201);
    await settleRun(t, started.body.id);
  }
  // A run that waits for a client tool, then its successor: the newest run has a parent.
  const pauses = await agent('Pauses', {
    model_settings: { script: [[{ tool_call: { id: 'call_1', name: 'pick' } }], [{ text: 'picked' }]] },
    client_tools: [{ name: 'pick' }],
  });
  const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: pauses, input: message('pick') } });
  waiting = await settleRun(t, started.body.id);
  expect(waiting.status).toBe('waiting');
  const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
    headers: { 'idempotency-key': 'relations-resume' },
    body: { calls: { call_1: { status: 'returned', value: 'a' } } },
  });
  expect(resumed.status).toBe(200);
  successor = await settleRun(t, resumed.body.id);
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
});

describe('Run relations', () => {
  it('answers the agent, revision, thread, session, parent and successor the ids name', async () => {
    const data = await graphqlOk(
      t,
      `query ($id: ID!) { run(id: $id) {
        agentId agentRevisionId threadId sessionId parentRunId resumedById
        agent { id name } revision { id agentId number } thread { id sessionId } session { id }
        parent { id resumedById resumedBy { id } parent { id } }
        resumedBy { id }
      } }`,
      { id: successor.id },
    );
    const run = data.run;
    expect(run.agent).toEqual({ id: run.agentId, name: 'Pauses' });
    expect(run.revision).toEqual({ id: run.agentRevisionId, agentId: run.agentId, number: 1 });
    expect(run.thread).toEqual({ id: run.threadId, sessionId: run.sessionId });
    expect(run.session).toEqual({ id: run.sessionId });
    expect(run.parentRunId).toBe(waiting.id);
    // The parent is the waiting run, resumed by this one; a root run has no parent.
    expect(run.parent).toEqual({ id: waiting.id, resumedById: successor.id, resumedBy: { id: successor.id }, parent: null });
    expect(run.resumedBy).toBeNull();
  });

  it('lists 20 runs with agent, revision, thread, session and parent in a constant number of statements', async () => {
    const query = `query ($limit: Int) { runs(first: $limit) { nodes {
      id agentId agentRevisionId threadId sessionId parentRunId
      agent { id } revision { id } thread { id } session { id } parent { id }
    } } }`;
    const counted = async (limit: number) => {
      const before = quiet.app.database.operationCount();
      const data = await graphqlOk(quiet, query, { limit });
      return { runs: data.runs.nodes as any[], used: quiet.app.database.operationCount() - before };
    };
    await counted(1); // the caller's credential is remembered from here on
    const one = await counted(1);
    const twenty = await counted(20);
    expect(twenty.runs).toHaveLength(20);
    expect(one.runs[0].id).toBe(successor.id);
    for (const run of twenty.runs) {
      expect(run.agent.id).toBe(run.agentId);
      expect(run.revision.id).toBe(run.agentRevisionId);
      expect(run.thread.id).toBe(run.threadId);
      expect(run.session.id).toBe(run.sessionId);
      expect(run.parent?.id ?? null).toBe(run.parentRunId);
    }
    expect(new Set(twenty.runs.map((run) => run.thread.id)).size).toBeGreaterThan(18);
    // The list, then one statement per relation: as many for 20 runs as for one.
    expect(one.used).toBe(6);
    expect(twenty.used).toBe(one.used);
  });

  it('resolves relations of relations level by level, still one statement per relation and level', async () => {
    const query = `query ($limit: Int) { runs(first: $limit) { nodes {
      thread { session { id } currentRun { id } }
      agent { defaultRevision { id } }
      parent { agent { id } thread { id } }
    } } }`;
    const counted = async (limit: number) => {
      const before = quiet.app.database.operationCount();
      await graphqlOk(quiet, query, { limit });
      return quiet.app.database.operationCount() - before;
    };
    await counted(1);
    const one = await counted(1);
    expect(await counted(20)).toBe(one);
  });
});

describe('Thread, agent, skill, model and inbox relations', () => {
  it("answer the thread's session, the default revisions, the model's provider and the entry's run", async () => {
    const skill = (await t.rest('POST', '/api/v1/skills', { body: { name: 'Skill', content: { name: 'skill', instructions: 'x' } } })).body;
    const data = await graphqlOk(
      t,
      `query ($thread: ID!, $agent: ID!, $skill: ID!) {
        thread(id: $thread) { sessionId session { id } currentRun { id } }
        agent(id: $agent) { defaultRevisionId defaultRevision { id number } }
        skill(id: $skill) { defaultRevisionId defaultRevision { id number } }
        model(key: "main") { providerId provider { id type } }
      }`,
      { thread: successor.thread_id, agent: agentIds[0], skill: skill.id },
    );
    expect(data.thread).toEqual({ sessionId: successor.session_id, session: { id: successor.session_id }, currentRun: null });
    expect(data.agent.defaultRevision).toEqual({ id: data.agent.defaultRevisionId, number: 1 });
    expect(data.skill.defaultRevision).toEqual({ id: data.skill.defaultRevisionId, number: 1 });
    expect(data.model.provider).toEqual({ id: data.model.providerId, type: 'development' });

    const delivered = await t.rest('POST', `/api/v1/threads/${successor.thread_id}/inbox`, {
      body: { agent_id: agentIds[0], payload: message('more') },
    });
    expect(delivered.status).toBe(201);
    await settleRun(t, delivered.body.run.id);
    const entry = await graphqlOk(
      t,
      `query ($id: ID!) { node(id: $id) { ... on InboxEntry { assignedRunId assignedRun { id threadId } } } }`,
      {
        id: delivered.body.entry.id,
      },
    );
    expect(entry.node).toEqual({
      assignedRunId: delivered.body.run.id,
      assignedRun: { id: delivered.body.run.id, threadId: successor.thread_id },
    });
  });

  it("answers the thread's current run while one works on it", async () => {
    const busy = await agent('Busy', { model_settings: { script: [[{ text: 'working' }, { delay_ms: 60_000 }, { text: 'never' }]] } });
    const started = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: busy, input: message('work') } })).body;
    await settleRun(t, started.id, ['running']);
    const data = await graphqlOk(t, `query ($id: ID!) { thread(id: $id) { currentRunId currentRun { id status agent { name } } } }`, {
      id: started.thread_id,
    });
    expect(data.thread).toEqual({ currentRunId: started.id, currentRun: { id: started.id, status: 'running', agent: { name: 'Busy' } } });
    expect((await t.rest('POST', `/api/v1/runs/${started.id}/cancel`)).status).toBe(200);
    await settleRun(t, started.id);
  });
});

describe('AuditEvent.principal', () => {
  it('answers the API key or the user who acted, never a secret, and null for the service itself', async () => {
    await createUser(t.app.deps, {
      email: 'ada@example.com',
      password: 'correct horse',
      workspaceId: t.workspaceId,
      role: 'writer',
      name: 'Ada',
    });
    const login = (await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'ada@example.com', password: 'correct horse' } }))
      .body;
    const session = await t.rest('POST', '/api/v1/sessions', {
      token: login.token,
      headers: { 'x-workspace-id': t.workspaceId },
      body: { title: 'by Ada' },
    });
    expect(session.status).toBe(201);

    const data = await graphqlOk(
      t,
      `{ auditEvents(first: 100) { nodes { principalId resourceKind resourceId principal {
        __typename id kind name ... on User { email } ... on ApiKey { hint permissions revokedAt }
      } } } }`,
    );
    const events = data.auditEvents.nodes as any[];
    const byAda = events.find((event) => event.resourceId === session.body.id);
    expect(byAda.principal).toEqual({ __typename: 'User', id: login.user.id, kind: 'user', name: 'Ada', email: 'ada@example.com' });
    const byKey = events.find((event) => event.principalId.startsWith('key_'));
    expect(byKey.principal).toMatchObject({ __typename: 'ApiKey', id: byKey.principalId, kind: 'api_key', revokedAt: null });
    expect(byKey.principal.hint).toBe(t.apiKey.slice(-4));
    expect(byKey.principal.permissions).toEqual(expect.arrayContaining(['read', 'write']));
    // The membership Ada's account was made with is the operator's change: the service itself, no principal.
    const bySystem = events.find((event) => event.principalId === 'system');
    expect(bySystem.principal).toBeNull();
    // The schema has no field that could carry a key's secret or hash.
    const apiKeyFields = await graphqlOk(t, `{ __type(name: "ApiKey") { fields { name } } }`);
    expect(apiKeyFields.__type.fields.map((field: { name: string }) => field.name).sort()).toEqual(
      ['createdAt', 'expiresAt', 'hint', 'id', 'kind', 'name', 'permissions', 'rateLimit', 'revokedAt'].sort(),
    );
  });

  it('never answers a principal of another workspace (a key of another workspace, a user who is not a member)', async () => {
    const other = await createWorkspace(t.app.deps, { name: 'Other' });
    const otherKey = await createApiKey(t.app.deps, { workspaceId: other.workspace.id, permissions: 'read' });
    const outsider = await createUser(t.app.deps, {
      email: 'out@example.com',
      password: 'outsider pass',
      workspaceId: other.workspace.id,
      role: 'writer',
    });
    // Audit rows naming them in this workspace cannot be made through the API; written here as a
    // corrupted or hostile row would be, to prove the loader's scope rather than the writers'.
    const rows = [otherKey.id, outsider.user.id].map((principalId) => ({
      id: newId('auditEvent'),
      workspaceId: t.workspaceId,
      principalId,
      action: 'update',
      resourceKind: 'session',
      resourceId: 'ses_foreign_principal',
    }));
    await t.app.deps.db.auditEvent.createMany({ data: rows });
    const data = await graphqlOk(t, `{ auditEvents(resourceId: "ses_foreign_principal") { nodes { principalId principal { id } } } }`);
    expect(data.auditEvents.nodes).toHaveLength(2);
    for (const event of data.auditEvents.nodes) expect(event.principal).toBeNull();
  });
});
