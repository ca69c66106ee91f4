// A cluster on loopback for the fault suite (test/engine/faults.test.ts, npm run faults): two API-only
// instances (RUN_WORKERS=0) and two worker processes on one database of a PostgreSQL server of the
// suite's own (./own-postgres.ts, which a fault really stops and starts) and a Redis server of the
// cluster's own. Each instance reaches PostgreSQL through a TCP relay of its own, so a fault can also
// take the database away from every instance (a network fault) or from one worker only (a
// partition). Nothing here imports vitest: the bench script drives the same cluster outside the test
// runner.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { startServiceProcess, startWorkerProcess, type ChildService } from './process.js';
import { startOwnRedis, type OwnRedis } from './redis.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { startOwnPostgres, type OwnPostgres } from './own-postgres.js';
import { applyMigrations } from '../../src/storage/migrate.js';
import { createLogger } from '../../src/lib/logger.js';
import { addLoopbackModel, startOpenAICompatibleServer, type ModelServer } from './model-servers.js';

export interface Instance {
  name: string;
  kind: 'api' | 'worker';
  process: ChildService;
  /** API instances: the base URL. */
  url: string;
  /** This instance's own way to PostgreSQL. */
  proxy: TcpProxy;
  /** Set when the suite ended it on purpose (a kill or a stop), so an exit is not a failure. */
  ended: boolean;
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export interface ClusterOptions {
  /** A migrated database of the cluster's own, on `postgres`. */
  databaseUrl: string;
  /** The server `databaseUrl` is on, which the restart faults stop and start. */
  postgres: OwnPostgres;
  dataDir: string;
  apiKey: string;
  /** Workers' RUN_LEASE_MS: short, so that a partitioned worker's runs are taken over soon. */
  leaseMs: number;
  /** Run workers in each worker process. */
  workersPerProcess: number;
}

/** A PostgreSQL server of the suite's own with one migrated database on it, for a Cluster. */
export async function startFaultDatabase(): Promise<{ postgres: OwnPostgres; databaseUrl: string }> {
  const postgres = await startOwnPostgres();
  try {
    const admin = new pg.Client({ connectionString: postgres.adminUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE wsa_faults').finally(() => admin.end());
    const url = new URL(postgres.adminUrl);
    url.pathname = '/wsa_faults';
    await applyMigrations(url.toString(), createLogger('warn'));
    return { postgres, databaseUrl: url.toString() };
  } catch (error) {
    await postgres.destroy();
    throw error;
  }
}

export class Cluster {
  readonly instances: Instance[] = [];
  /** Processes that exited without the suite ending them: a failure of the fault suite. */
  readonly unexpectedExits: string[] = [];
  private counter = 0;

  private constructor(
    readonly options: ClusterOptions,
    readonly redis: OwnRedis,
    readonly model: ModelServer,
  ) {}

  static async start(options: ClusterOptions): Promise<Cluster> {
    const cluster = new Cluster(options, await startOwnRedis(), await startOpenAICompatibleServer());
    // The first API instance creates the workspace and its key (BOOTSTRAP_API_KEY); the others join.
    await cluster.startInstance('api', { BOOTSTRAP_API_KEY: options.apiKey });
    await Promise.all([cluster.startInstance('api'), cluster.startInstance('worker'), cluster.startInstance('worker')]);
    await addLoopbackModel({ rest: (method, path, o) => cluster.rest(method, path, o?.body) }, cluster.model, 'loop');
    return cluster;
  }

  /** Starts one more instance of `kind` behind a new relay to PostgreSQL. */
  async startInstance(kind: 'api' | 'worker', extra: Record<string, string> = {}): Promise<Instance> {
    // The relay stays in front of the server across its restarts (as a load balancer or a pooler
    // would): while the server is down, it accepts a connection and drops it when the server refuses.
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: this.options.postgres.port });
    const relayed = new URL(this.options.databaseUrl);
    relayed.port = String(proxy.port);
    const env = {
      DATABASE_URL: relayed.toString(),
      DATA_DIR: this.options.dataDir,
      REDIS_URL: this.redis.url,
      ALLOW_PLAIN_HTTP_ENDPOINTS: '127.0.0.1',
      RUN_LEASE_MS: String(this.options.leaseMs),
      // The fault suite's environment commands run in `local` environments (a development type).
      ALLOW_LOCAL_ENVIRONMENTS: 'true',
      // No rate limit on the suite's one API key: an outage's probes (four requests per instance
      // every 100 ms) pass the default 1,200 a minute within 30 s, and the reads that follow would
      // measure the limit's window (429s) instead of the cluster's recovery.
      RATE_LIMIT_PER_KEY: '0',
      ...extra,
    };
    const name = `${kind}${this.counter++}`;
    const started =
      kind === 'api'
        ? await startServiceProcess({ ...env, RUN_WORKERS: '0' })
        : { ...(await startWorkerProcess({ ...env, RUN_WORKERS: String(this.options.workersPerProcess) })), url: '' };
    const instance: Instance = { name, kind, process: started, url: started.url, proxy, ended: false };
    void started.exited.then((code) => {
      if (!instance.ended) this.unexpectedExits.push(`${name} exited (${code}):\n${started.output().slice(-3000)}`);
    });
    this.instances.push(instance);
    return instance;
  }

  live(kind: 'api' | 'worker'): Instance[] {
    return this.instances.filter((i) => i.kind === kind && !i.ended && i.process.child.exitCode === null);
  }

  /** SIGKILL, as a crash. */
  async kill(instance: Instance): Promise<void> {
    instance.ended = true;
    instance.process.child.kill('SIGKILL');
    await instance.process.exited;
    await instance.proxy.close();
  }

  /** SIGTERM, as a deploy stops an instance; resolves with its exit code. */
  async terminate(instance: Instance): Promise<number | null> {
    instance.ended = true;
    instance.process.child.kill('SIGTERM');
    const code = await instance.process.exited;
    await instance.proxy.close();
    return code;
  }

  /** A REST call through the first live API instance (or the one given). */
  async rest(method: string, path: string, body?: unknown, via?: Instance, headers: Record<string, string> = {}): Promise<RestAnswer> {
    const api = via ?? this.live('api')[0];
    if (!api) throw new Error('no API instance is running');
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.options.apiKey}`, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: kept as text for the report.
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  /** Every stored item of a run (paged by ordinal). */
  async storedItems(runId: string): Promise<StreamedItem[]> {
    const items: StreamedItem[] = [];
    for (;;) {
      const after = items.at(-1)?.ordinal ?? 0;
      const page = await this.rest('GET', `/api/v1/runs/${runId}/items?after=${after}&limit=200`);
      if (page.status !== 200) throw new Error(`items of ${runId}: ${page.status} ${JSON.stringify(page.body)}`);
      const got = (page.body.items as any[]).map((i) => ({
        ordinal: i.ordinal,
        kind: i.kind,
        state: i.state,
        content: i.content,
        lastStreamId: i.last_stream_id,
      }));
      items.push(...got);
      if (got.length < 200) return items;
    }
  }

  async stop(): Promise<void> {
    for (const instance of this.instances) {
      instance.ended = true;
      if (instance.process.child.exitCode === null && instance.process.child.signalCode === null) {
        instance.process.child.kill('SIGKILL');
        await instance.process.exited;
      }
      await instance.proxy.close();
    }
    await this.redis.stop();
    await this.model.close();
  }
}

export interface StreamedItem {
  ordinal: number;
  kind: string;
  state: string;
  content: any;
  lastStreamId: string;
}

const sequenceOf = (streamId: string | null | undefined) => (streamId ? Number(streamId.slice(1)) : 0);

const RUN_ITEMS = `subscription($runId: ID!, $position: String) {
  runItems(runId: $runId, position: $position) { ordinal kind state content lastStreamId }
}`;

/**
 * A client following one run's items over graphql-ws as a UI would: when its connection drops it
 * reconnects to another live API instance with `position` (the highest lastStreamId it received);
 * when the service refuses for a while (503 unavailable) it asks again after a short pause.
 */
export class Follower {
  readonly events: StreamedItem[] = [];
  /** Connections lost and made again elsewhere. */
  reconnects = 0;
  /** Subscriptions refused (e.g. 503 unavailable while the database is away) and asked again. */
  refusals = 0;
  /** When the first event after each reconnect arrived (epoch ms). */
  readonly resumedAt: number[] = [];
  completed = false;
  readonly done: Promise<void>;
  private position: string | null = null;
  private client: Client | null = null;
  private closed = false;
  private awaitingResume = false;

  constructor(
    private readonly cluster: Cluster,
    readonly runId: string,
    private gateway: Instance,
  ) {
    this.done = this.follow();
  }

  get via(): Instance {
    return this.gateway;
  }

  private async follow(): Promise<void> {
    for (let round = 0; !this.closed; round++) {
      if (round > 2000) throw new Error(`follower of ${this.runId} gave up after ${round} subscriptions`);
      const outcome = await this.subscribeOnce();
      if (outcome === 'complete') {
        this.completed = true;
        return;
      }
      if (outcome === 'closed') return;
      if (outcome === 'refused') {
        this.refusals++;
        await new Promise((resolve) => setTimeout(resolve, 250));
        continue;
      }
      // The connection dropped: another live gateway (or the same, if it is the only one left).
      this.reconnects++;
      this.awaitingResume = true;
      const apis = this.cluster.live('api');
      this.gateway = apis.find((api) => api !== this.gateway) ?? apis[0] ?? this.gateway;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private subscribeOnce(): Promise<'complete' | 'dropped' | 'refused' | 'closed'> {
    const client = createClient({
      url: `${this.gateway.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${this.cluster.options.apiKey}` },
      retryAttempts: 0,
      lazy: true,
    });
    this.client = client;
    return new Promise((resolve) => {
      const finish = (outcome: 'complete' | 'dropped' | 'refused' | 'closed') => {
        void client.dispose();
        resolve(this.closed ? 'closed' : outcome);
      };
      client.subscribe<{ runItems: StreamedItem }>(
        { query: RUN_ITEMS, variables: { runId: this.runId, position: this.position } },
        {
          next: (value) => {
            if (value.errors?.length) {
              // A refusal for a passing cause is asked again; anything else is the suite's failure.
              const code = (value.errors[0] as { extensions?: { code?: string } }).extensions?.code;
              if (code === 'unavailable') return finish('refused');
              throw new Error(`runItems of ${this.runId}: ${JSON.stringify(value.errors)}`);
            }
            const item = value.data!.runItems;
            this.events.push(item);
            if (this.awaitingResume) {
              this.awaitingResume = false;
              this.resumedAt.push(Date.now());
            }
            if (sequenceOf(item.lastStreamId) > sequenceOf(this.position)) this.position = item.lastStreamId;
          },
          error: (error) => {
            const errors = Array.isArray(error) ? error : [];
            const code = (errors[0] as { extensions?: { code?: string } } | undefined)?.extensions?.code;
            finish(code === 'unavailable' ? 'refused' : 'dropped');
          },
          complete: () => finish('complete'),
        },
      );
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.client?.dispose();
  }
}

export interface StreamCheck {
  itemsChecked: number;
  /** Changes a client missed: an item state that does not extend the one before, or a final state unlike the stored one, or a stored item never seen. */
  gaps: number;
  /** Changes a client got twice (a stream id not above the item's previous one). */
  duplicates: number;
  problems: string[];
}

/** What a follower saw of its run against what the database stores at the end. */
export function checkStream(follower: Follower, stored: StreamedItem[]): StreamCheck {
  const check: StreamCheck = { itemsChecked: stored.length, gaps: 0, duplicates: 0, problems: [] };
  const last = new Map<number, StreamedItem>();
  for (const event of follower.events) {
    const before = last.get(event.ordinal);
    if (before) {
      if (sequenceOf(event.lastStreamId) <= sequenceOf(before.lastStreamId)) {
        check.duplicates++;
        check.problems.push(`run ${follower.runId} item ${event.ordinal}: ${event.lastStreamId} after ${before.lastStreamId}`);
      }
      const was = before.content?.text;
      const now = event.content?.text;
      if (typeof was === 'string' && typeof now === 'string' && !now.startsWith(was)) {
        check.gaps++;
        check.problems.push(`run ${follower.runId} item ${event.ordinal}: "${now.slice(0, 40)}" does not extend "${was.slice(0, 40)}"`);
      }
    }
    last.set(event.ordinal, event);
  }
  for (const item of stored) {
    const seen = last.get(item.ordinal);
    if (!seen || seen.state !== item.state || !isDeepStrictEqual(seen.content, item.content)) {
      check.gaps++;
      check.problems.push(
        `run ${follower.runId} item ${item.ordinal}: saw ${seen ? `${seen.state} ${JSON.stringify(seen.content).slice(0, 80)}` : 'nothing'}, stored ${item.state} ${JSON.stringify(item.content).slice(0, 80)}`,
      );
    }
  }
  for (const ordinal of last.keys())
    if (!stored.some((item) => item.ordinal === ordinal)) {
      check.gaps++;
      check.problems.push(
        `run ${follower.runId}: saw item ${ordinal}, which is not stored (stored: ${stored.map((i) => `${i.ordinal} ${i.kind} ${i.state} ${JSON.stringify(i.content).slice(0, 60)}`).join('; ')})`,
      );
    }
  return check;
}
