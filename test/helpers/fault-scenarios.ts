// The faults of the fault suite, each on a running Cluster (./fault-cluster.ts) with clients
// streaming throughout, each returning its figures: runs started and completed, items checked
// against the database, gaps, duplicates, repeated side effects, the time to recover, and every
// problem seen in words. The slow tier (test/engine/faults.test.ts) runs each once at its smallest
// and asserts on the figures; `npm run faults` (bench/faults.ts) runs them bigger and prints them.
// Runs are held mid-stream by gates on the loopback model when a fault strikes, so every fault
// provably hits runs in flight, whatever the machine's speed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { streamGate } from './model-servers.js';
import { checkStream, Follower, type Cluster, type Instance } from './fault-cluster.js';
import type { StopMode } from './own-postgres.js';

export interface Figures {
  fault: string;
  runsStarted: number;
  runsCompleted: number;
  itemsChecked: number;
  gaps: number;
  duplicates: number;
  repeatedSideEffects: number;
  /** From the fault's end (or, for a kill, the fault) to the cluster serving again; see each scenario. */
  recoveryMs: number;
  /** Answers with a 5xx other than 503, and 503s without Retry-After. */
  bad5xx: number;
  /** The most reconnects one client needed. */
  maxReconnects: number;
  /** Requests answered 503 `unavailable` with Retry-After while a dependency was away. */
  refused: number;
  problems: string[];
}

const figures = (fault: string): Figures => ({
  fault,
  runsStarted: 0,
  runsCompleted: 0,
  itemsChecked: 0,
  gaps: 0,
  duplicates: 0,
  repeatedSideEffects: 0,
  recoveryMs: 0,
  bad5xx: 0,
  maxReconnects: 0,
  refused: 0,
  problems: [],
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined;
    try {
      value = await read();
      if (ok(value)) return value;
    } catch (error) {
      // A read that fails (e.g. an instance going away) is read again until the deadline.
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)?.slice(0, 300)}`);
    await sleep(everyMs);
  }
}

const answerOf = (scenario: string, n: number) =>
  `${scenario} answer ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(2)}end.`;

interface Held {
  agentId: string;
  runs: { id: string }[];
  /** Gate k holds the k-th model request of this scenario. */
  gates: ReturnType<typeof streamGate>[];
  answers: string[];
  /** Model requests before this scenario's. */
  base: number;
}

/** `count` runs of a new agent, each answer held after its first chunks until its gate opens. */
async function heldRuns(c: Cluster, scenario: string, count: number, agentConfig: Record<string, unknown> = {}): Promise<Held> {
  c.model.turns.length = 0;
  const base = c.model.requests.length;
  const agent = await c.rest('POST', '/api/v1/agents', { name: `faults ${scenario}`, config: { model: 'loop', ...agentConfig } });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  const answers = Array.from({ length: count * 4 }, (_, n) => answerOf(scenario, n));
  const gates = Array.from({ length: count }, (_, n) => {
    const gate = streamGate(3);
    c.model.turns.push({ text: answers[n]!, gate: gate.gate });
    return gate;
  });
  // Attempts that ask again (a takeover, a retry, a hand-back) get whole answers.
  for (let n = count; n < answers.length; n++) c.model.turns.push({ text: answers[n]! });
  const runs: { id: string }[] = [];
  for (let n = 0; n < count; n++) {
    const created = await c.rest('POST', '/api/v1/runs', {
      agent_id: agent.body.id,
      input: { content: [{ type: 'text', text: `go ${n}` }] },
    });
    if (created.status !== 201) throw new Error(`run: ${created.status} ${JSON.stringify(created.body)}`);
    runs.push(created.body);
  }
  return { agentId: agent.body.id, runs, gates, answers, base };
}

/** One follower per run, spread over `gateways` in turn. */
const followAll = (c: Cluster, runs: { id: string }[], gateways: Instance[]) =>
  runs.map((run, n) => new Follower(c, run.id, gateways[n % gateways.length]!));

/** Every follower has its run's answer streaming (the in-progress text item reached it). */
const streaming = (followers: Follower[]) =>
  until(
    async () => followers.every((f) => f.events.some((e) => e.kind === 'text_message' && e.state === 'in_progress')),
    Boolean,
    'every client to see its run stream',
    120_000,
    50,
  );

/** Every run settled (read through the API); the count of completed ones. */
async function settle(c: Cluster, runs: { id: string }[], timeoutMs: number): Promise<any[]> {
  const settled: any[] = [];
  for (const run of runs)
    settled.push(
      (
        await until(
          () => c.rest('GET', `/api/v1/runs/${run.id}`),
          (r) => r.status === 200 && ['completed', 'failed', 'cancelled', 'waiting'].includes(r.body.status),
          `run ${run.id} to settle`,
          timeoutMs,
          200,
        )
      ).body,
    );
  return settled;
}

/** Followers done, each compared with what is stored; answers whole and each once. */
async function verify(c: Cluster, f: Figures, followers: Follower[], held: Held, timeoutMs = 90_000) {
  const settled = await settle(
    c,
    followers.map((x) => ({ id: x.runId })),
    timeoutMs,
  );
  f.runsCompleted += settled.filter((r) => r.status === 'completed').length;
  for (const run of settled)
    if (run.status !== 'completed') f.problems.push(`run ${run.id} ended ${run.status}: ${JSON.stringify(run.failure)}`);
  await Promise.race([
    Promise.all(followers.map((x) => x.done)),
    sleep(timeoutMs).then(() => {
      throw new Error(`clients not done: ${followers.filter((x) => !x.completed).map((x) => x.runId)}`);
    }),
  ]);
  const texts: string[] = [];
  for (const follower of followers) {
    const stored = await c.storedItems(follower.runId);
    const check = checkStream(follower, stored);
    f.itemsChecked += check.itemsChecked;
    f.gaps += check.gaps;
    f.duplicates += check.duplicates;
    f.problems.push(...check.problems);
    f.maxReconnects = Math.max(f.maxReconnects, follower.reconnects);
    const text = stored.filter((i) => i.kind === 'text_message' && i.state === 'completed').at(-1)?.content.text;
    if (text !== undefined) texts.push(text);
  }
  for (const text of texts) if (!held.answers.includes(text)) f.problems.push(`an answer not whole: "${text.slice(0, 60)}"`);
  if (new Set(texts).size !== texts.length) f.problems.push('one answer given to two runs (a model answer used twice)');
  for (const follower of followers) await follower.close();
}

function noExits(c: Cluster, f: Figures) {
  for (const exit of c.unexpectedExits.splice(0)) f.problems.push(`an instance exited: ${exit.slice(0, 600)}`);
}

// ───────────── a gateway SIGKILLed mid-stream ─────────────

export async function gatewayKilled(c: Cluster, options: { runs: number }): Promise<Figures> {
  const f = figures('API instance SIGKILL');
  const [victim, other] = c.live('api');
  const held = await heldRuns(c, 'gateway', options.runs);
  f.runsStarted = options.runs;
  const followers = followAll(c, held.runs, [victim!, other!]);
  await Promise.all(held.gates.map((g) => g.reached));
  await streaming(followers);
  const struck = Date.now();
  await c.kill(victim!);
  for (const gate of held.gates) gate.open();
  await verify(c, f, followers, held);
  const moved = followers.filter((x) => x.resumedAt.length > 0);
  f.recoveryMs = Math.max(0, ...moved.map((x) => x.resumedAt[0]! - struck));
  for (const follower of followers)
    if (follower.reconnects > 1) f.problems.push(`client of ${follower.runId} reconnected ${follower.reconnects} times`);
  // The deployment brings a replacement up.
  await c.startInstance('api');
  noExits(c, f);
  return f;
}

// ───────────── PostgreSQL away for every instance: restarted, or out of reach ─────────────

/** How the database goes away for every instance, and comes back. */
interface DatabaseFault {
  name: string;
  /** Resolves once the database is away. */
  away(c: Cluster): Promise<void>;
  /** Resolves once it can be reached again (a restarted server accepts connections). */
  back(c: Cluster): Promise<void>;
  /** Problems with the fault itself (it was not what it claims to be), once the database is back. */
  confirm?(c: Cluster): string[];
}

/** What PostgreSQL logs when it starts from a data directory that was not shut down cleanly. */
const CRASH_RECOVERY = 'database system was not properly shut down; automatic recovery in progress';

/**
 * The server really stops (`pg_ctl stop -m fast`, or `-m immediate`: a crash, with recovery at the
 * start) and starts again on the same address after the outage.
 */
export const postgresRestart = (c: Cluster, options: { runs: number; outageMs: number; mode: StopMode }) =>
  databaseOutage(c, options, {
    name: `PostgreSQL restart (${options.mode}), down ${options.outageMs / 1000} s`,
    away: (cluster) => cluster.options.postgres.stop(options.mode),
    back: (cluster) => cluster.options.postgres.start(),
    confirm(cluster) {
      // Every stop ends with "is shut down"; only a start after an immediate one logs crash recovery after it.
      const log = cluster.options.postgres.log();
      const recovered = log.lastIndexOf(CRASH_RECOVERY) > log.lastIndexOf('database system is shut down');
      return recovered === (options.mode === 'immediate')
        ? []
        : [`the server ${recovered ? 'ran' : 'did not run'} crash recovery after a ${options.mode} stop`];
    },
  });

/** The server runs on, but no instance reaches it (every relay cut: a network fault). */
export const postgresUnreachable = (c: Cluster, options: { runs: number; outageMs: number }) =>
  databaseOutage(c, options, {
    name: `PostgreSQL unreachable ${options.outageMs / 1000} s`,
    away: async (cluster) => {
      for (const instance of cluster.live('api').concat(cluster.live('worker'))) await instance.proxy.cut();
    },
    back: async (cluster) => {
      for (const instance of cluster.live('api').concat(cluster.live('worker'))) await instance.proxy.restore();
    },
  });

async function databaseOutage(c: Cluster, options: { runs: number; outageMs: number }, fault: DatabaseFault): Promise<Figures> {
  const f = figures(fault.name);
  const apis = c.live('api');
  const held = await heldRuns(c, 'postgres', options.runs);
  f.runsStarted = options.runs;
  const followers = followAll(c, held.runs, apis);
  await Promise.all(held.gates.map((g) => g.reached));
  await streaming(followers);

  const down = Date.now();
  await fault.away(c);
  for (const gate of held.gates) gate.open();
  const statuses: Record<string, number> = {};
  let readyzDown = 0;
  do {
    for (const api of apis) {
      const answers = await Promise.all([
        c.rest('GET', `/api/v1/runs/${held.runs[0]!.id}`, undefined, api),
        c.rest('GET', `/api/v1/runs/${held.runs[0]!.id}/items`, undefined, api),
        c.rest('POST', '/api/v1/runs', { agent_id: held.agentId, input: { content: [{ type: 'text', text: 'meanwhile' }] } }, api),
        c.rest('GET', '/api/v1/agents', undefined, api),
      ]);
      for (const answer of answers) {
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (
          answer.status >= 500 &&
          (answer.status !== 503 || !answer.headers.get('retry-after') || answer.body?.error?.code !== 'unavailable')
        )
          f.bad5xx++;
        else if (answer.status === 503) f.refused++;
        // Every probe needs the database: any answer but 503 (a success, a 404 or 401 from a failed
        // lookup, a 429) is not what a client should get while it is away.
        else f.problems.push(`answered ${answer.status} while PostgreSQL was away`);
      }
      const ready = await fetch(`${api.url}/readyz`);
      if (ready.status === 503) readyzDown++;
      await ready.body?.cancel();
    }
    await sleep(100);
  } while (Date.now() - down < options.outageMs);
  if (!readyzDown) f.problems.push('/readyz never said not ready while PostgreSQL was away');
  if (Object.keys(statuses).some((status) => status !== '503'))
    f.problems.push(`answers during the outage by status: ${JSON.stringify(statuses)}`);

  // Recovery counts from the moment the database is brought back: a restarted server's own start
  // (crash recovery after an immediate stop) is part of what the clients wait for.
  const back = Date.now();
  await fault.back(c);
  f.problems.push(...(fault.confirm?.(c) ?? []));
  for (const api of apis)
    await until(
      async () => (await fetch(`${api.url}/readyz`)).status,
      (s) => s === 200,
      `${api.name} ready again`,
      60_000,
    );
  // Recovered: every instance ready, and every run the outage caught completed.
  await settle(c, held.runs, 180_000);
  f.recoveryMs = Date.now() - back;
  await verify(c, f, followers, held, 180_000);
  noExits(c, f);
  return f;
}

// ───────────── Redis stopped, then back ─────────────

export async function redisDown(c: Cluster, options: { runs: number; outageMs: number }): Promise<Figures> {
  const f = figures(`Redis down ${options.outageMs / 1000} s`);
  const apis = c.live('api');
  const held = await heldRuns(c, 'redis', options.runs);
  f.runsStarted = options.runs;
  const followers = followAll(c, held.runs, apis);
  await Promise.all(held.gates.map((g) => g.reached));
  await streaming(followers);

  await c.redis.stop();
  const down = Date.now();
  for (const gate of held.gates) gate.open();
  // The runs go on while Redis is away: every one completes (as the database tells).
  await settle(c, held.runs, 120_000);
  const left = options.outageMs - (Date.now() - down);
  if (left > 0) await sleep(left);
  noExits(c, f);
  await c.redis.start();
  const back = Date.now();
  for (const api of apis)
    await until(
      async () => (await fetch(`${api.url}/readyz`)).status,
      (s) => s === 200,
      `${api.name} ready again`,
      60_000,
    );
  await Promise.all(followers.map((x) => x.done));
  f.recoveryMs = Date.now() - back;
  await verify(c, f, followers, held);

  // Across instances through the new Redis: a run executed by a worker streams to a client of each gateway.
  const after = await heldRuns(c, 'redis-after', 2);
  f.runsStarted += 2;
  for (const gate of after.gates) gate.open();
  await verify(c, f, followAll(c, after.runs, apis), after);
  noExits(c, f);
  return f;
}

// ───────────── one worker loses PostgreSQL for longer than its lease ─────────────

/** Which worker process holds each run (its lease owner names its process id). */
async function leaseOwners(c: Cluster, runIds: string[]): Promise<Map<string, string | null>> {
  const client = new pg.Client({ connectionString: c.options.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; lease_owner: string | null }>('SELECT id, lease_owner FROM runs WHERE id = ANY($1)', [
      runIds,
    ]);
    return new Map(rows.map((r) => [r.id, r.lease_owner]));
  } finally {
    await client.end();
  }
}

const holder = (c: Cluster, owner: string | null | undefined) =>
  c.live('worker').find((w) => owner?.split(':')[1] === String(w.process.child.pid));

/** The run each of this scenario's model requests (in order) was made for ("go n" is run n). */
function runOfRequest(c: Cluster, held: Held, k: number): { id: string } {
  const body = c.model.requests[held.base + k]!.body;
  const users = (body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user');
  const text = JSON.stringify(users.at(-1)?.content);
  const n = Number(/go (\d+)/.exec(text)?.[1]);
  return held.runs[n]!;
}

export async function workerPartitioned(c: Cluster, options: { runs: number }): Promise<Figures> {
  const f = figures('worker cut from PostgreSQL > lease');
  const apis = c.live('api');
  const held = await heldRuns(c, 'partition', options.runs);
  f.runsStarted = options.runs;
  const followers = followAll(c, held.runs, apis);
  await Promise.all(held.gates.map((g) => g.reached));
  await streaming(followers);
  const owners = await leaseOwners(
    c,
    held.runs.map((r) => r.id),
  );
  const byWorker = new Map<Instance, number>();
  for (const owner of owners.values()) {
    const worker = holder(c, owner);
    if (worker) byWorker.set(worker, (byWorker.get(worker) ?? 0) + 1);
  }
  const victim = [...byWorker.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const victimGates = held.gates.filter((_, k) => holder(c, owners.get(runOfRequest(c, held, k).id)) === victim);
  const victimRuns = held.runs.filter((r) => holder(c, owners.get(r.id)) === victim);

  await victim.proxy.cut();
  const cut = Date.now();
  // The other worker's runs go on; the victim's stay held in its model streams.
  for (const gate of held.gates) if (!victimGates.includes(gate)) gate.open();
  const taken = await settle(c, victimRuns, 120_000);
  f.recoveryMs = Date.now() - cut;
  for (const run of taken) if (run.attempts < 2) f.problems.push(`run ${run.id} completed without a takeover (attempts ${run.attempts})`);
  const before = new Map<string, string>();
  for (const run of victimRuns) before.set(run.id, JSON.stringify(await c.storedItems(run.id)));

  // The victim comes back and its old attempts go on: they must write nothing more to their runs.
  const endedBefore = (victim.process.output().match(/run moved on: nothing sealed/g) ?? []).length;
  await victim.proxy.restore();
  for (const gate of victimGates) gate.open();
  await until(
    async () => (victim.process.output().match(/run moved on: nothing sealed/g) ?? []).length,
    (n) => n - endedBefore >= victimRuns.length,
    'the cut-off worker to end its old attempts',
    90_000,
  );
  for (const run of victimRuns) {
    const now = JSON.stringify(await c.storedItems(run.id));
    if (now !== before.get(run.id)) {
      f.repeatedSideEffects++;
      f.problems.push(`run ${run.id}: the cut-off worker wrote to it after the takeover`);
    }
    const read = (await c.rest('GET', `/api/v1/runs/${run.id}`)).body;
    const was = taken.find((t) => t.id === run.id);
    if (read.status !== was.status || read.attempts !== was.attempts || read.output !== was.output)
      f.problems.push(`run ${run.id} changed after the takeover: ${JSON.stringify({ status: read.status, attempts: read.attempts })}`);
  }
  await verify(c, f, followers, held);
  noExits(c, f);
  return f;
}

// ───────────── a rolling deploy ─────────────

export async function rollingDeploy(c: Cluster, options: { runs: number }): Promise<Figures> {
  const f = figures(`rolling deploy, ${options.runs} runs`);
  const [api, otherApi] = c.live('api');
  const [worker] = c.live('worker');
  const held = await heldRuns(c, 'deploy', options.runs);
  f.runsStarted = options.runs;
  const followers = followAll(c, held.runs, [api!, otherApi!]);
  await Promise.all(held.gates.map((g) => g.reached));
  await streaming(followers);

  const started = Date.now();
  // One API instance stops (its clients reconnect to the other), and a new one comes up.
  const apiExit = await c.terminate(api!);
  if (apiExit !== 0) f.problems.push(`the API instance exited ${apiExit} on SIGTERM`);
  await c.startInstance('api');
  // Then one worker stops: its runs are handed back and taken at once by the other worker.
  const workerExit = await c.terminate(worker!);
  if (workerExit !== 0) f.problems.push(`the worker exited ${workerExit} on SIGTERM`);
  for (const gate of held.gates) gate.open();
  await c.startInstance('worker');
  await verify(c, f, followers, held, 240_000);
  f.recoveryMs = Date.now() - started;
  for (const follower of followers)
    if (follower.reconnects > 1) f.problems.push(`client of ${follower.runId} reconnected ${follower.reconnects} times`);
  noExits(c, f);
  return f;
}

// ───────────── side effects not repeated by a takeover ─────────────

/**
 * A loopback HTTP server counting the requests each path gets; at /mcp, an MCP server (the SDK's,
 * stateless, over streamable HTTP) whose one tool, `record_effect`, counts its calls as /effect/mcp.
 */
async function countingServer(): Promise<{ url: string; hits: Map<string, number>; close(): Promise<void> }> {
  const hits = new Map<string, number>();
  const count = (key: string) => hits.set(key, (hits.get(key) ?? 0) + 1);
  const server: Server = createServer(async (req, res) => {
    if (req.url === '/mcp') {
      const mcp = new McpServer({ name: 'effects', version: '1' });
      mcp.tool('record_effect', 'Records one side effect', async () => {
        count('/effect/mcp');
        return { content: [{ type: 'text', text: 'recorded' }] };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      await mcp.connect(transport);
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      await transport.handleRequest(req, res, chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined);
      return;
    }
    count(req.url!);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ effect: req.url }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    // The instances' MCP clients keep their connections open: closed too, not waited for.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface SideEffectKind {
  name: string;
  /** The agent's configuration for the tool; `tool` the call the model makes. */
  setup(
    c: Cluster,
    effects: { url: string },
  ): Promise<{ agentConfig: Record<string, unknown>; tool: { name: string; arguments: Record<string, unknown> } }>;
  /** How many times the side effect happened. */
  count(effects: { hits: Map<string, number> }): number | Promise<number>;
  /** Model answers the call itself consumes (a subagent's run asks the model too), before the caller's next. */
  turnsAfterCall?: { text: string }[];
  teardown?(): Promise<void>;
}

/** `http_request` (a plugin) against the counting server. */
export const httpRequestKind: SideEffectKind = {
  name: 'http_request',
  async setup(_c, effects) {
    return {
      agentConfig: { plugins: [{ plugin_key: 'http_request', config: {} }] },
      tool: { name: 'http_request', arguments: { method: 'POST', url: `${effects.url}/effect/http_request` } },
    };
  },
  count: (effects) => effects.hits.get('/effect/http_request') ?? 0,
};

/** An MCP server tool (a connection's tools) on the counting server's MCP endpoint. */
export const mcpKind: SideEffectKind = {
  name: 'mcp',
  async setup(c, effects) {
    const provider = await c.rest('POST', '/api/v1/connector-providers', {
      type: 'mcp',
      name: 'effects',
      config: { url: `${effects.url}/mcp` },
    });
    if (provider.status !== 201) throw new Error(`connector provider: ${JSON.stringify(provider.body)}`);
    const connection = await c.rest('POST', '/api/v1/connections', {
      provider_id: provider.body.id,
      name: 'effects',
      config: { url: `${effects.url}/mcp` },
      credential: { bearer_token: 'unused' },
    });
    if (connection.status !== 201) throw new Error(`connection: ${JSON.stringify(connection.body)}`);
    return {
      agentConfig: { connection_tools: [{ connection_id: connection.body.id }] },
      tool: { name: 'record_effect', arguments: {} },
    };
  },
  count: (effects) => effects.hits.get('/effect/mcp') ?? 0,
};

/**
 * An environment command (`run_command` in a `local` environment, which the cluster's instances
 * allow): the command appends a line to a file outside the environment, one line per execution.
 */
export function environmentCommandKind(): SideEffectKind {
  const dir = mkdtempSync(join(tmpdir(), 'wsa-faults-effects-'));
  const file = join(dir, 'executions');
  const created = async (c: Cluster, path: string, body: unknown) => {
    const answer = await c.rest('POST', path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body as { id: string };
  };
  return {
    name: 'run_command',
    async setup(c) {
      const provider = await created(c, '/api/v1/environment-providers', { type: 'local', name: 'effects' });
      const template = await created(c, '/api/v1/environment-templates', { name: 'effects', provider_id: provider.id, config: {} });
      return {
        agentConfig: {
          default_environment_template_id: template.id,
          platform_tools: { groups: ['shell'], read_permission: 'allow', write_permission: 'allow' },
        },
        tool: { name: 'run_command', arguments: { command: `echo executed >> ${file}` } },
      };
    },
    count() {
      try {
        return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
      } catch {
        return 0;
      }
    },
    async teardown() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A subagent: the call starts a child run (of an agent of its own, on the same loopback model). */
export function subagentKind(): SideEffectKind {
  let helperId = '';
  let cluster: Cluster | null = null;
  return {
    name: 'subagent',
    turnsAfterCall: [{ text: 'the helper did it.' }],
    async setup(c) {
      cluster = c;
      const helper = await c.rest('POST', '/api/v1/agents', { name: 'effects helper', config: { model: 'loop' } });
      if (helper.status !== 201) throw new Error(`helper: ${JSON.stringify(helper.body)}`);
      helperId = helper.body.id;
      return {
        agentConfig: { subagents: { helper: { agent_id: helperId, description: 'does one thing' } } },
        tool: { name: 'delegate_to_helper', arguments: { task: 'Do the thing once.' } },
      };
    },
    // Child runs started for the call: each one is the subagent executed.
    async count() {
      const client = new pg.Client({ connectionString: cluster!.options.databaseUrl });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM runs WHERE agent_id = $1', [helperId]);
        return rows[0]!.n;
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * A tool call completes, the model's next answer is held, the worker running the run is SIGKILLed:
 * another worker takes the run over after the lease and must reuse the stored result.
 */
export async function sideEffectsOnTakeover(c: Cluster, kinds: SideEffectKind[]): Promise<Figures> {
  const f = figures(`side effects on takeover (${kinds.map((k) => k.name).join(', ')})`);
  const effects = await countingServer();
  try {
    for (const kind of kinds) {
      const { agentConfig, tool } = await kind.setup(c, effects);
      c.model.turns.length = 0;
      const agent = await c.rest('POST', '/api/v1/agents', { name: `effects ${kind.name}`, config: { model: 'loop', ...agentConfig } });
      if (agent.status !== 201) throw new Error(`agent: ${JSON.stringify(agent.body)}`);
      const gate = streamGate(2);
      const answer = `after ${kind.name}: done.`;
      c.model.turns.push(
        { tool: { id: `call_${kind.name}`, ...tool } },
        ...(kind.turnsAfterCall ?? []),
        { text: answer, gate: gate.gate },
        { text: answer },
      );
      const run = (await c.rest('POST', '/api/v1/runs', { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'act' }] } }))
        .body;
      f.runsStarted++;
      const follower = new Follower(c, run.id, c.live('api')[0]!);
      await gate.reached;
      // The call's result is stored before the worker dies (what "completed" means here).
      await until(
        () => c.storedItems(run.id),
        (items) => items.some((i) => i.kind === 'tool_result'),
        `${kind.name}: the tool result stored`,
        60_000,
      );
      const owner = (await leaseOwners(c, [run.id])).get(run.id);
      const worker = holder(c, owner);
      if (!worker) throw new Error(`${kind.name}: no worker holds the run (${owner})`);
      const killed = Date.now();
      await c.kill(worker);
      // The deployment replaces the worker; meanwhile the other one takes the run over.
      const replacement = c.startInstance('worker');
      const [done] = await settle(c, [run], 120_000);
      f.recoveryMs = Math.max(f.recoveryMs, Date.now() - killed);
      await replacement;
      gate.open();
      if (done.status === 'completed') f.runsCompleted++;
      if (done.attempts < 2) f.problems.push(`${kind.name}: the run was not taken over (attempts ${done.attempts})`);
      const times = await kind.count(effects);
      if (times !== 1) {
        f.repeatedSideEffects += Math.max(0, times - 1);
        f.problems.push(`${kind.name}: the side effect happened ${times} times`);
      }
      await Promise.race([follower.done, sleep(60_000)]);
      if (!follower.completed) f.problems.push(`${kind.name}: the client's subscription did not complete within 60 s of the run`);
      const stored = await c.storedItems(run.id);
      const check = checkStream(follower, stored);
      f.itemsChecked += check.itemsChecked;
      f.gaps += check.gaps;
      f.duplicates += check.duplicates;
      f.problems.push(...check.problems);
      if (stored.filter((i) => i.kind === 'tool_result').length !== 1) f.problems.push(`${kind.name}: not exactly one tool result stored`);
      await follower.close();
      await kind.teardown?.();
    }
  } finally {
    await effects.close();
  }
  noExits(c, f);
  return f;
}

/**
 * A client tool: the client executes the call, and the run's successor (the resume) carries its
 * result. The successor's worker is SIGKILLed while the model's next answer is held: the takeover
 * must continue from the stored result, never pause to ask the client for the same call again.
 */
export async function clientToolOnTakeover(c: Cluster): Promise<Figures> {
  const f = figures('side effects on takeover (client tool)');
  c.model.turns.length = 0;
  const agent = await c.rest('POST', '/api/v1/agents', {
    name: 'effects client',
    config: { model: 'loop', client_tools: [{ name: 'client_effect' }] },
  });
  if (agent.status !== 201) throw new Error(`agent: ${JSON.stringify(agent.body)}`);
  const gate = streamGate(2);
  const answer = 'after the client tool: done.';
  c.model.turns.push(
    { tool: { id: 'call_client', name: 'client_effect', arguments: {} } },
    { text: answer, gate: gate.gate },
    { text: answer },
  );
  const first = (await c.rest('POST', '/api/v1/runs', { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'act' }] } }))
    .body;
  f.runsStarted++;
  const [waiting] = await settle(c, [first], 60_000);
  if (waiting.status !== 'waiting') throw new Error(`the run did not wait for its client tool: ${JSON.stringify(waiting)}`);
  f.runsCompleted++; // a pause is how a client tool's run ends
  // The client executes the call once, and answers.
  let executions = waiting.pending.calls.filter((call: { tool_call_id: string }) => call.tool_call_id === 'call_client').length;
  const resumed = await c.rest(
    'POST',
    `/api/v1/runs/${first.id}/resume`,
    { calls: { call_client: { status: 'returned', value: 'done by the client' } } },
    undefined,
    { 'idempotency-key': `resume-${first.id}` },
  );
  if (resumed.status !== 200) throw new Error(`resume: ${resumed.status} ${JSON.stringify(resumed.body)}`);
  const successor = resumed.body;
  f.runsStarted++;
  const follower = new Follower(c, successor.id, c.live('api')[0]!);
  await gate.reached;
  const worker = holder(c, (await leaseOwners(c, [successor.id])).get(successor.id));
  if (!worker) throw new Error('no worker holds the successor');
  const killed = Date.now();
  await c.kill(worker);
  const replacement = c.startInstance('worker');
  const [done] = await settle(c, [successor], 120_000);
  f.recoveryMs = Date.now() - killed;
  await replacement;
  gate.open();
  if (done.status === 'completed') f.runsCompleted++;
  else f.problems.push(`client tool: the successor ended ${done.status}`);
  if (done.attempts < 2) f.problems.push(`client tool: the successor was not taken over (attempts ${done.attempts})`);
  // Asked of the client again = a pending call in the successor.
  executions += (done.pending?.calls ?? []).length;
  if (executions !== 1) {
    f.repeatedSideEffects += executions - 1;
    f.problems.push(`client tool: the client was asked ${executions} times`);
  }
  await Promise.race([follower.done, sleep(60_000)]);
  const check = checkStream(follower, await c.storedItems(successor.id));
  f.itemsChecked += check.itemsChecked;
  f.gaps += check.gaps;
  f.duplicates += check.duplicates;
  f.problems.push(...check.problems);
  await follower.close();
  noExits(c, f);
  return f;
}
