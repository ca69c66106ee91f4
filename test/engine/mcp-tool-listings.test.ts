// Tool listings of MCP connections in runs (MCP_TOOLS_LIST_TTL_SECONDS), through the public API against
// an MCP server of the SDK on loopback that counts the `tools/list` requests it gets: runs started
// together share one listing, and a later run within the TTL lists nothing; a change of the connection's
// credential is a new listing; with a TTL of 0 every attempt lists for itself. The pool's own rules
// (the TTL's clock, failed listings, the server's list_changed announcement) are tested in
// test/engine/mcp-pool.test.ts.
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startSdkMcpServer } from '../helpers/mcp-servers.js';
import { settleRun } from '../helpers/runs.js';

let server: { url: string; close(): Promise<void> };
let listings = 0;
let t: TestApp;
let everyAttempt: TestApp;
const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

beforeAll(async () => {
  server = await startSdkMcpServer(
    (mcp) => {
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [
          { name: 'lookup', description: 'Looks a word up.', inputSchema: { type: 'object', properties: { word: { type: 'string' } } } },
        ],
      }));
      mcp.setRequestHandler(CallToolRequestSchema, async (request) => ({
        content: [{ type: 'text', text: `found ${String(request.params.arguments?.word)}` }],
      }));
    },
    (message) => {
      if (message?.method === 'tools/list') listings += 1;
      return false;
    },
  );
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], mcpToolsListTtlSeconds: 3600 });
  // Its own database: the first app's workers would claim its runs and list through their own pool.
  everyAttempt = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], mcpToolsListTtlSeconds: 0 });
  await insertModel(t, 'dev');
  await insertModel(everyAttempt, 'dev');
});
afterAll(async () => {
  await everyAttempt?.stop();
  await t?.stop();
  await server?.close();
});

async function agentWithConnection(app: TestApp, name: string): Promise<{ agentId: string; connectionId: string }> {
  const provider = await app.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name, config: { url: server.url } } });
  const connection = await app.rest('POST', '/api/v1/connections', {
    body: { provider_id: provider.body.id, name, config: { url: server.url }, credential: { bearer_token: 'first-token' } },
  });
  expect(connection.status, JSON.stringify(connection.body)).toBe(201);
  const agent = await app.rest('POST', '/api/v1/agents', {
    body: {
      name,
      config: {
        model: 'dev',
        connection_tools: [{ connection_id: connection.body.id }],
        model_settings: { script: [[{ tool_call: { id: 'c1', name: 'lookup', arguments: { word: 'tide' } } }], [{ text: 'done' }]] },
      },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return { agentId: agent.body.id, connectionId: connection.body.id };
}

/** Starts `count` runs at once on `app`, waits for them all, and checks each called the MCP tool. */
async function runTogether(app: TestApp, agentId: string, count: number) {
  const started = await Promise.all(
    Array.from({ length: count }, () => app.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('look it up') } })),
  );
  for (const run of started) expect(run.status, JSON.stringify(run.body)).toBe(201);
  for (const run of started) {
    const finished = await settleRun(app, run.body.id);
    expect(finished.status, JSON.stringify(finished.failure)).toBe('completed');
    const items = (await app.rest('GET', `/api/v1/runs/${run.body.id}/items?limit=100`)).body.items;
    expect(items.find((item: any) => item.kind === 'tool_result')?.content.result).toBe('found tide');
  }
}

describe('MCP tool listings in runs', () => {
  it('runs started together share one listing, and a later run within the TTL lists nothing', async () => {
    const { agentId, connectionId } = await agentWithConnection(t, 'shared listing');
    listings = 0;
    await runTogether(t, agentId, 4);
    expect(listings).toBe(1);
    await runTogether(t, agentId, 1);
    expect(listings).toBe(1);
    // A new credential is a new client and a new listing (what the server lists may depend on who asks).
    const current = await t.rest('GET', `/api/v1/connections/${connectionId}`);
    const updated = await t.rest('PATCH', `/api/v1/connections/${connectionId}`, {
      body: { credential: { bearer_token: 'second-token' } },
      headers: { 'if-match': current.headers.get('etag')! },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    await runTogether(t, agentId, 1);
    expect(listings).toBe(2);
  });

  it('with MCP_TOOLS_LIST_TTL_SECONDS=0, every attempt lists for itself', async () => {
    const { agentId } = await agentWithConnection(everyAttempt, 'every attempt');
    listings = 0;
    await runTogether(everyAttempt, agentId, 3);
    expect(listings).toBe(3);
  });

  it('MCP_TOOLS_LIST_TTL_SECONDS is 10 by default, from 0 to 3600', () => {
    expect(loadConfig({}).mcpToolsListTtlSeconds).toBe(10);
    expect(loadConfig({ MCP_TOOLS_LIST_TTL_SECONDS: '0' }).mcpToolsListTtlSeconds).toBe(0);
    for (const value of ['-1', '3601', '2.5', 'soon']) expect(() => loadConfig({ MCP_TOOLS_LIST_TTL_SECONDS: value })).toThrow(ConfigError);
  });
});
