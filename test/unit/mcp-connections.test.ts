// Pure parts of MCP connections: the client pool's sharing, idle closing
// and dropping of broken clients (with a client double that only counts: the protocol itself is
// tested against the reference server in test/engine/mcp-connections.test.ts), tool result shapes.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpClientPool } from '../../src/engine/tools/mcp-pool.js';
import { endpointHeaders, redactSecrets, toolErrorText, toolResultValue } from '../../src/providers/mcp-client.js';

describe('the MCP client pool', () => {
  function doubles() {
    const opened: { closed: Promise<void> }[] = [];
    const connect = async () => {
      let markClosed!: () => void;
      const closed = new Promise<void>((resolve) => (markClosed = resolve));
      opened.push({ closed });
      return { close: async () => markClosed() } as unknown as Client;
    };
    return { opened, connect };
  }
  const endpoint = { config: { url: 'https://example.com' }, credential: null, fetch };

  it('shares one client per key, and closes it once it has been idle', async () => {
    const { opened, connect } = doubles();
    const pool = new McpClientPool({ idleMs: 5, connect });
    await Promise.all([pool.use('a', endpoint, async () => 1), pool.use('a', endpoint, async () => 2)]);
    await pool.use('b', endpoint, async () => 3);
    expect(opened).toHaveLength(2);
    // Closed by the idle timer: the signal is the client's close.
    await Promise.all(opened.map((o) => o.closed));
    expect(pool.size).toBe(0);
    await pool.use('a', endpoint, async () => 4);
    expect(opened).toHaveLength(3);
    await pool.closeAll();
    await opened[2]!.closed;
  });

  it('keeps a client after an answer from the server, drops it after a transport failure', async () => {
    const { opened, connect } = doubles();
    const pool = new McpClientPool({ idleMs: 60_000, connect });
    await expect(pool.use('a', endpoint, async () => Promise.reject(new McpError(-32602, 'bad arguments')))).rejects.toThrow(
      'bad arguments',
    );
    expect(pool.size).toBe(1);
    await expect(pool.use('a', endpoint, async () => Promise.reject(new TypeError('fetch failed')))).rejects.toThrow('fetch failed');
    await opened[0]!.closed;
    expect(pool.size).toBe(0);
    await pool.closeAll();
  });
});

describe('MCP endpoints and results', () => {
  it('sends the credential headers, the bearer token, then the extra headers; redacts them from messages', () => {
    const endpoint = {
      config: { url: 'https://example.com' },
      credential: { bearer_token: 'secret-token', headers: { 'X-Key': 'header-secret' } },
      extraHeaders: { 'X-User': 'u1' },
      fetch,
    };
    expect(endpointHeaders(endpoint)).toEqual({ 'X-Key': 'header-secret', authorization: 'Bearer secret-token', 'X-User': 'u1' });
    expect(redactSecrets('echo: Bearer secret-token and header-secret', endpoint)).toBe('echo: [redacted] and [redacted]');
  });

  it('gives the model structured content, else text, else described parts', () => {
    expect(
      toolResultValue({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(toolResultValue({ content: [], structuredContent: { sum: 3 } })).toEqual({ sum: 3 });
    expect(
      toolResultValue({
        content: [
          { type: 'text', text: 'img' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        ],
      }),
    ).toEqual([
      { type: 'text', text: 'img' },
      { type: 'image', mime_type: 'image/png', bytes: 3 },
    ]);
    expect(toolErrorText({ content: [{ type: 'text', text: 'boom' }], isError: true })).toBe('boom');
  });
});
