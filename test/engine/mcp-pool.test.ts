// The MCP client pool over the real protocol: one client shared by concurrent tool calls (as the runs
// of a process share it), against an MCP server of the SDK over streamable HTTP on a loopback port.
// When one call's request fails at the transport (the server answers HTTP 500), the pool retires the
// client, but the calls still in flight on it must finish with their own answers, not with
// "Connection closed" (closing the client rejects every call pending on it).
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClientPool } from '../../src/engine/tools/mcp-pool.js';
import { connectMcpClient, toolResultValue, type McpEndpoint } from '../../src/providers/mcp-client.js';
import { startSdkMcpServer } from '../helpers/mcp-servers.js';

/** Settled from outside: the server's signals to the test (a call arrived) and the test's to the server (answer it). */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

let server: { url: string; close(): Promise<void> };
let endpoint: McpEndpoint;
/** Sessions the server saw initialized (each pooled client opens one). */
let initializations = 0;
let heldArrived = gate();
let releaseHeld = gate();

beforeAll(async () => {
  server = await startSdkMcpServer(
    (mcp) => {
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
        tools: [{ name: 'held', description: 'Answers when the test lets it.', inputSchema: { type: 'object' } }],
      }));
      mcp.setRequestHandler(CallToolRequestSchema, async () => {
        heldArrived.open();
        await releaseHeld.opened;
        return { content: [{ type: 'text', text: 'held answer' }] };
      });
    },
    (message, res) => {
      if (message?.method === 'initialize') initializations += 1;
      // A tool named "broken" fails at the transport: the request is answered with HTTP 500.
      if (message?.method !== 'tools/call' || message.params?.name !== 'broken') return false;
      res.writeHead(500).end('broken');
      return true;
    },
  );
  endpoint = { config: { url: server.url }, credential: null, fetch };
});

afterAll(async () => {
  await server?.close();
});

describe('the MCP client pool with a real server', () => {
  it('lets calls in flight on a client finish when another call on it fails at the transport, then connects anew', async () => {
    heldArrived = gate();
    releaseHeld = gate();
    const pool = new McpClientPool(60_000, connectMcpClient);
    try {
      const held = pool.use('k', endpoint, (client) => client.callTool({ name: 'held', arguments: {} }));
      await heldArrived.opened;
      const broken = pool.use('k', endpoint, (client) => client.callTool({ name: 'broken', arguments: {} }));
      await expect(broken).rejects.toThrow(/500|broken/);
      // The failed request retired the client: a new use connects a second one, while the held call
      // still waits on the first.
      expect(pool.size).toBe(0);
      releaseHeld.open();
      expect(toolResultValue(await held)).toBe('held answer');
      const again = await pool.use('k', endpoint, (client) => client.callTool({ name: 'held', arguments: {} }));
      expect(toolResultValue(again)).toBe('held answer');
      expect(initializations).toBe(2);
    } finally {
      await pool.closeAll();
    }
  });
});
