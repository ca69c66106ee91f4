// MCP clients kept open between calls: one per connection, credential and extra headers (the key
// the caller computes), shared by every run of the process, closed after a minute unused and when
// the app stops. A client whose transport failed is retired, so the next use connects again; an
// answer from the server (an MCP error) leaves it in the pool. A retired client is closed only once
// its last call has ended: closing it rejects every call still in flight on it with "Connection
// closed", so one failed request would otherwise fail the tool calls of every other run sharing it.
//
// The pool also keeps each client's last tool listing (MCP_TOOLS_LIST_TTL_SECONDS): attempts that start
// together share one `tools/list`, and an answer stays good for the next attempts until it is older
// than the TTL, the server says its tools changed, or the client is retired. Without it, every attempt
// of every run sent its own listing: a burst of runs on one connection opened as many HTTP requests to
// the server at once, and spent more CPU on them than on anything else in starting the run.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectMcpClient, listMcpTools, type McpClientListeners, type McpEndpoint, type McpTool } from '../../providers/mcp-client.js';
import type { Deps } from '../../services/deps.js';

export const MCP_IDLE_MS = 60_000;

/** A `tools/list` of one client: in flight (`answeredAt` null), or answered at that time. */
interface Listing {
  tools: Promise<McpTool[]>;
  answeredAt: number | null;
}

interface Entry {
  client: Promise<Client>;
  users: number;
  idle: NodeJS.Timeout | null;
  listing: Listing | null;
}

export interface McpClientPoolOptions {
  idleMs?: number;
  connect?: (endpoint: McpEndpoint, listeners: McpClientListeners) => Promise<Client>;
  /** How long a listing's answer is used for new attempts; 0: every attempt lists for itself. */
  toolsListTtlMs?: number;
  /** The clock listings are aged by (milliseconds). */
  now?: () => number;
}

export class McpClientPool {
  private readonly entries = new Map<string, Entry>();
  /** Clients taken out of the pool whose calls have not all ended yet: closed by the last one. */
  private readonly retired = new Set<Entry>();

  private readonly idleMs: number;
  private readonly connect: (endpoint: McpEndpoint, listeners: McpClientListeners) => Promise<Client>;
  private readonly toolsListTtlMs: number;
  private readonly now: () => number;

  constructor(options: McpClientPoolOptions = {}) {
    this.idleMs = options.idleMs ?? MCP_IDLE_MS;
    this.connect = options.connect ?? ((endpoint, listeners) => connectMcpClient(endpoint, undefined, listeners));
    this.toolsListTtlMs = options.toolsListTtlMs ?? 0;
    this.now = options.now ?? (() => performance.now());
  }

  /** Open clients (connected or connecting). */
  get size(): number {
    return this.entries.size;
  }

  /** Runs `work` with the client of `key` (connecting it with `endpoint` when there is none). */
  async use<T>(key: string, endpoint: McpEndpoint, work: (client: Client) => Promise<T>): Promise<T> {
    return this.useEntry(key, this.entryFor(key, endpoint), work);
  }

  /**
   * The server's tools: the listing of the client of `key` that is in flight or was answered at most
   * the TTL ago, else a new one. A failed listing is not kept (the next attempt asks again).
   */
  async listTools(key: string, endpoint: McpEndpoint): Promise<McpTool[]> {
    if (this.toolsListTtlMs <= 0) return this.use(key, endpoint, (client) => listMcpTools(client));
    const entry = this.entryFor(key, endpoint);
    const kept = entry.listing;
    if (kept && (kept.answeredAt === null || this.now() - kept.answeredAt <= this.toolsListTtlMs)) return kept.tools;
    const listing: Listing = { tools: this.useEntry(key, entry, (client) => listMcpTools(client)), answeredAt: null };
    entry.listing = listing;
    listing.tools.then(
      () => (listing.answeredAt = this.now()),
      () => {
        if (entry.listing === listing) entry.listing = null;
      },
    );
    return listing.tools;
  }

  /** The entry of `key`, connecting a client for it when there is none. */
  private entryFor(key: string, endpoint: McpEndpoint): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      // A change the server announces makes the kept listing old, the one in flight included (it may
      // have been answered before the change): its waiters still get it, the next attempt lists anew.
      const created: Entry = {
        client: this.connect(endpoint, { onToolsChanged: () => (created.listing = null) }),
        users: 0,
        idle: null,
        listing: null,
      };
      this.entries.set(key, (entry = created));
    }
    return entry;
  }

  private async useEntry<T>(key: string, entry: Entry, work: (client: Client) => Promise<T>): Promise<T> {
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
  if (!pool) pools.set(deps, (pool = new McpClientPool({ toolsListTtlMs: deps.config.mcpToolsListTtlSeconds * 1000 })));
  return pool;
}

/** Closes the app's MCP clients (app.stop, a worker process's stop). */
export async function closeMcpPool(deps: Deps): Promise<void> {
  await pools.get(deps)?.closeAll();
}
