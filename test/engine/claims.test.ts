// How a worker pool takes runs, seen through real HTTP and the statements it sends: the runs created
// while a claim is under way are claimed together in one statement, and the runs preparing at once
// (claimed, not yet at their first model request) never exceed RUN_PREPARING_LIMIT — the others stay
// accepted, their subscribers waiting for the claim, until a preparation ends or starts waiting on a
// server outside the service (a tool server listing its tools, a container engine provisioning the
// run's sandbox, an approved call's far end). Claims are held in PostgreSQL by table locks the test
// takes and releases, and the outside waits by loopback servers that answer when the test lets them,
// never by timing.
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startDockerEngineServer, type DockerEngineServer } from '../helpers/docker-engine-server.js';
import { insertModel } from '../helpers/fixtures.js';
import { startSdkMcpServer } from '../helpers/mcp-servers.js';
import { startWebServer, type WebServer } from '../helpers/web-servers.js';
import { recordStatements, type Statement } from '../helpers/query-plans.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';
import { lockWaiters, withTableLocked } from '../helpers/table-locks.js';
import { localRuns } from '../../src/features/runs/local-runs.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** The claims of named runs (one statement each), as the lists of run ids they asked for. */
const namedClaims = (statements: readonly Statement[]) =>
  statements.filter((s) => s.text.includes('AS a(id, attempt_id, trace_id)')).map((s) => s.values[0] as string[]);

/** `count` runs of the agent, created one after another over REST (`run 0`, `run 1`, …). */
async function startRuns(t: TestApp, agentId: string, count = 3): Promise<{ id: string }[]> {
  const created: { id: string }[] = [];
  for (let i = 0; i < count; i += 1)
    created.push((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text(`run ${i}`) } })).body);
  return created;
}

/** Until `count` preparations wait for the test's lock on `memories` (see agentWithMemoryMount). */
const preparationsWaiting = (lock: Parameters<typeof lockWaiters>[0], count: number, what: string) =>
  waitFor(
    () => lockWaiters(lock, '%memories%'),
    (n) => n === count,
    what,
  );

/**
 * An agent of the offline model with a memory mount: preparing its run reads the mount's name, so with
 * `memories` locked its preparation waits there.
 */
async function agentWithMemoryMount(t: TestApp): Promise<string> {
  await insertModel(t, 'dev');
  const memory = (await t.rest('POST', '/api/v1/memories', { body: { name: 'Notes' } })).body;
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'slow to prepare', config: { model: 'dev', memory_mounts: [{ memory_id: memory.id, access: 'read' }] } },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id;
}

describe('claims', () => {
  let t: TestApp;
  let agentId: string;
  beforeAll(async () => {
    t = await startTestApp({ runWorkers: 8 });
    await insertModel(t, 'dev');
    agentId = (await t.rest('POST', '/api/v1/agents', { body: { name: 'claimed', config: { model: 'dev' } } })).body.id;
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('claims the runs created while a claim waits in one statement, and each runs once', async () => {
    await recordStatements(async (statements) => {
      const runs = await withTableLocked(t.databaseUrl, 'trace_spans', async (lock, release) => {
        // A claim reads trace_spans (a resumed run's parent span): locked, the first run's claim waits.
        const first = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text('first') } })).body;
        await waitFor(
          () => lockWaiters(lock, '%claimed AS%'),
          (n) => n === 1,
          'the first claim to wait for the lock',
        );
        const later = [];
        for (let i = 0; i < 5; i += 1)
          later.push((await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text(`later ${i}`) } })).body);
        for (const run of later) expect(run.status).toBe('accepted');
        await release();
        return [first, ...later];
      });
      for (const run of runs) expect((await settleRun(t, run.id)).status).toBe('completed');
      // Two claims: the first run alone, then the five named while it waited, together.
      const claims = namedClaims(statements);
      expect(claims).toEqual([[runs[0].id], runs.slice(1).map((run) => run.id)]);
    });
  });
});

describe('admission: RUN_PREPARING_LIMIT', () => {
  let t: TestApp;
  let agentId: string;
  beforeAll(async () => {
    // Places held for as long as the test needs (the default gives a place up after a second).
    t = await startTestApp({ runWorkers: 8, runPreparingLimit: 2, runPreparingHoldMs: 600_000 });
    agentId = await agentWithMemoryMount(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('prepares at most the limit at once; the other runs stay accepted, their subscribers waiting, until a place frees', async () => {
    await recordStatements(async (statements) => {
      const runs = await withTableLocked(t.databaseUrl, 'memories', async (lock, release) => {
        const created = await startRuns(t, agentId, 5);
        // Two preparations wait for the lock, and no claim is under way: the pool has stopped claiming.
        await preparationsWaiting(lock, 2, 'two preparations to wait for the lock');
        await waitFor(
          async () => namedClaims(statements).flat().length,
          (n) => n === 2,
          'the two claims',
        );
        const statuses = await Promise.all(created.map(async (run) => (await t.rest('GET', `/api/v1/runs/${run.id}`)).body.status));
        expect(statuses.filter((status) => status === 'running')).toHaveLength(2);
        expect(statuses.filter((status) => status === 'accepted')).toHaveLength(3);
        // The runs held back are still named to the pool: a subscriber arriving now waits for their claim
        // (it would read the database at once had the pool given them up).
        const local = localRuns(t.app.deps.events);
        const heldBack = created.filter((_, i) => statuses[i] === 'accepted');
        const released = await Promise.all(
          heldBack.map((run) =>
            Promise.race([local.settled(run.id).then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]),
          ),
        );
        expect(released).toEqual([false, false, false]);
        expect(await lockWaiters(lock, '%memories%')).toBe(2);
        await release();
        return created;
      });
      for (const run of runs) expect((await settleRun(t, run.id)).status).toBe('completed');
      // Every run claimed once, by name; none more than the limit at a time.
      const claims = namedClaims(statements);
      expect(claims.flat().sort()).toEqual(runs.map((run) => run.id).sort());
      for (const claim of claims) expect(claim.length).toBeLessThanOrEqual(2);
    });
  });
});

describe('admission: RUN_PREPARING_HOLD_MS', () => {
  let t: TestApp;
  let agentId: string;
  beforeAll(async () => {
    t = await startTestApp({ runWorkers: 8, runPreparingLimit: 1, runPreparingHoldMs: 50 });
    agentId = await agentWithMemoryMount(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('a preparation that waits longer than the hold gives its place up: every run starts while all of them still wait', async () => {
    const runs = await withTableLocked(t.databaseUrl, 'memories', async (lock, release) => {
      const created = await startRuns(t, agentId);
      // One place, and none of the three preparations can end while the lock is held: only the hold's
      // expiry lets the second and third be claimed.
      await preparationsWaiting(lock, 3, 'all three preparations to wait for the lock');
      for (const run of created) expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.status).toBe('running');
      await release();
      return created;
    });
    for (const run of runs) expect((await settleRun(t, run.id)).status).toBe('completed');
  });
});

/** A gate a test opens once: `enter` counts who waits at it, and resolves when it is open. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const state = {
    waiting: 0,
    open,
    async enter() {
      state.waiting += 1;
      await opened;
    },
    /** Until `count` wait at the gate (within 10 s: the waits the tests rule out would last longer). */
    reached: (count: number, what: string) =>
      waitFor(
        async () => state.waiting,
        (n) => n === count,
        what,
        10_000,
      ),
  };
  return state;
}

type Gate = ReturnType<typeof gate>;

/**
 * An MCP server whose tool listings wait at `listings` until the test opens it, as a server across a
 * slow network does.
 */
function startGatedMcpServer(listings: Gate) {
  return startSdkMcpServer((mcp) =>
    mcp.setRequestHandler(ListToolsRequestSchema, async () => {
      await listings.enter();
      return { tools: [{ name: 'lookup', description: 'Looks something up.', inputSchema: { type: 'object' } }] };
    }),
  );
}

describe('admission: a preparation waiting on a tool server', () => {
  let t: TestApp;
  let agentId: string;
  let mcp: Awaited<ReturnType<typeof startGatedMcpServer>>;
  const listings = gate();
  beforeAll(async () => {
    // One place, never given up by the hold: only the wait on the tool server can free it. Each
    // attempt lists for itself (no shared listing), so the server sees every preparation's wait.
    t = await startTestApp({
      runWorkers: 8,
      runPreparingLimit: 1,
      runPreparingHoldMs: 600_000,
      allowPlainHttpEndpoints: ['127.0.0.1'],
      mcpToolsListTtlSeconds: 0,
    });
    mcp = await startGatedMcpServer(listings);
    await insertModel(t, 'dev');
    const provider = await t.rest('POST', '/api/v1/connector-providers', { body: { type: 'mcp', name: 'slow', config: { url: mcp.url } } });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const connection = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: provider.body.id, name: 'slow', config: { url: mcp.url } },
    });
    expect(connection.status, JSON.stringify(connection.body)).toBe(201);
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'tool server', config: { model: 'dev', connection_tools: [{ connection_id: connection.body.id }] } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    agentId = agent.body.id;
  });
  afterAll(async () => {
    listings.open();
    await t?.stop();
    await mcp?.close();
  });

  it('gives its place up while the server lists its tools: every run starts listing at once', async () => {
    expect(listings.waiting).toBe(0);
    const created = await startRuns(t, agentId);
    // With one place held through the listing, the second run would wait for the first's listing, which
    // ends only when the MCP client gives up on it (15 s): the wait stops short of that.
    await listings.reached(3, 'all three preparations to ask the tool server for its tools');
    for (const run of created) expect((await t.rest('GET', `/api/v1/runs/${run.id}`)).body.status).toBe('running');
    listings.open();
    for (const run of created) expect((await settleRun(t, run.id)).status).toBe('completed');
  });
});

describe('admission: a preparation waiting on a sandbox or on an approved call', () => {
  let t: TestApp;
  let engine: DockerEngineServer;
  let target: WebServer;
  const creates = gate();
  const answers = gate();
  beforeAll(async () => {
    engine = await startDockerEngineServer({
      pullable: ['alpine:3.20'],
      gate: (request) => (request === 'POST /containers/create' ? creates.enter() : Promise.resolve()),
    });
    // The approved calls' far end: it answers when the test opens `answers`.
    target = await startWebServer(async () => {
      await answers.enter();
      return { json: { ok: true } };
    });
    // One place, never given up by the hold: only the wait outside the service can free it.
    t = await startTestApp({ runWorkers: 8, runPreparingLimit: 1, runPreparingHoldMs: 600_000, allowPlainHttpEndpoints: ['127.0.0.1'] });
    await insertModel(t, 'dev');
  });
  afterAll(async () => {
    creates.open();
    answers.open();
    await t?.stop();
    await engine?.close();
    await target?.close();
  });

  it('gives its place up while its sandbox is provisioned: every run asks the engine for its container at once', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', {
      body: { type: 'docker', name: 'Engine', config: { endpoint: engine.endpoint } },
    });
    expect(provider.status, JSON.stringify(provider.body)).toBe(201);
    const template = await t.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'Alpine', provider_id: provider.body.id, config: { image: 'alpine:3.20', working_directory: '/work' } },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'sandboxed', config: { model: 'dev', default_environment_template_id: template.body.id } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const created = await startRuns(t, agent.body.id);
    // With the place held through provisioning, the second run would wait for the first's container,
    // which the engine never makes while the gate is shut.
    await creates.reached(3, 'all three preparations to ask the engine for a container');
    creates.open();
    for (const run of created) expect((await settleRun(t, run.id)).status).toBe('completed');
  });

  it('gives its place up while an approved server call runs: every successor makes its call at once', async () => {
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'asks first',
        config: {
          model: 'dev',
          plugins: [{ plugin_key: 'http_request', config: { permission: 'ask' } }],
          model_settings: {
            script: [
              [{ tool_call: { id: 'a1', name: 'http_request', arguments: { method: 'GET', url: `${target.url}/slow` } } }],
              [{ text: 'Done.' }],
            ],
          },
        },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const waiting = await startRuns(t, agent.body.id);
    for (const run of waiting) expect(await settleRun(t, run.id)).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const successors: { id: string }[] = [];
    for (const run of waiting) {
      const resumed = await t.rest('POST', `/api/v1/runs/${run.id}/resume`, {
        headers: { 'idempotency-key': `approve-${run.id}` },
        body: { approvals: { a1: { action: 'approve' } } },
      });
      expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
      successors.push(resumed.body);
    }
    // An approved call runs in its successor's preparation; with the place held through it, the
    // second successor would wait for the first's answer, which the server holds.
    await answers.reached(3, 'all three successors to make their approved call');
    answers.open();
    for (const run of successors) expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed', output: 'Done.' });
  });
});

describe('leases: one heartbeat for every run of a process', () => {
  let t: TestApp;
  let agentId: string;
  beforeAll(async () => {
    // A short lease: its heartbeat beats every second, and a run whose lease lapsed is taken over (a
    // new attempt) by the recovery sweep, which looks every 1.5 s. A lapse needs two seconds without a
    // beat: a busy machine's stalls stay well under that.
    t = await startTestApp({ runWorkers: 8, runLeaseMs: 3_000 });
    agentId = await agentWithMemoryMount(t);
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('extends the leases of all the runs it runs in one statement per beat, and none lapses', async () => {
    const { result: runs, statements } = await recordStatements((statements) =>
      withTableLocked(t.databaseUrl, 'memories', async (lock, release) => {
        const created = await startRuns(t, agentId);
        await preparationsWaiting(lock, 3, 'all three preparations to wait for the lock');
        // Four beats naming all three runs: longer than a lease, so without them the runs would lapse.
        const ids = created.map((run) => run.id).sort();
        await waitFor(
          async () => heartbeats(statements).filter((named) => named.join() === ids.join()).length,
          (n) => n >= 4,
          'four heartbeats naming all three runs',
          15_000,
        );
        await release();
        return created;
      }),
    );
    // Never one statement per run: a beat names every run running at the time (the first may have come
    // between two of the creations, and named fewer).
    const beats = heartbeats(statements);
    expect(beats.filter((named) => named.length === 3).length).toBeGreaterThanOrEqual(4);
    expect(beats.filter((named) => named.length < 3).length).toBeLessThanOrEqual(2);
    // Still their first attempt: no lease lapsed while they waited.
    for (const run of runs) expect(await settleRun(t, run.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});

/** The heartbeats among `statements`, as the sorted run ids each extended. */
const heartbeats = (statements: readonly Statement[]) =>
  statements
    .filter((s) => /^UPDATE runs SET lease_expires_at/.test(s.text.trim()))
    .map((s) => [...(s.values.find(Array.isArray) as string[])].sort());
