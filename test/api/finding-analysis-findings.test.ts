// FindingAnalysis.findings (GraphQL) and GET /api/v1/finding-analyses/{id}/findings: exactly the
// findings an analysis created or updated — still listed after a later analysis finds them again
// (which moves their `analysis_id`), filtered by `change`, paged, and 404 from another workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
/** A second instance on the same database without workers: its statement count is the request's alone. */
let quiet: TestApp;
let otherKey: string;

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });
const call = (id: string, name: string) => ({ tool_call: { id, name, arguments: {} } });

beforeAll(async () => {
  t = await startTestApp();
  quiet = await startTestApp({ runWorkers: 0 }, t);
  await insertModel(t, 'dev');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
});
afterAll(async () => {
  await quiet?.stop();
  await t?.stop();
});

async function created(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await t.rest('POST', path, { body, headers });
  expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
  return response.body;
}

async function runOf(agentId: string, revisionId?: string) {
  const run = await created('/api/v1/runs', {
    agent_id: agentId,
    ...(revisionId ? { agent_revision_id: revisionId } : {}),
    input: text('go'),
  });
  return settleRun(t, run.id);
}

/** Starts an analysis and waits for its analyst run (whose findings count too), answering the analysis as it then is. */
async function analysed(agentId: string, key: string) {
  const started = await created('/api/v1/finding-analyses', { agent_id: agentId }, { 'idempotency-key': key });
  if (started.run_id) await settleRun(t, started.run_id, ['completed', 'failed', 'cancelled']);
  const list = await t.rest('GET', '/api/v1/finding-analyses?limit=100');
  return list.body.items.find((a: any) => a.id === started.id);
}

const listed = async (analysisId: string, query = '', token?: string) =>
  t.rest('GET', `/api/v1/finding-analyses/${analysisId}/findings${query}`, { token });

describe('the findings of an analysis', () => {
  it('lists exactly what each analysis created or updated, over REST and GraphQL', async () => {
    const agent = await created('/api/v1/agents', {
      name: 'failing',
      config: { model: 'dev', retries: { tools: 0 }, ...script([call('u1', 'no_such_tool')]) },
    });
    expect((await runOf(agent.id)).status).toBe('failed');
    const first = await analysed(agent.id, 'first');
    const firstFindings = (await listed(first.id)).body;
    expect(firstFindings.items).toHaveLength(first.finding_count);
    const detectorKeys = ['retries_exhausted:tool_error', 'tool_error:no_such_tool'];
    expect(firstFindings.items.map((f: any) => f.source_key)).toEqual(expect.arrayContaining(detectorKeys));
    expect(firstFindings.next_cursor).toBeNull();
    // Newest first.
    const ids = firstFindings.items.map((f: any) => f.id);
    expect(ids).toEqual([...ids].sort().reverse());

    // Another problem in a new run: the second analysis finds the old problems again and a new one.
    const agentNow = await t.rest('GET', `/api/v1/agents/${agent.id}`);
    const looping = await created(
      `/api/v1/agents/${agent.id}/revisions`,
      {
        config: { model: 'dev', ...script([call('c1', 'no_such_tool_2')], [{ text: 'x' }]), retries: { tools: 0 } },
        make_default: false,
      },
      { 'if-match': agentNow.headers.get('etag')! },
    );
    expect((await runOf(agent.id, looping.id)).status).toBe('failed');
    const second = await analysed(agent.id, 'second');
    const secondFindings = (await listed(second.id)).body.items as any[];
    expect(secondFindings).toHaveLength(second.finding_count);
    const secondIds = new Set(secondFindings.map((f) => f.id));
    for (const id of ids.filter((id: string) => detectorKeys.includes(firstFindings.items.find((f: any) => f.id === id).source_key)))
      expect(secondIds.has(id)).toBe(true);
    expect(secondFindings.map((f) => f.source_key)).toContain('tool_error:no_such_tool_2');

    // The first analysis still lists its own findings, though they now name the second as last found by.
    const firstAgain = (await listed(first.id)).body.items as any[];
    expect(firstAgain.map((f) => f.id)).toEqual(ids);
    expect(firstAgain.filter((f) => detectorKeys.includes(f.source_key)).every((f) => f.analysis_id === second.id)).toBe(true);

    // `change`: what this analysis did.
    const createdBySecond = (await listed(second.id, '?change=created')).body.items.map((f: any) => f.source_key);
    const updatedBySecond = (await listed(second.id, '?change=updated')).body.items.map((f: any) => f.source_key);
    expect(createdBySecond).toContain('tool_error:no_such_tool_2');
    expect(updatedBySecond).toEqual(expect.arrayContaining(detectorKeys));
    expect(createdBySecond.length + updatedBySecond.length).toBe(second.finding_count);
    expect((await listed(first.id, '?change=updated')).body.items).toEqual([]);

    // Pages.
    const page1 = (await listed(second.id, '?limit=1')).body;
    expect(page1.items).toHaveLength(1);
    const page2 = (await listed(second.id, `?limit=1&cursor=${page1.next_cursor}`)).body;
    expect(page2.items[0].id).not.toBe(page1.items[0].id);
    expect(page2.items[0].id < page1.items[0].id).toBe(true);

    // GraphQL: the relation on the analysis.
    const gql = await t.graphql(
      `query($id: ID!) { findingAnalysis(id: $id) {
        all: findings(first: 100) { nodes { id sourceKey analysisId } pageInfo { hasNextPage } }
        created: findings(change: "created") { nodes { id } }
      } }`,
      { id: second.id },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.findingAnalysis.all.nodes.map((f: any) => f.id)).toEqual(secondFindings.map((f) => f.id));
    expect(gql.data.findingAnalysis.created.nodes).toHaveLength(createdBySecond.length);
  });

  it('bad arguments are invalid_argument; another workspace’s analysis is 404', async () => {
    const analyses = (await t.rest('GET', '/api/v1/finding-analyses')).body.items;
    const id = analyses[0].id as string;
    const bad = await listed(id, '?change=deleted');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'change' } });
    expect((await listed(id, '?limit=101')).body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'limit' } });
    const elsewhere = await listed(id, '', otherKey);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.code).toBe('not_found');
    const gql = await t.graphql('query($id: ID!) { findingAnalysis(id: $id) { findings { nodes { id } } } }', { id }, { token: otherKey });
    expect(gql.errors?.[0]?.extensions?.code).toBe('not_found');
    expect((await listed('fan_01AAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });

  it('the findings of many analyses cost the statements of one analysis’s', async () => {
    const counted = async (first: number) => {
      const before = quiet.app.database.operationCount();
      const answer = await quiet.graphql(
        `query($first: Int) { findingAnalyses(first: $first) { nodes { id findings { nodes { id } } } } }`,
        {
          first,
        },
      );
      expect(answer.errors).toBeUndefined();
      expect(answer.data.findingAnalyses.nodes).toHaveLength(first);
      return quiet.app.database.operationCount() - before;
    };
    await counted(1); // the credential's first look-up is cached after this
    const one = await counted(1);
    expect(await counted(2)).toBe(one);
  });
});
