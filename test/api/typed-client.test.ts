// The repository's own client package (client/, @workspace-agent-service/client) against a real
// service: typed operations generated from schema.graphql, run over HTTP and graphql-ws, the common
// workflows, and the service's refusals as ServiceErrors carrying `extensions.code`. The types are
// checked by the type-check step (a field the schema lost, or a wrong type, fails it); this test checks
// the answers and that the package's generated module is current.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  ServiceError,
  createClient,
  isServiceError,
  RunItemsLiveDocument,
  RunWithContextDocument,
  type Client,
  type RunItem,
  type RunItemsLiveSubscription,
} from '@workspace-agent-service/client';
import { GENERATED, generateClient } from '../../client/scripts/codegen.js';
import { createUser, createWorkspace } from '../../src/features/access/admin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';

let t: TestApp;
let client: Client;
beforeAll(async () => {
  t = await startTestApp({ allowLocalEnvironments: true });
  await insertModel(t, 'dev');
  client = createClient({ url: t.url, apiKey: t.apiKey, webSocketImpl: WebSocket });
});
afterAll(async () => {
  await client?.close();
  await t?.stop();
});

/** Every item event of a run's live subscription until the service completes it. */
async function collect(items: AsyncIterable<RunItem>): Promise<RunItem[]> {
  const seen: RunItem[] = [];
  for await (const item of items) seen.push(item);
  return seen;
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

/** An agent whose scripted model calls the `delete_file` client tool, which asks for approval. */
async function approvalAgent(name: string) {
  return client.createAgent({
    name,
    config: {
      model: 'dev',
      model_settings: {
        script: [[{ tool_call: { id: 'del_1', name: 'delete_file', arguments: { path: '/tmp/x' } } }], [{ text: 'deleted' }]],
      },
      client_tools: [{ name: 'delete_file', permission: 'ask', parameters_json_schema: { type: 'object' } }],
    },
  });
}

describe('the typed client package', () => {
  it('reads a waiting run with its agent, thread, items and pending approval in one query, and follows its items', async () => {
    const agent = await approvalAgent('typed');
    const created = await client.startRun({ agentId: agent.id, input: text('go') });
    // Subscribed before the run settles: the subscription replays what came before, then follows.
    const live = collect(client.runItems(created.id));
    const settled = await client.waitForRun(created.id);
    expect(settled.status).toBe('waiting');

    const { run } = await client.query(RunWithContextDocument, { id: created.id });
    expect(run.status).toBe('waiting');
    expect(run.waitReason).toBe('approval');
    // The agent, the thread's runs and the run's items come in the same query (no second round trip).
    expect(run.agent).toEqual({ id: agent.id, name: 'typed' });
    expect(run.thread.runs.nodes).toEqual([{ id: created.id, status: 'waiting' }]);
    expect(run.items.nodes.map((item) => item.kind)).toEqual(['user_message', 'approval_request']);
    expect(run.items.pageInfo.hasNextPage).toBe(false);
    const [approval] = run.pending.approvals;
    expect(approval).toMatchObject({ toolCallId: 'del_1', toolName: 'delete_file', arguments: { path: '/tmp/x' } });
    expect(approval!.presentation.kind).toBeTypeOf('string');
    expect(run.pending.calls).toEqual([]);

    const seen = await live;
    expect(seen.map((item) => item.kind)).toContain('approval_request');
    // The raw subscription is typed by its document too.
    const events: RunItemsLiveSubscription[] = [];
    for await (const event of client.subscribe(RunItemsLiveDocument, { runId: created.id })) events.push(event);
    expect(events.map((event) => event.runItems.ordinal)).toEqual(
      seen.map((item) => item.ordinal).filter((o, i, all) => all.indexOf(o) === i),
    );
  });

  it('resumes with approvals and call results, forks, delivers to an inbox and cancels', async () => {
    const agent = await approvalAgent('resumable');
    const waiting = await client.startRun({ agentId: agent.id, input: text('go') }, { wait: 30 });
    expect(waiting).toMatchObject({ status: 'waiting', waitReason: 'approval' });

    // Approving hands the call to the client: the successor waits for its result at once.
    const approved = await client.decideApprovals(waiting, 'approve', { wait: 30 });
    expect(approved).toMatchObject({ lineage: 'resume', parentRunId: waiting.id, status: 'waiting', waitReason: 'client_tool' });
    expect(approved.pending.calls.map((call) => call.toolCallId)).toEqual(['del_1']);
    // The same idempotency key answers the same successor; the run points at it.
    expect((await client.getRun(waiting.id)).resumedById).toBe(approved.id);

    const done = await client.resumeRun(approved.id, { calls: { del_1: { status: 'returned', value: 'ok' } } }, { wait: 30 });
    expect(done).toMatchObject({ status: 'completed', parentRunId: approved.id });
    expect((await client.listRuns({ threadId: waiting.threadId })).nodes.map((run) => run.id)).toEqual([done.id, approved.id, waiting.id]);

    const echo = await client.createAgent({ name: 'echo', config: { model: 'dev' } });
    const forked = await client.forkRun(done.id, { agentId: echo.id, payload: text('and now?') }, { wait: 30 });
    expect(forked.thread.originRunId).toBe(done.id);
    expect(forked.run).toMatchObject({ status: 'completed', lineage: 'fork' });

    const thread = await client.createThread({ labels: { area: 'client' } });
    expect((await client.getThread(thread.id)).labels).toEqual({ area: 'client' });
    const delivered = await client.deliverToInbox(thread.id, { agentId: echo.id, payload: text('next') }, { wait: 30 });
    expect(delivered.run).toMatchObject({ threadId: thread.id, status: 'completed' });
    expect((await client.listThreads({ label: ['area:client'] })).nodes.map((listed) => listed.id)).toEqual([thread.id]);

    // A run held in the model (the scripted model waits a minute) is cancelled; sealed as cancelled.
    const slow = await client.createAgent({ name: 'slow', config: { model: 'dev', model_settings: { script: [[{ delay_ms: 60_000 }]] } } });
    const running = await client.startRun({ agentId: slow.id, input: text('wait') });
    await client.cancelRun(running.id);
    expect((await client.waitForRun(running.id)).status).toBe('cancelled');
  });

  it('manages agents, providers, models, environments and memories with the workflow calls', async () => {
    const agent = await client.createAgent({ name: 'crud', config: { model: 'dev' }, labels: { team: 'a' } });
    const updated = await client.updateAgent(agent.id, { description: 'edited' }, agent.etag);
    expect(updated).toMatchObject({ description: 'edited', version: 2 });
    // Changes name the ETag they were made against (the service refuses them without).
    const revision = await client.publishAgentRevision(
      agent.id,
      { config: { model: 'dev', instructions: 'be brief' }, makeDefault: true },
      updated.etag,
    );
    expect(revision.number).toBe(2);
    const published = await client.getAgent(agent.id);
    expect(published.defaultRevisionId).toBe(revision.id);
    const archived = await client.archiveAgent(agent.id, published.etag);
    expect(archived.archivedAt).toBeTypeOf('string');
    expect((await client.listAgents({ archived: true })).nodes.map((listed) => listed.id)).toContain(agent.id);
    expect((await client.unarchiveAgent(agent.id, archived.etag)).archivedAt).toBeNull();

    const types = (await client.providerTypes('model')) as { type: string }[];
    expect(types.map((type) => type.type)).toContain('development');
    const provider = await client.createProvider('model', { type: 'development', name: 'client dev' });
    expect(provider).toMatchObject({ kind: 'model', type: 'development', enabled: true });
    expect((await client.testProvider('model', provider.id)).status).toBeTypeOf('string');
    expect((await client.listProviders('model', { type: 'development' })).nodes.map((listed) => listed.id)).toContain(provider.id);
    const model = await client.createModel({ key: 'client-echo', providerId: provider.id, providerModel: 'echo' });
    expect(await client.getModel('client-echo')).toEqual(model);
    expect((await client.listModels({ providerId: provider.id })).nodes.map((listed) => listed.key)).toEqual(['client-echo']);

    const local = await client.createProvider('environment', { type: 'local', name: 'This machine' });
    const template = await client.createEnvironmentTemplate({ name: 'Scratch', providerId: local.id });
    const environment = await client.createEnvironment({ templateId: template.id, name: 'scratch' });
    expect(environment.templateId).toBe(template.id);
    expect((await client.listEnvironments({ templateId: template.id })).nodes.map((listed) => listed.id)).toEqual([environment.id]);
    expect((await client.destroyEnvironment(environment.id)).status).toBe('destroyed');
    expect((await client.getEnvironment(environment.id)).destroyedAt).toBeTypeOf('string');

    const memory = await client.createMemory({ name: 'Client notes' });
    expect((await client.getMemory(memory.id)).name).toBe('Client notes');
    expect((await client.listMemories({ q: 'client notes' })).nodes.map((listed) => listed.id)).toEqual([memory.id]);
    const record = await client.addMemoryRecord(memory.id, 'the deploy key rotates on mondays');
    expect(record.text).toBe('the deploy key rotates on mondays');
    const found = await client.searchMemoryRecords(memory.id, 'deploy key');
    expect(found.map((hit) => hit.id)).toContain(record.id);
  });

  it('throws a ServiceError carrying the service error code, over HTTP and graphql-ws', async () => {
    const missing = await client.getRun('run_missing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(ServiceError);
    expect(missing).toMatchObject({ code: 'not_found', status: 404 });
    const invalid = await client.createAgent({ name: '', config: { model: 'dev' } }).catch((error: unknown) => error);
    expect(isServiceError(invalid, 'invalid_argument')).toBe(true);
    expect((invalid as ServiceError).details).toMatchObject({ field: expect.any(String) });

    // Another workspace's key sees nothing of this one: 404, as for an id that does not exist.
    const ours = await client.startRun({
      agentId: (await client.createAgent({ name: 'ours', config: { model: 'dev' } })).id,
      input: text('x'),
    });
    const other = createClient({ url: t.url, apiKey: (await createWorkspace(t.app.deps, { name: 'other' })).apiKey.token });
    expect(await other.getRun(ours.id).catch((error: unknown) => error)).toMatchObject({ code: 'not_found', status: 404 });

    const stranger = createClient({ url: `${t.url}/graphql`, apiKey: 'wsk_not-a-key', webSocketImpl: WebSocket, ws: { retryAttempts: 0 } });
    const refused = await stranger.listAgents().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'unauthenticated', status: 401 });
    const closed = await collect(stranger.runItems('run_any')).catch((error: unknown) => error);
    expect(closed).toMatchObject({ code: 'unauthenticated', status: undefined });
    await stranger.close();

    const subscription = await collect(client.runItems('run_missing')).catch((error: unknown) => error);
    expect(subscription).toBeInstanceOf(ServiceError);
    expect(subscription).toMatchObject({ code: 'not_found', status: undefined });
  });

  it('acts for a login session in the workspace it names', async () => {
    await createUser(t.app.deps, { email: 'client@example.com', password: 'client pass', workspaceId: t.workspaceId, role: 'writer' });
    const login = await t.rest('POST', '/api/auth/login', { token: null, body: { email: 'client@example.com', password: 'client pass' } });
    expect(login.status).toBe(200);
    const session = createClient({ url: t.url, apiKey: login.body.token, workspaceId: t.workspaceId, webSocketImpl: WebSocket });
    const agent = await session.createAgent({ name: 'by a session', config: { model: 'dev' } });
    const run = await session.startRun({ agentId: agent.id, input: text('hello') });
    // The workspace reaches the socket too: the session follows its run over graphql-ws.
    expect((await collect(session.runItems(run.id))).map((item) => item.kind)).toContain('user_message');
    await session.close();
    // A session naming no workspace is refused with the field at fault.
    const anywhere = createClient({ url: t.url, apiKey: login.body.token });
    const refused = await anywhere.listAgents().catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'invalid_argument', status: 400, details: { field: 'X-Workspace-ID' } });
  });

  it('reports an answer that is not GraphQL (a proxy error page) as a transport ServiceError with its status', async () => {
    // A loopback HTTP server standing where a failing reverse proxy would: 502 with an HTML page.
    const proxy = createServer((_request, response) =>
      response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>'),
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { port } = proxy.address() as AddressInfo;
    try {
      const behindProxy = createClient({ url: `http://127.0.0.1:${port}`, apiKey: t.apiKey });
      const error = await behindProxy.getRun('run_any').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ code: 'transport', status: 502, message: 'HTTP 502: <h1>Bad Gateway</h1>' });
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('connects its websocket at creation with ws.lazy false, before any subscription', async () => {
    const sockets = t.app.websocketServers.get('/graphql')!.wsServer.clients;
    const before = sockets.size;
    const eager = createClient({ url: t.url, apiKey: t.apiKey, webSocketImpl: WebSocket, ws: { lazy: false } });
    try {
      await expect.poll(() => sockets.size, { timeout: 10_000 }).toBe(before + 1);
      // A lazy client (the default) opens none until it subscribes.
      const lazy = createClient({ url: t.url, apiKey: t.apiKey, webSocketImpl: WebSocket });
      await lazy.query(RunWithContextDocument, { id: 'run_missing' }).catch(() => undefined);
      expect(sockets.size).toBe(before + 1);
      await lazy.close();
    } finally {
      await eager.close();
    }
  });

  it('is generated from the current schema.graphql and documents (npm run codegen)', async () => {
    // A boolean, not the two texts: a stale module's diff is thousands of characters of document JSON.
    const current = readFileSync(GENERATED, 'utf8') === (await generateClient());
    expect(current, 'client/src/generated.ts is stale: run npm run codegen').toBe(true);
  });
});
