// Relay cursor connections over HTTP GraphQL: every list answers `edges { cursor node }`, `nodes` and
// `pageInfo`, pages forward with `first`/`after` from any edge's cursor, names its page problems
// `first`/`after` (REST keeps `limit`/`cursor`); the list relations (Thread → runs and inbox,
// Session → threads, Run → items, Agent and Skill → revisions, Memory → records) answer what the
// root list they mirror answers, take its cursors, and cost a constant number of statements however
// many objects a level has.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';

let t: TestApp;
/** A second instance on the same database without run workers: nothing in the background adds statements to its count. */
let quiet: TestApp;
let agentId: string;
let skillId: string;
let memoryId: string;
/** Twenty threads in one session, newest first; the first ten with two runs, the others with one. */
let sessionId: string;
const threads: string[] = [];

const input = (text: string) => ({ content: [{ type: 'text', text }] });

async function graphqlOk(query: string, variables: Record<string, unknown> = {}, app = t) {
  const response = await app.graphql(query, variables);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data;
}

async function runIn(threadId: string | null, text: string, session?: string) {
  const body = {
    agent_id: agentId,
    input: input(text),
    ...(threadId ? { thread_id: threadId } : {}),
    ...(session ? { session_id: session } : {}),
  };
  const response = await t.rest('POST', '/api/v1/runs', { body, headers: { prefer: 'wait=30' } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  expect(response.body.status).toBe('completed');
  return response.body;
}

beforeAll(async () => {
  t = await startTestApp({ runWorkers: 2 });
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'main');
  agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'Pager', config: { model: 'main' } } })).body.id;
  // Publishing names the head's ETag (If-Match).
  const publish = async (path: string, body: Record<string, unknown>) => {
    const etag = (await t.rest('GET', path)).headers.get('etag')!;
    const response = await t.rest('POST', `${path}/revisions`, { body, headers: { 'if-match': etag } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  };
  for (const instructions of ['two', 'three']) await publish(`/api/v1/agents/${agentId}`, { config: { model: 'main', instructions } });
  skillId = (await t.rest('POST', '/api/v1/skills', { body: { name: 'Skill', content: { name: 'skill', instructions: 'x' } } })).body.id;
  await publish(`/api/v1/skills/${skillId}`, { content: { name: 'skill', instructions: 'y' } });
  memoryId = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Notes' } })).body.id;
  for (const text of ['alpha', 'beta', 'gamma'])
    expect((await t.rest('POST', `/api/v1/memories/${memoryId}/records`, { body: { text } })).status).toBe(201);
  sessionId = (await t.rest('POST', '/api/v1/sessions', { body: { title: 'paged' } })).body.id;
  for (let index = 0; index < 20; index++) {
    const first = await runIn(null, `thread ${index}`, sessionId);
    threads.unshift(first.thread_id);
  }
  for (const threadId of threads.slice(0, 10)) await runIn(threadId, 'again');
}, 120_000);
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
});

describe('root connections', () => {
  it('answer edges with their own cursors, nodes and pageInfo, and page forward from any edge', async () => {
    const page = `query ($first: Int, $after: String) {
      threads(sessionId: "${sessionId}", first: $first, after: $after) {
        edges { cursor node { id } } nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const first = (await graphqlOk(page, { first: 3 })).threads;
    expect(first.nodes.map((n: { id: string }) => n.id)).toEqual(threads.slice(0, 3));
    expect(first.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(threads.slice(0, 3));
    expect(new Set(first.edges.map((e: { cursor: string }) => e.cursor)).size).toBe(3);
    expect(first.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: first.edges[0].cursor,
      endCursor: first.edges[2].cursor,
    });
    // After the first edge: the second onwards.
    const fromSecond = (await graphqlOk(page, { first: 3, after: first.edges[0].cursor })).threads;
    expect(fromSecond.nodes.map((n: { id: string }) => n.id)).toEqual(threads.slice(1, 4));
    expect(fromSecond.pageInfo.hasPreviousPage).toBe(true);
    // Walking with endCursor visits every thread exactly once; the last page says there is no next.
    const seen: string[] = [];
    let after: string | null = null;
    for (;;) {
      const current: any = (await graphqlOk(page, { first: 7, after })).threads;
      seen.push(...current.nodes.map((n: { id: string }) => n.id));
      if (!current.pageInfo.hasNextPage) break;
      after = current.pageInfo.endCursor;
    }
    expect(seen).toEqual(threads);
  });

  it('name page problems first and after over GraphQL, limit and cursor over REST', async () => {
    for (const [args, field] of [
      ['first: 0', 'first'],
      ['first: 101', 'first'],
      ['after: "garbage"', 'after'],
    ] as const) {
      const response = await t.graphql(`{ runs(${args}) { nodes { id } } }`);
      expect(response.errors?.[0]?.extensions, args).toMatchObject({ code: 'invalid_argument', details: { field } });
      expect(response.errors![0]!.message.startsWith(`${field} `), response.errors![0]!.message).toBe(true);
    }
    // A cursor of another list is refused too.
    const sessions = (await graphqlOk('{ sessions(first: 1) { pageInfo { endCursor } } }')).sessions;
    const foreign = await t.graphql('query ($after: String) { runs(after: $after) { nodes { id } } }', {
      after: sessions.pageInfo.endCursor,
    });
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'after' } });
    const rest = await t.rest('GET', '/api/v1/runs?limit=0');
    expect(rest.status).toBe(400);
    expect(rest.body.error).toEqual({
      code: 'invalid_argument',
      message: 'limit must be an integer from 1 to 100',
      details: { field: 'limit' },
    });
    const badCursor = await t.rest('GET', '/api/v1/runs?cursor=garbage');
    expect(badCursor.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'cursor' } });
  });

  it('REST lists answer {items, next_cursor}: next_cursor is the last edge’s cursor while there is more', async () => {
    const connection = (await graphqlOk('{ runs(first: 2) { nodes { id } pageInfo { hasNextPage endCursor } } }')).runs;
    const rest = await t.rest('GET', '/api/v1/runs?limit=2');
    expect(Object.keys(rest.body)).toEqual(['items', 'next_cursor']);
    expect(rest.body.items.map((run: { id: string }) => run.id)).toEqual(connection.nodes.map((n: { id: string }) => n.id));
    expect(rest.body.next_cursor).toBe(connection.pageInfo.endCursor);
    const last = await t.rest('GET', `/api/v1/threads?session_id=${sessionId}&limit=100`);
    expect(last.body.next_cursor).toBeNull();
  });

  it('runLineage: every edge has a cursor the next page starts after', async () => {
    const origin = (await runIn(null, 'origin')).id; // in a session of its own, away from the twenty threads
    const fork = await t.rest('POST', `/api/v1/runs/${origin}/fork`, {
      headers: { prefer: 'wait=30', 'idempotency-key': 'lineage-fork' },
      body: { payload: input('fork') },
    });
    expect(fork.status, JSON.stringify(fork.body)).toBe(201);
    const forked = fork.body.run.id;
    const lineage = (await graphqlOk(`{ runLineage(runId: "${forked}") { edges { cursor node { id } } pageInfo { hasNextPage } } }`))
      .runLineage;
    expect(lineage.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual([forked, origin]);
    const page = `query ($first: Int, $after: String) { runLineage(runId: "${forked}", first: $first, after: $after) {
      nodes { id } pageInfo { hasNextPage endCursor } } }`;
    const afterFirst = (await graphqlOk(page, { after: lineage.edges[0].cursor })).runLineage;
    expect(afterFirst.nodes).toEqual([{ id: origin }]);
    // Past the root: nothing, and no next page.
    const pastRoot = (await graphqlOk(page, { after: lineage.edges[1].cursor })).runLineage;
    expect(pastRoot).toEqual({ nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
    // Page by page: the end cursor of a full page is where the next starts (REST's next_cursor).
    const one = (await graphqlOk(page, { first: 1 })).runLineage;
    expect(one.pageInfo.hasNextPage).toBe(true);
    expect((await t.rest('GET', `/api/v1/runs/${forked}/lineage?limit=1`)).body.next_cursor).toBe(one.pageInfo.endCursor);
    expect((await graphqlOk(page, { first: 1, after: one.pageInfo.endCursor })).runLineage.nodes).toEqual([{ id: origin }]);
  });
});

describe('list relations', () => {
  it('answer what the root list they mirror answers, and take its cursors', async () => {
    const [threadId] = threads;
    const data = await graphqlOk(
      `query ($thread: ID!, $threadFilter: String, $session: ID!, $agent: ID!, $skill: ID!, $memory: ID!) {
        thread(id: $thread) {
          runs { nodes { id } pageInfo { endCursor } }
          firstRun: runs(first: 1) { edges { cursor node { id } } }
          inbox { nodes { id position threadEtag status } }
        }
        rootRuns: runs(threadId: $threadFilter) { nodes { id } }
        rootInbox: inboxEntries(threadId: $thread) { nodes { id position threadEtag status } }
        session(id: $session) { threads(first: 100) { nodes { id } } }
        agent(id: $agent) { revisions { nodes { number } } }
        agentRevisions(agentId: $agent) { nodes { number } }
        skill(id: $skill) { revisions { nodes { number } } }
        memory(id: $memory) { records { nodes { id text } } }
        memoryRecords(memoryId: $memory) { nodes { id text } }
      }`,
      { thread: threadId, threadFilter: threadId, session: sessionId, agent: agentId, skill: skillId, memory: memoryId },
    );
    expect(data.thread.runs.nodes).toEqual(data.rootRuns.nodes);
    expect(data.thread.runs.nodes).toHaveLength(2);
    expect(data.thread.inbox.nodes).toEqual(data.rootInbox.nodes);
    expect(data.thread.inbox.nodes).toHaveLength(2);
    expect(data.session.threads.nodes.map((n: { id: string }) => n.id)).toEqual(threads);
    expect(data.agent.revisions.nodes).toEqual(data.agentRevisions.nodes);
    expect(data.agent.revisions.nodes.map((n: { number: number }) => n.number)).toEqual([3, 2, 1]);
    expect(data.skill.revisions.nodes.map((n: { number: number }) => n.number)).toEqual([2, 1]);
    expect(data.memory.records.nodes).toEqual(data.memoryRecords.nodes);
    expect(data.memory.records.nodes).toHaveLength(3);
    // A relation's cursor pages the root list, and the root list's cursor pages the relation.
    const after = data.thread.firstRun.edges[0].cursor;
    const rootAfter = await graphqlOk(`query ($after: String) { runs(threadId: "${threadId}", after: $after) { nodes { id } } }`, {
      after,
    });
    expect(rootAfter.runs.nodes).toEqual(data.thread.runs.nodes.slice(1));
    const relationAfter = await graphqlOk(`query ($after: String) { thread(id: "${threadId}") { runs(after: $after) { nodes { id } } } }`, {
      after,
    });
    expect(relationAfter.thread.runs.nodes).toEqual(data.thread.runs.nodes.slice(1));
  });

  it('Run.items answers the run’s items by ordinal, as runItems does, and pages by cursor', async () => {
    const [threadId] = threads;
    const run = (await graphqlOk(`{ runs(threadId: "${threadId}", first: 1) { nodes { id } } }`)).runs.nodes[0];
    const data = await graphqlOk(
      `query ($id: ID!) {
      run(id: $id) { items { edges { cursor node { id ordinal kind content contentRefs } } } }
      runItems(runId: $id) { items { id ordinal kind content contentRefs } }
    }`,
      { id: run.id },
    );
    const nodes = data.run.items.edges.map((e: { node: unknown }) => e.node);
    expect(nodes).toEqual(data.runItems.items);
    expect(nodes.length).toBeGreaterThan(1);
    const rest = await graphqlOk(`query ($id: ID!, $after: String) { run(id: $id) { items(after: $after) { nodes { ordinal } } } }`, {
      id: run.id,
      after: data.run.items.edges[0].cursor,
    });
    expect(rest.run.items.nodes.map((n: { ordinal: number }) => n.ordinal)).toEqual(
      nodes.slice(1).map((n: { ordinal: number }) => n.ordinal),
    );
    // A cursor of one run's items is not another run's.
    const other = (await graphqlOk(`{ runs(threadId: "${threads[1]}", first: 1) { nodes { id } } }`)).runs.nodes[0];
    const refused = await t.graphql(`query ($id: ID!, $after: String) { run(id: $id) { items(after: $after) { nodes { ordinal } } } }`, {
      id: other.id,
      after: data.run.items.edges[0].cursor,
    });
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_argument', details: { field: 'after' } });
  });

  it('cost a constant number of statements: 20 threads with their first 5 runs and those runs’ items', async () => {
    const query = `query ($first: Int) {
      threads(sessionId: "${sessionId}", first: $first) {
        nodes { id runs(first: 5) { nodes { id items { nodes { ordinal kind } } } } inbox(first: 5) { nodes { id } } }
      }
    }`;
    const counted = async (first: number) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.graphql(query, { first });
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      return { threads: response.data.threads.nodes as any[], used: quiet.app.database.operationCount() - before };
    };
    await counted(1); // the caller's credential is remembered from here on
    const two = await counted(2);
    const twenty = await counted(20);
    expect(twenty.threads).toHaveLength(20);
    const runs = twenty.threads.flatMap((thread) => thread.runs.nodes);
    expect(runs).toHaveLength(30);
    expect(runs.every((run) => run.items.nodes.length > 1)).toBe(true);
    expect(twenty.threads.every((thread) => thread.inbox.nodes.length === thread.runs.nodes.length)).toBe(true);
    // One statement per level: the threads, their runs, their inboxes, the runs' items.
    expect(twenty.used).toBe(two.used);
    expect(twenty.used).toBeLessThanOrEqual(4);
  });

  it('cost a constant number of statements: 20 runs with their items', async () => {
    const query = `query ($first: Int) { runs(first: $first) { nodes { id items(first: 50) { edges { cursor node { kind } } } } } }`;
    const counted = async (first: number) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.graphql(query, { first });
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      return { runs: response.data.runs.nodes as any[], used: quiet.app.database.operationCount() - before };
    };
    await counted(1);
    const two = await counted(2);
    const twenty = await counted(20);
    expect(twenty.runs).toHaveLength(20);
    expect(twenty.runs.every((run) => run.items.edges.length > 1)).toBe(true);
    expect(twenty.used).toBe(two.used);
    expect(twenty.used).toBeLessThanOrEqual(2);
  });

  it('cost a constant number of statements: sessions with threads, agents and skills with revisions, memories with records', async () => {
    for (let index = 0; index < 3; index++) {
      const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: `More ${index}` } })).body;
      expect((await t.rest('POST', `/api/v1/memories/${memory.id}/records`, { body: { text: `note ${index}` } })).status).toBe(201);
      expect((await t.rest('POST', '/api/v1/agents', { body: { name: `Agent ${index}`, config: { model: 'main' } } })).status).toBe(201);
    }
    const query = `query ($first: Int) {
      sessions(first: $first) { nodes { threads(first: 2) { nodes { id } } } }
      agents(first: $first) { nodes { revisions(first: 2) { nodes { number } } } }
      skills(first: $first) { nodes { revisions(first: 2) { nodes { number } } } }
      memories(first: $first) { nodes { records(first: 2) { nodes { id } } } }
    }`;
    const counted = async (first: number) => {
      const before = quiet.app.database.operationCount();
      const response = await quiet.graphql(query, { first });
      expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
      return { data: response.data, used: quiet.app.database.operationCount() - before };
    };
    await counted(1);
    const one = await counted(1);
    const all = await counted(20);
    expect(all.data.agents.nodes.length).toBeGreaterThan(1);
    expect(all.data.memories.nodes.length).toBeGreaterThan(1);
    expect(all.data.memories.nodes.every((memory: any) => memory.records.nodes.length > 0)).toBe(true);
    expect(all.used).toBe(one.used);
  });
});
