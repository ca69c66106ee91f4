// The MCP client pool over the real protocol: one client shared by concurrent tool calls (as the runs
// of a process share it), against an MCP server of the SDK over streamable HTTP on a loopback port.
// When one call's request fails at the transport (the server answers HTTP 500), the pool retires the
// client, but the calls still in flight on it must finish with their own answers, not with
// "Connection closed" (closing the client rejects every call pending on it).
// Tool listings: attempts that start together share one `tools/list`, an answer serves later attempts
// for the TTL (on the pool's clock, which the test moves), a failed listing is never kept, and a server
// that announces a change of its tools (`notifications/tools/list_changed`) is listed anew.
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClientPool } from '../../src/engine/tools/mcp-pool.js';
import { toolResultValue, type McpEndpoint } from '../../src/providers/mcp-client.js';
import { startSdkMcpServer, startStatefulSdkMcpServer } from '../helpers/mcp-servers.js';
import { waitFor } from '../helpers/wait.js';

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
/** `tools/list` requests the server answered, and how the next ones go: `hold` waits for the test, `fail` answers an MCP error. */
let listings = 0;
let listingMode: 'answer' | 'fail' = 'answer';
let listingHeld: ReturnType<typeof gate> | null = null;
const toolNames = ['held'];

beforeAll(async () => {
  server = await startSdkMcpServer(
    (mcp) => {
      mcp.setRequestHandler(ListToolsRequestSchema, async () => {
        listings += 1;
        await listingHeld?.opened;
        if (listingMode === 'fail') throw new McpError(-32603, 'listing failed');
        return {
          tools: toolNames.map((name) => ({
            name,
            description: 'Answers when the test lets it.',
            inputSchema: { type: 'object' as const },
          })),
        };
      });
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
    const pool = new McpClientPool({ idleMs: 60_000 });
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

describe('tool listings of the MCP client pool', () => {
  const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

  it('shares a listing in flight, keeps an answer for the TTL on its clock, then lists again', async () => {
    let clock = 0;
    const pool = new McpClientPool({ toolsListTtlMs: 10_000, now: () => clock });
    listings = 0;
    listingHeld = gate();
    try {
      const together = [pool.listTools('k', endpoint), pool.listTools('k', endpoint), pool.listTools('k', endpoint)];
      await waitFor(
        async () => listings,
        (count) => count === 1,
        'the listing to reach the server',
      );
      listingHeld.open();
      for (const tools of await Promise.all(together)) expect(names(tools)).toEqual(['held']);
      expect(listings).toBe(1);
      clock = 10_000;
      expect(names(await pool.listTools('k', endpoint))).toEqual(['held']);
      expect(listings).toBe(1);
      // Another key (another credential or thread's headers) has a listing of its own.
      await pool.listTools('other', endpoint);
      expect(listings).toBe(2);
      clock = 10_001;
      await pool.listTools('k', endpoint);
      expect(listings).toBe(3);
    } finally {
      listingHeld = null;
      await pool.closeAll();
    }
  });

  it('with a TTL of 0, lists for every attempt, even together', async () => {
    const pool = new McpClientPool({ toolsListTtlMs: 0, now: () => 0 });
    listings = 0;
    try {
      await Promise.all([pool.listTools('k', endpoint), pool.listTools('k', endpoint)]);
      await pool.listTools('k', endpoint);
      expect(listings).toBe(3);
    } finally {
      await pool.closeAll();
    }
  });

  it('keeps no failed listing: the attempts that shared it fail, the next one asks again', async () => {
    const pool = new McpClientPool({ toolsListTtlMs: 60_000, now: () => 0 });
    listings = 0;
    listingMode = 'fail';
    listingHeld = gate();
    try {
      const together = [pool.listTools('k', endpoint), pool.listTools('k', endpoint)];
      await waitFor(
        async () => listings,
        (count) => count === 1,
        'the listing to reach the server',
      );
      listingHeld.open();
      for (const result of await Promise.allSettled(together)) expect(result).toMatchObject({ status: 'rejected' });
      listingMode = 'answer';
      expect(names(await pool.listTools('k', endpoint))).toEqual(['held']);
      expect(listings).toBe(2);
    } finally {
      listingMode = 'answer';
      listingHeld = null;
      await pool.closeAll();
    }
  });

  it('lists again after the server announces that its tools changed', async () => {
    let tools = ['first'];
    let listed = 0;
    const stateful = await startStatefulSdkMcpServer((mcp) => {
      mcp.setRequestHandler(ListToolsRequestSchema, async () => {
        listed += 1;
        return { tools: tools.map((name) => ({ name, inputSchema: { type: 'object' as const } })) };
      });
    });
    const pool = new McpClientPool({ toolsListTtlMs: 3_600_000 });
    const statefulEndpoint: McpEndpoint = { config: { url: stateful.url }, credential: null, fetch };
    try {
      expect(names(await pool.listTools('s', statefulEndpoint))).toEqual(['first']);
      expect(names(await pool.listTools('s', statefulEndpoint))).toEqual(['first']);
      expect(listed).toBe(1);
      // The client's event stream is where the announcement travels: the server is told once it is open.
      await waitFor(
        async () => stateful.openStreams(),
        (open) => open === 1,
        "the client's event stream",
      );
      tools = ['first', 'second'];
      await stateful.toolsChanged();
      await waitFor(
        async () => names(await pool.listTools('s', statefulEndpoint)),
        (listedNow) => listedNow.includes('second'),
        'the announced tool',
      );
      expect(listed).toBe(2);
      expect(names(await pool.listTools('s', statefulEndpoint))).toEqual(['first', 'second']);
      expect(listed).toBe(2);
    } finally {
      await pool.closeAll();
      await stateful.close();
    }
  });
});
