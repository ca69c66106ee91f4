// The typed structured members of runs, inbox entries and run items over GraphQL (HTTP and
// graphql-ws), on real runs of the scripted development model: what a waiting run waits for, what a
// resume recorded, how a run failed, what a sealed run used, which memories it mounted, large
// content's refs and the items continuation. Each run's REST view is also compared with the stored
// documents (members and their order), for the shapes the golden file has no sample of.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { rememberingRun } from '../helpers/memory-runs.js';

let t: TestApp;
let db: pg.Client;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(async () => {
  await db.end();
  await t.stop();
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const script = (...turns: unknown[][]) => ({ model_settings: { script: turns } });

async function agentWith(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'typed', config: { model: 'dev', ...config } } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string };
}

async function settledRun(agentId: string, body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('hello'), ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return settleRun(t, response.body.id);
}

async function gql(query: string, variables: Record<string, unknown> = {}) {
  const response = await t.graphql(query, variables);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  return response.data;
}

/** The REST view's structured members are the stored documents, member for member and in the same order. */
async function expectRestMatchesStored(runId: string) {
  const rest = (await t.rest('GET', `/api/v1/runs/${runId}`)).body;
  const { rows } = await db.query(
    `SELECT failure::text, usage_at_seal::text, memory_mounts::text, environment_mounts::text, pending::text, resume::text FROM runs WHERE id = $1`,
    [runId],
  );
  const stored = rows[0] as Record<string, string | null>;
  const same = (member: string, column: string) =>
    expect(JSON.stringify(rest[member]), member).toBe(JSON.stringify(stored[column] === null ? null : JSON.parse(stored[column]!)));
  for (const member of ['failure', 'usage_at_seal', 'memory_mounts', 'environment_mounts', 'pending', 'resume']) same(member, member);
}

const PENDING_CALL = 'toolCallId toolName arguments presentation { kind title question choices }';
const RUN_MEMBERS = `
  id status waitReason
  pending { approvals { ${PENDING_CALL} } calls { ${PENDING_CALL} } }
  pendingDocument
  failure { code message }
  usageAtSeal { requests inputTokens outputTokens }
  memoryMounts { memoryId name access recall }
  environmentMounts { environmentId name workingDirectory }
  resume { approvals { toolCallId action } calls { toolCallId status value } input }
  resumeDocument`;

describe('typed run members over GraphQL', () => {
  it('a run waiting for an approval and a client call, and the resume that answers both', async () => {
    const agent = await agentWith({
      ...script(
        [
          { tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } },
          { tool_call: { id: 'wx_1', name: 'get_weather', arguments: { city: 'Oslo', days: 2 } } },
        ],
        [{ text: 'Done.' }],
      ),
      client_tools: [
        { name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } },
        { name: 'get_weather', description: 'Weather', parameters_json_schema: { type: 'object' } },
      ],
    });
    const waiting = await settledRun(agent.id);
    expect(waiting.status).toBe('waiting');
    const { run } = await gql(`query ($id: ID!) { run(id: $id) { ${RUN_MEMBERS} } }`, { id: waiting.id });
    expect(run.pending).toEqual({
      approvals: [
        {
          toolCallId: 'del_1',
          toolName: 'delete_file',
          arguments: { path: '/tmp/x' },
          presentation: { kind: 'approval', title: 'delete_file', question: null, choices: null },
        },
      ],
      calls: [
        {
          toolCallId: 'wx_1',
          toolName: 'get_weather',
          arguments: { city: 'Oslo', days: 2 },
          // A client tool's title is its description (its name without one).
          presentation: { kind: 'client_call', title: 'Weather', question: null, choices: null },
        },
      ],
    });
    // The document REST shows is the stored one (snake_case members, as the spec names them).
    expect(run.pendingDocument.approvals[0]).toMatchObject({ tool_call_id: 'del_1', tool_name: 'delete_file' });
    expect(run).toMatchObject({ failure: null, resume: null, resumeDocument: null, memoryMounts: [], environmentMounts: [] });
    expect(run.usageAtSeal).toEqual({ requests: 1, inputTokens: expect.any(Number), outputTokens: expect.any(Number) });
    await expectRestMatchesStored(waiting.id);

    const resumed = await gql(
      `mutation ($id: ID!, $approvals: JSON, $calls: JSON) {
        resumeRun(runId: $id, idempotencyKey: "typed-1", input: { approvals: $approvals, calls: $calls }, wait: 30) { run { ${RUN_MEMBERS} } }
      }`,
      { id: waiting.id, approvals: { del_1: { action: 'deny' } }, calls: { wx_1: { status: 'returned', value: { sky: 'clear' } } } },
    );
    const successor = resumed.resumeRun.run;
    expect(successor.resume).toEqual({
      approvals: [{ toolCallId: 'del_1', action: 'deny' }],
      calls: [{ toolCallId: 'wx_1', status: 'returned', value: { sky: 'clear' } }],
      input: null,
    });
    expect(successor.resumeDocument).toEqual({
      approvals: { del_1: { action: 'deny' } },
      calls: { wx_1: { status: 'returned', value: { sky: 'clear' } } },
      input: null,
    });
    expect(successor.status).toBe('completed');
    // A run that waits for nothing has two empty lists (its stored document has no members).
    expect(successor.pending).toEqual({ approvals: [], calls: [] });
    await expectRestMatchesStored(successor.id);
  });

  it("a question's presentation: the question and its choices", async () => {
    const agent = await agentWith({
      user_questions: true,
      ...script([{ tool_call: { id: 'q1', name: 'ask_user', arguments: { question: 'Which city?', choices: ['Oslo', 'Bergen'] } } }]),
    });
    const waiting = await settledRun(agent.id);
    const { run } = await gql(`query ($id: ID!) { run(id: $id) { waitReason pending { calls { ${PENDING_CALL} } } } }`, { id: waiting.id });
    expect(run).toEqual({
      waitReason: 'user_question',
      pending: {
        calls: [
          {
            toolCallId: 'q1',
            toolName: 'ask_user',
            arguments: { question: 'Which city?', choices: ['Oslo', 'Bergen'] },
            presentation: { kind: 'question', title: null, question: 'Which city?', choices: ['Oslo', 'Bergen'] },
          },
        ],
      },
    });
  });

  it('a failed run: its failure, usage, and its inbox entry failure', async () => {
    const agent = await agentWith({
      ...script([{ tool_call: { name: 'nope' } }], [{ tool_call: { name: 'nope' } }], [{ text: 'done' }]),
      retries: { tools: 5 },
    });
    const failed = await settledRun(agent.id, { options: { max_usage: { requests: 2 } } });
    const data = await gql(
      `query ($id: ID!, $thread: ID!) {
        run(id: $id) { status failure { code message } usageAtSeal { requests inputTokens outputTokens } }
        inboxEntries(threadId: $thread) { nodes { status failure { code message } } }
      }`,
      { id: failed.id, thread: failed.thread_id },
    );
    expect(data.run).toEqual({
      status: 'failed',
      failure: { code: 'usage_limit_exceeded', message: 'the run reached its limit of 2 model requests' },
      usageAtSeal: { requests: 2, inputTokens: failed.usage_at_seal.input_tokens, outputTokens: failed.usage_at_seal.output_tokens },
    });
    expect(data.inboxEntries.nodes).toEqual([{ status: 'failed', failure: data.run.failure }]);
    await expectRestMatchesStored(failed.id);
  });

  it("a sealed run's usage", async () => {
    const done = await settledRun((await agentWith({})).id);
    const { run } = await gql(
      `query ($id: ID!) { run(id: $id) { status failure { code } usageAtSeal { requests inputTokens outputTokens } } }`,
      {
        id: done.id,
      },
    );
    expect(run).toEqual({
      status: 'completed',
      failure: null,
      usageAtSeal: { requests: 1, inputTokens: done.usage_at_seal.input_tokens, outputTokens: done.usage_at_seal.output_tokens },
    });
    expect(run.usageAtSeal.inputTokens).toBeGreaterThan(0);
    await expectRestMatchesStored(done.id);
  });

  it('a run with memory mounts, and the memory sources of its items continuation', async () => {
    const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Team Notes' } })).body;
    await t.rest('POST', `/api/v1/memories/${memory.id}/records`, { body: { text: 'Deploys happen on Tuesdays after the standup' } });
    const { run } = await rememberingRun(t, memory.id, { searchQuery: 'deploys', added: 'Deploy freeze starts Friday' });
    const data = await gql(
      `query ($id: ID!) {
        run(id: $id) { memoryMounts { memoryId name access recall } }
        runItems(runId: $id) {
          continuation {
            memorySourceList { kind status memory memoryId cursor records sourcesTruncated }
            nextOrdinal
            position { attempt sequence }
            observer { runId state { requestIndex } }
          }
        }
      }`,
      { id: run.id },
    );
    expect(data.run.memoryMounts).toEqual([{ memoryId: memory.id, name: 'Team Notes', access: 'write', recall: true }]);
    const { continuation } = data.runItems;
    expect(continuation.memorySourceList).toEqual([
      {
        kind: 'records',
        status: 'completed',
        memory: 'Team Notes',
        memoryId: memory.id,
        cursor: null,
        records: [expect.stringMatching(/^rec_/)],
        sourcesTruncated: false,
      },
    ]);
    expect(continuation.observer).toEqual({ runId: run.id, state: { requestIndex: 3 } });
    expect(continuation.position.attempt).toBe(1);
    await expectRestMatchesStored(run.id);
  });
});

describe('subscriptions deliver the typed objects', () => {
  const ws = () =>
    createClient({
      url: `${t.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${t.apiKey}` },
    });

  /** Every value of a subscription until it completes. */
  async function collect(query: string, variables: Record<string, unknown>): Promise<any[]> {
    const client = ws();
    const values: any[] = [];
    try {
      await new Promise<void>((resolve, reject) =>
        client.subscribe({ query, variables }, { next: (value) => values.push(value.data), error: reject, complete: resolve }),
      );
    } finally {
      await client.dispose();
    }
    return values;
  }

  it('runStatus: a waiting run with its typed pending calls', async () => {
    const agent = await agentWith({
      ...script([{ tool_call: { id: 'c1', name: 'pick', arguments: { from: ['a', 'b'] } } }]),
      client_tools: [{ name: 'pick', parameters_json_schema: { type: 'object' } }],
    });
    const waiting = await settledRun(agent.id);
    const values = await collect(
      `subscription ($id: ID!) { runStatus(runId: $id) { status usageAtSeal { requests } pending { calls { ${PENDING_CALL} } } } }`,
      { id: waiting.id },
    );
    expect(values).toEqual([
      {
        runStatus: {
          status: 'waiting',
          usageAtSeal: { requests: 1 },
          pending: {
            calls: [
              {
                toolCallId: 'c1',
                toolName: 'pick',
                arguments: { from: ['a', 'b'] },
                presentation: { kind: 'client_call', title: 'pick', question: null, choices: null },
              },
            ],
          },
        },
      },
    ]);
  });

  it('runItems: large content with its typed content ref', async () => {
    const long = 'abcdefghij'.repeat(7_000); // 70 000 bytes: beyond the inline limit
    const done = await settledRun((await agentWith(script([{ text: long }]))).id);
    const values = await collect(
      `subscription ($id: ID!) {
        runItems(runId: $id) { ordinal kind contentRefs contentRefList { name id mediaType preview sizeBytes truncated } }
      }`,
      { id: done.id },
    );
    const message = values.map((v) => v.runItems).find((item) => item.kind === 'text_message');
    const itemId = message.contentRefs.text.id.split(':')[0];
    expect(message.contentRefList).toEqual([
      {
        name: 'text',
        id: `${itemId}:text`,
        mediaType: 'text/plain; charset=utf-8',
        preview: long.slice(0, 1024),
        sizeBytes: 70_000,
        truncated: true,
      },
    ]);
    expect(values.map((v) => v.runItems).find((item) => item.kind === 'user_message').contentRefList).toEqual([]);
  });
});
