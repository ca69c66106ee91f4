// MCP clients kept open between calls: one per connection, credential and extra headers (the key
// the caller computes), shared by every run of the process, closed after a minute unused and when
// the app stops. A client whose transport failed is retired, so the next use connects again; an
// answer from the server (an MCP error) leaves it in the pool. A retired client is closed only once
// its last call has ended: closing it rejects every call still in flight on it with "Connection
// closed", so one failed request would otherwise fail the tool calls of every other run sharing it.
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
  /** Clients taken out of the pool whose calls have not all ended yet: closed by the last one. */
  private readonly retired = new Set<Entry>();

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
      // The server answered (an MCP error, a time-out or the caller's abort included): the session is
      // fine. Anything else (the request failed, the answer did not parse) may have broken it.
      if (!(error instanceof McpError)) this.retire(key, entry);
      throw error;
    } finally {
      entry.users -= 1;
      if (entry.users === 0) {
        if (this.retired.has(entry)) this.close(entry);
        else if (this.entries.get(key) === entry) {
          entry.idle = setTimeout(() => this.retire(key, entry), this.idleMs);
          entry.idle.unref();
        }
      }
    }
  }

  /** Takes the client out of the pool (the next use connects anew); it is closed once no call uses it. */
  private retire(key: string, entry: Entry) {
    if (this.entries.get(key) === entry) this.entries.delete(key);
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
    this.retired.add(entry);
    if (entry.users === 0) this.close(entry);
  }

  private close(entry: Entry) {
    this.retired.delete(entry);
    entry.client.then((client) => client.close()).catch(() => undefined);
  }

  /** Closes every client, retired ones still in use included (the app stops). */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values(), ...this.retired];
    this.entries.clear();
    this.retired.clear();
    await Promise.all(
      entries.map(async (entry) => {
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
