// A tiny MCP server over stdio (the SDK's own), for connector probe tests.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'stdio-loop', version: '1' });
server.tool('first', 'First tool', async () => ({ content: [{ type: 'text', text: '1' }] }));
server.tool('second', 'Second tool', async () => ({ content: [{ type: 'text', text: '2' }] }));
await server.connect(new StdioServerTransport());
