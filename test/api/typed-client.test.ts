// GraphQL as a UI writes it: operations in .graphql documents, typed by graphql-codegen from
// schema.graphql (test/client/generated.ts), executed over HTTP and graphql-ws. The types are
// checked by the type-check step (a field the schema lacks, or a wrong type, fails it); this test
// checks the answers and that the generated module is current.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { print } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { GENERATED_CLIENT, generateClient } from '../../scripts/codegen-client.js';
import { RunItemsLiveDocument, RunWithContextDocument, type RunItemsLiveSubscription } from '../client/generated.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
});
afterAll(async () => t?.stop());

/** A typed request: the document decides the variables' and the answer's types. */
async function request<Result, Variables>(document: TypedDocumentNode<Result, Variables>, variables: Variables): Promise<Result> {
  const response = await fetch(`${t.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.apiKey}` },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data: Result; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data;
}

/** Every event of a typed subscription until it completes. */
function subscribe<Result, Variables extends Record<string, unknown>>(
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
): Promise<Result[]> {
  const client = createClient({
    url: `${t.url.replace('http', 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${t.apiKey}` },
  });
  const events: Result[] = [];
  return new Promise<Result[]>((resolve, reject) => {
    client.subscribe<Result>(
      { query: print(document), variables },
      {
        next: (value) => events.push(value.data as Result),
        error: reject,
        complete: () => void Promise.resolve(client.dispose()).then(() => resolve(events)),
      },
    );
  });
}

describe('a client typed by graphql-codegen', () => {
  it('reads a waiting run with its agent, thread, items and pending approval in one query, and follows its items', async () => {
    const agent = (
      await t.rest('POST', '/api/v1/agents', {
        body: {
          name: 'typed',
          config: {
            model: 'dev',
            model_settings: { script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }]] },
            client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
          },
        },
      })
    ).body;
    const created = (
      await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: { content: [{ type: 'text', text: 'go' }] } } })
    ).body;
    const items = subscribe(RunItemsLiveDocument, { runId: created.id });
    await settleRun(t, created.id);

    const { run } = await request(RunWithContextDocument, { id: created.id });
    expect(run.status).toBe('waiting');
    expect(run.waitReason).toBe('approval');
    // The agent, the thread's runs and the run's items come in the same query (no second round trip).
    expect(run.agent).toEqual({ id: agent.id, name: 'typed' });
    expect(run.thread.runs.nodes).toEqual([{ id: created.id, status: 'waiting' }]);
    expect(run.items.nodes.map((item) => item.kind)).toEqual(['user_message', 'approval_request']);
    expect(run.items.pageInfo.hasNextPage).toBe(false);
    const [approval] = run.pending.approvals;
    expect(approval).toMatchObject({ toolCallId: 'del_1', toolName: 'delete_file', arguments: { path: '/tmp/x' } });
    expect(approval!.presentation?.kind).toBeTypeOf('string');
    expect(run.pending.calls).toEqual([]);

    const seen: RunItemsLiveSubscription[] = await items;
    expect(seen.map((event) => event.runItems.kind)).toContain('approval_request');
  });

  it('is generated from the current schema.graphql and documents (npm run codegen)', async () => {
    expect(readFileSync(GENERATED_CLIENT, 'utf8'), 'test/client/generated.ts is stale: run npm run codegen').toBe(await generateClient());
  });
});
