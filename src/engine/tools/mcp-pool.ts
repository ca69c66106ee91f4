// MCP clients kept open between calls: one per connection, credential and extra headers (the key
// the caller computes), shared by every run of the process, closed after a minute unused and when
// the app stops. A client whose transport failed is dropped, so the next use connects again; an
// answer from the server (an MCP error) leaves it in the pool.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectMcpClient, type McpEndpoint } from '../../providers/mcp-client.js';
import type { Deps } from '../../services/deps.js';

export const MCP_IDLE_MS = 60_000;

interface Entry {
  client: Promise<Client>;
  users: number;
  idle: NodeJS.Timeout | null;
}

export class McpClientPool {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly idleMs = MCP_IDLE_MS,
    private readonly connect: (endpoint: McpEndpoint) => Promise<Client> = connectMcpClient,
  ) {}

  /** Open clients (connected or connecting). */
  get size(): number {
    return this.entries.size;
  }

  /** Runs `work` with the client of `key` (connecting it with `endpoint` when there is none). */
  async use<T>(key: string, endpoint: McpEndpoint, work: (client: Client) => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { client: this.connect(endpoint), users: 0, idle: null };
      this.entries.set(key, entry);
    }
    entry.users += 1;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
    try {
      return await work(await entry.client);
    } catch (error) {
      // The server answered (an MCP error): the session is fine. Anything else may have broken it.
      if (!(error instanceof McpError)) this.drop(key, entry);
      throw error;
    } finally {
      entry.users -= 1;
      if (entry.users === 0 && this.entries.get(key) === entry) {
        entry.idle = setTimeout(() => this.drop(key, entry), this.idleMs);
        entry.idle.unref();
      }
    }
  }

  private drop(key: string, entry: Entry) {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
    entry.client.then((client) => client.close()).catch(() => undefined);
  }

  /** Closes every client (the app stops). */
  async closeAll(): Promise<void> {
    const entries = [...this.entries];
    this.entries.clear();
    await Promise.all(
      entries.map(async ([, entry]) => {
        if (entry.idle) clearTimeout(entry.idle);
        const client = await entry.client.catch(() => null);
        await client?.close().catch(() => undefined);
      }),
    );
  }
}

const pools = new WeakMap<Deps, McpClientPool>();

/** The pool of one app instance (its Deps): what its workers' runs share. */
export function mcpPool(deps: Deps): McpClientPool {
  let pool = pools.get(deps);
  if (!pool) pools.set(deps, (pool = new McpClientPool()));
  return pool;
}

/** Closes the app's MCP clients (app.stop, a worker process's stop). */
export async function closeMcpPool(deps: Deps): Promise<void> {
  await pools.get(deps)?.closeAll();
}
