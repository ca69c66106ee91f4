// Webhook subscriptions through REST and GraphQL, with deliveries to real loopback receivers that
// verify every signature with the `standardwebhooks` library: the resource (secret shown once,
// ETags, validation, the endpoint policy), permissions (`admin`) and tenancy, every event kind with
// its payload, retries after 500s and time-outs with the same webhook-id, redelivery, automatic
// disabling, secret rotation with its overlap, and no outbox rows when nobody subscribed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { startWebhookReceiver, verifyHook, type ReceivedHook, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { enqueueWebhookEvent, WEBHOOK_EVENT_KINDS } from '../../src/features/webhooks/webhook-events.js';

let t: TestApp;
let otherAdmin: string;
let writer: string;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  t = await startTestApp({
    allowPlainHttpEndpoints: ['127.0.0.1'],
    // The receivers are on loopback: allowed by address, as a deployment would allow its own receivers.
    outboundAllowPrivate: ['127.0.0.1'],
    allowLocalEnvironments: true,
    // Short retries and time-outs, so retry schedules run out within a test.
    webhookRetryDelaysMs: [20, 20, 20],
    webhookTimeoutMs: 1_000,
    webhookDisableAfterFailures: 2,
  });
  await insertModel(t, 'dev');
  otherAdmin = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
  writer = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' })).token;
});
afterEach(async () => {
  // Each test's subscriptions end with it, so events of later tests reach only their own receivers.
  const list = await t.rest('GET', '/api/v1/webhook-subscriptions?limit=100');
  for (const s of list.body.items) await t.rest('DELETE', `/api/v1/webhook-subscriptions/${s.id}`);
});
afterAll(async () => {
  await t?.stop();
  for (const receiver of receivers) await receiver.close();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

async function subscribe(url: string, eventKinds: readonly string[], extra: Record<string, unknown> = {}) {
  const created = await t.rest('POST', '/api/v1/webhook-subscriptions', { body: { url, event_kinds: eventKinds, ...extra } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; secret: string; version: number };
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const ofKind =
  (kind: string, match: (data: any) => boolean = () => true) =>
  (hook: ReceivedHook) =>
    hook.json.type === kind && match(hook.json.data);

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  try {
    return (await client.query(query, params)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('webhook subscriptions: the resource', () => {
  it('create shows the secret once; read with an ETag; PATCH with If-Match; no-op keeps the version; DELETE', async () => {
    const created = await t.rest('POST', '/api/v1/webhook-subscriptions', {
      body: {
        url: 'https://hooks.example.com/a',
        event_kinds: ['run.failed', 'run.completed', 'run.failed'],
        description: 'ops',
        labels: { team: 'ops' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: 'https://hooks.example.com/a',
      event_kinds: ['run.completed', 'run.failed'],
      enabled: true,
      labels: { team: 'ops' },
      disabled_reason: null,
      version: 1,
    });
    expect(created.body.id).toMatch(/^whs_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.headers.get('etag')).toBe(`"${created.body.id}:1"`);
    const id = created.body.id as string;

    const read = await t.rest('GET', `/api/v1/webhook-subscriptions/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.headers.get('etag')).toBe(`"${id}:1"`);
    // Sealed at rest: neither the row nor the audit trail holds the secret.
    const [row] = await sql(`SELECT row_to_json(s)::text AS row FROM webhook_subscriptions s WHERE id = $1`, [id]);
    expect(row.row).not.toContain(created.body.secret.slice(6));
    const audit = await sql(`SELECT action, changes::text AS changes FROM audit_events WHERE resource_id = $1`, [id]);
    expect(audit.map((a) => a.action)).toEqual(['create']);
    expect(audit[0].changes).not.toContain(created.body.secret.slice(6));

    const list = await t.rest('GET', '/api/v1/webhook-subscriptions?label=team:ops');
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions?label=team:dev')).body.items).toEqual([]);

    expect((await t.rest('PATCH', `/api/v1/webhook-subscriptions/${id}`, { body: { description: 'x' } })).status).toBe(428);
    expect(
      (await t.rest('PATCH', `/api/v1/webhook-subscriptions/${id}`, { headers: { 'if-match': `"${id}:9"` }, body: { description: 'x' } }))
        .status,
    ).toBe(412);
    const same = await t.rest('PATCH', `/api/v1/webhook-subscriptions/${id}`, {
      headers: { 'if-match': `"${id}:1"` },
      body: { description: 'ops', event_kinds: ['run.failed', 'run.completed'] },
    });
    expect(same.body.version).toBe(1);
    const patched = await t.rest('PATCH', `/api/v1/webhook-subscriptions/${id}`, {
      headers: { 'if-match': `"${id}:1"` },
      body: { url: 'https://hooks.example.com/b', enabled: false },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: 'https://hooks.example.com/b', enabled: false, version: 2 });
    expect(patched.body).not.toHaveProperty('secret');

    expect((await t.rest('DELETE', `/api/v1/webhook-subscriptions/${id}`, { headers: { 'if-match': `"${id}:1"` } })).status).toBe(412);
    expect((await t.rest('DELETE', `/api/v1/webhook-subscriptions/${id}`)).status).toBe(204);
    expect((await t.rest('GET', `/api/v1/webhook-subscriptions/${id}`)).status).toBe(404);
    expect((await t.rest('DELETE', `/api/v1/webhook-subscriptions/${id}`)).status).toBe(404);
  });

  it('refuses bad input with 400 and names the field: URL under the endpoint policy, event kinds, labels', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const response = await t.rest('POST', '/api/v1/webhook-subscriptions', {
        body: { url: 'https://h.example.com', event_kinds: ['run.failed'], ...body },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.code).toBe('invalid_argument');
      expect(response.body.error.details.field).toMatch(new RegExp(`^${field}`));
    };
    await bad({ url: 'http://hooks.example.com/x' }, 'url'); // plain HTTP only where the deployment allows it
    await bad({ url: 'ftp://hooks.example.com/x' }, 'url');
    await bad({ url: 'not a url' }, 'url');
    await bad({ url: 'https://user:pw@hooks.example.com/x' }, 'url');
    // Private, loopback and link-local targets only where the deployment allows them (here 127.0.0.1
    // only, so `localhost`, a loopback name, is allowed too; ::1 is not).
    await bad({ url: 'https://10.1.2.3/x' }, 'url');
    await bad({ url: 'https://169.254.169.254/latest/meta-data' }, 'url');
    await bad({ url: 'https://100.64.0.1/x' }, 'url');
    await bad({ url: 'https://[64:ff9b::a00:1]/x' }, 'url');
    await bad({ url: 'https://[::1]/x' }, 'url');
    await bad({ url: 'https://[::ffff:192.168.0.1]/x' }, 'url');
    await bad({ url: 'https://[fd00::1]/x' }, 'url');
    await bad({ event_kinds: [] }, 'event_kinds');
    await bad({ event_kinds: ['run.exploded'] }, 'event_kinds');
    await bad({ labels: { '': 'x' } }, 'labels');
    const missing = await t.rest('POST', '/api/v1/webhook-subscriptions', { body: { event_kinds: ['run.failed'] } });
    expect(missing.status).toBe(400);
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions?limit=0')).status).toBe(400);
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions/whs_nope')).status).toBe(404);
  });

  it('needs admin for every operation (403 with write), and answers 404 across workspaces', async () => {
    const mine = await subscribe('https://hooks.example.com/mine', ['run.failed']);
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${mine.id}/test`);
    expect(ping.status).toBe(202);
    const base = `/api/v1/webhook-subscriptions/${mine.id}`;
    const operations: [string, string, unknown?][] = [
      ['POST', '/api/v1/webhook-subscriptions', { url: 'https://h.example.com', event_kinds: ['run.failed'] }],
      ['GET', '/api/v1/webhook-subscriptions'],
      ['GET', base],
      ['PATCH', base, { description: 'x' }],
      ['POST', `${base}/rotate-secret`],
      ['POST', `${base}/test`],
      ['GET', `${base}/deliveries`],
      ['GET', `${base}/deliveries/${ping.body.id}`],
      ['POST', `${base}/deliveries/${ping.body.id}/redeliver`],
      ['DELETE', base],
    ];
    for (const [method, path, body] of operations) {
      const response = await t.rest(method, path, { token: writer, headers: { 'if-match': `"${mine.id}:1"` }, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('permission_denied');
    }
    for (const [method, path, body] of operations.slice(2)) {
      const response = await t.rest(method, path, { token: otherAdmin, headers: { 'if-match': `"${mine.id}:1"` }, body });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions', { token: otherAdmin })).body.items).toEqual([]);
    // GraphQL says the same.
    const denied = await t.graphql(`query { webhookSubscriptions(first: 5) { nodes { id } } }`, {}, { token: writer });
    expect(denied.errors?.[0]?.extensions?.code).toBe('permission_denied');
    const foreign = await t.graphql(`query($id: ID!) { webhookSubscription(id: $id) { id } }`, { id: mine.id }, { token: otherAdmin });
    expect(foreign.errors?.[0]?.extensions?.code).toBe('not_found');
    // Nothing was changed by the refused calls.
    expect((await t.rest('GET', base)).body.version).toBe(1);
  });

  it('works through GraphQL: create with the secret, connection paging with first/after, payload mutations', async () => {
    const created = await t.graphql(
      `mutation($input: CreateWebhookSubscriptionInput!) { createWebhookSubscription(input: $input) { webhookSubscription { id etag secret eventKinds labelList { key value } } } }`,
      { input: { url: 'https://hooks.example.com/gql', eventKinds: ['model.changed'], labels: { a: 'b' } } },
    );
    expect(created.errors).toBeUndefined();
    const sub = created.data.createWebhookSubscription.webhookSubscription;
    expect(sub).toMatchObject({ eventKinds: ['model.changed'], labelList: [{ key: 'a', value: 'b' }] });
    expect(sub.secret).toMatch(/^whsec_/);
    await subscribe('https://hooks.example.com/gql2', ['model.changed']);
    const page1 = await t.graphql(`query { webhookSubscriptions(first: 1) { nodes { id secret } pageInfo { hasNextPage endCursor } } }`);
    expect(page1.data.webhookSubscriptions.nodes[0].secret).toBeNull();
    expect(page1.data.webhookSubscriptions.pageInfo.hasNextPage).toBe(true);
    const page2 = await t.graphql(`query($after: String) { webhookSubscriptions(first: 1, after: $after) { nodes { id } } }`, {
      after: page1.data.webhookSubscriptions.pageInfo.endCursor,
    });
    expect(page2.data.webhookSubscriptions.nodes[0].id).toBe(sub.id);
    const updated = await t.graphql(
      `mutation($id: ID!, $ifMatch: String) { updateWebhookSubscription(id: $id, ifMatch: $ifMatch, input: { enabled: false }) { webhookSubscription { enabled version } } }`,
      { id: sub.id, ifMatch: sub.etag },
    );
    expect(updated.data.updateWebhookSubscription.webhookSubscription).toEqual({ enabled: false, version: 2 });
    const deleted = await t.graphql(`mutation($id: ID!) { deleteWebhookSubscription(id: $id) { deleted } }`, { id: sub.id });
    expect(deleted.data.deleteWebhookSubscription.deleted).toBe(true);
  });
});

describe('webhook deliveries', () => {
  it('delivers every event kind, signed per Standard Webhooks, with its documented payload', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url, WEBHOOK_EVENT_KINDS);
    const verified = async (kind: string, match?: (data: any) => boolean) => {
      const hook = await r.waitFor(ofKind(kind, match), kind);
      expect(verifyHook(sub.secret, hook)).toEqual(hook.json);
      expect(hook.headers['webhook-id']).toMatch(/^evt_/);
      expect(hook.headers['content-type']).toBe('application/json');
      return hook.json.data;
    };

    // Configuration changes, derived from their audit rows.
    const provider = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'hooks' } });
    expect(await verified('provider.changed', (d) => d.resource_id === provider.body.id)).toMatchObject({
      resource_kind: 'model_provider',
      action: 'create',
      version: 1,
      actor_id: expect.stringMatching(/^key_/),
    });
    await t.rest('POST', '/api/v1/models', { body: { key: 'hooked', provider_id: provider.body.id, provider_model: 'echo' } });
    expect(await verified('model.changed', (d) => d.model_key === 'hooked')).toMatchObject({ action: 'create', resource_kind: 'model' });

    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'hooks', config: { model: 'dev' } } });
    expect(await verified('agent.revision_published', (d) => d.agent_id === agent.body.id)).toMatchObject({
      revision_id: agent.body.default_revision_id,
      number: 1,
    });
    const r2 = await t.rest('POST', `/api/v1/agents/${agent.body.id}/revisions`, {
      headers: { 'if-match': agent.headers.get('etag')! },
      body: { config: { model: 'dev', instructions: 'two' } },
    });
    expect(await verified('agent.revision_published', (d) => d.revision_id === r2.body.id)).toMatchObject({
      agent_id: agent.body.id,
      number: 2,
      digest: expect.any(String),
    });
    const skill = await t.rest('POST', '/api/v1/skills', {
      body: { name: 'hooks', content: { name: 'hooks', description: 'hooks', instructions: 'do it' } },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    expect(await verified('skill.revision_published', (d) => d.skill_id === skill.body.id)).toMatchObject({ number: 1 });

    const connector = await t.rest('POST', '/api/v1/connector-providers', {
      body: { type: 'mcp', name: 'c', config: { url: 'https://mcp.example.com/mcp' } },
    });
    const connection = await t.rest('POST', '/api/v1/connections', {
      body: { provider_id: connector.body.id, name: 'c', config: { transport: 'streamable_http', url: 'https://mcp.example.com/mcp' } },
    });
    expect(await verified('connection.changed', (d) => d.resource_id === connection.body.id)).toMatchObject({ action: 'create' });

    const local = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'here' } });
    const template = await t.rest('POST', '/api/v1/environment-templates', { body: { name: 'scratch', provider_id: local.body.id } });
    expect(await verified('environment_template.changed', (d) => d.resource_id === template.body.id)).toMatchObject({ action: 'create' });
    const environment = await t.rest('POST', '/api/v1/environments', { body: { template_id: template.body.id } });
    expect(environment.status, JSON.stringify(environment.body)).toBe(201);
    expect(await verified('environment.changed', (d) => d.resource_id === environment.body.id)).toMatchObject({
      resource_kind: 'environment',
    });

    const memory = await t.rest('POST', '/api/v1/memories', { body: { name: 'notes' } });
    const memoryPatched = await t.rest('PATCH', `/api/v1/memories/${memory.body.id}`, {
      headers: { 'if-match': memory.headers.get('etag')! },
      body: { description: 'team notes' },
    });
    expect(memoryPatched.status).toBe(200);
    expect(await verified('memory.changed', (d) => d.resource_id === memory.body.id && d.action === 'update')).toMatchObject({
      version: 2,
      changed_fields: ['description'],
    });

    // Runs, from the run lifecycle.
    const completed = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, input: text('hi') } });
    expect(await verified('run.completed', (d) => d.run.id === completed.body.id)).toEqual({
      run: {
        id: completed.body.id,
        status: 'completed',
        session_id: completed.body.session_id,
        thread_id: completed.body.thread_id,
        agent_id: agent.body.id,
        agent_revision_id: r2.body.id,
        parent_run_id: null,
        wait_reason: null,
        failure: null,
      },
    });
    const failing = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'fails', config: { model: 'dev', model_settings: { script: [[{ error: { message: 'broken', transient: false } }]] } } },
    });
    const failed = await t.rest('POST', '/api/v1/runs', { body: { agent_id: failing.body.id, input: text('hi') } });
    expect((await verified('run.failed', (d) => d.run.id === failed.body.id)).run).toMatchObject({
      status: 'failed',
      failure: { code: 'model_error', message: expect.stringContaining('broken') },
    });
    const pausing = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'pauses',
        config: {
          model: 'dev',
          model_settings: { script: [[{ tool_call: { id: 'c1', name: 'pick', arguments: {} } }]] },
          client_tools: [{ name: 'pick' }],
        },
      },
    });
    const waiting = await t.rest('POST', '/api/v1/runs', { body: { agent_id: pausing.body.id, input: text('hi') } });
    expect((await verified('run.waiting', (d) => d.run.id === waiting.body.id)).run).toMatchObject({
      status: 'waiting',
      wait_reason: 'client_tool',
    });
    expect((await t.rest('POST', `/api/v1/runs/${waiting.body.id}/cancel`)).status).toBe(200);
    expect((await verified('run.cancelled', (d) => d.run.id === waiting.body.id)).run).toMatchObject({
      status: 'cancelled',
      failure: { code: 'cancelled' },
    });

    // An inbox entry whose run failed.
    const thread = (await t.rest('POST', '/api/v1/threads', { body: {} })).body;
    const entry = await t.rest('POST', `/api/v1/threads/${thread.id}/inbox`, { body: { agent_id: failing.body.id, payload: text('x') } });
    expect(entry.status, JSON.stringify(entry.body)).toBe(201);
    expect(await verified('inbox_entry.failed', (d) => d.inbox_entry.id === entry.body.entry.id)).toEqual({
      inbox_entry: {
        id: entry.body.entry.id,
        thread_id: thread.id,
        run_id: entry.body.run.id,
        status: 'failed',
        failure: { code: 'model_error', message: expect.stringContaining('broken') },
      },
    });

    // Findings: an analysis of the failing agent records one (created), a reviewer assesses it (updated).
    const analysis = await t.rest('POST', '/api/v1/finding-analyses', {
      headers: { 'idempotency-key': 'hooked-analysis' },
      body: { agent_id: failing.body.id },
    });
    expect(analysis.status, JSON.stringify(analysis.body)).toBe(201);
    const created = await verified('finding.created', (d) => d.finding.agent_id === failing.body.id);
    expect(created).toMatchObject({
      finding: { analysis_id: analysis.body.id, assessment: 'unreviewed', closed: false, version: 1 },
      actor_id: expect.stringMatching(/^key_/),
    });
    const finding = await t.rest('GET', `/api/v1/findings/${created.finding.id}`);
    const assessed = await t.rest('PATCH', `/api/v1/findings/${created.finding.id}`, {
      headers: { 'if-match': finding.headers.get('etag')! },
      body: { assessment: 'confirmed' },
    });
    expect(assessed.status, JSON.stringify(assessed.body)).toBe(200);
    expect(await verified('finding.updated', (d) => d.finding.id === created.finding.id)).toMatchObject({
      finding: { assessment: 'confirmed', version: 2 },
    });

    // A run's start: the run as it began, once (its first attempt).
    expect(await verified('run.started', (d) => d.run.id === completed.body.id)).toEqual({
      run: {
        id: completed.body.id,
        status: 'running',
        session_id: completed.body.session_id,
        thread_id: completed.body.thread_id,
        agent_id: agent.body.id,
        agent_revision_id: r2.body.id,
        parent_run_id: null,
        wait_reason: null,
        failure: null,
      },
    });
    // The session and thread a run without a thread starts, and a thread made through the API.
    expect(await verified('session.changed', (d) => d.resource_id === completed.body.session_id)).toMatchObject({
      resource_kind: 'session',
      action: 'create',
    });
    expect(await verified('thread.changed', (d) => d.resource_id === thread.id)).toMatchObject({ action: 'create', version: 1 });

    // Head changes of agents and skills: a rename, an archive, an unarchive.
    const headEtag = (await t.rest('GET', `/api/v1/agents/${failing.body.id}`)).headers.get('etag')!;
    const renamed = await t.rest('PATCH', `/api/v1/agents/${failing.body.id}`, {
      headers: { 'if-match': headEtag },
      body: { name: 'fails often' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(await verified('agent.changed', (d) => d.resource_id === failing.body.id && d.action === 'update')).toMatchObject({
      resource_kind: 'agent',
      changed_fields: ['name'],
    });
    await t.rest('POST', `/api/v1/agents/${failing.body.id}/archive`, { headers: { 'if-match': renamed.headers.get('etag')! } });
    expect(await verified('agent.changed', (d) => d.resource_id === failing.body.id && d.action === 'archive')).toMatchObject({
      changed_fields: ['archivedAt'],
    });
    await t.rest('POST', `/api/v1/skills/${skill.body.id}/archive`, { headers: { 'if-match': skill.headers.get('etag')! } });
    await t.rest('POST', `/api/v1/skills/${skill.body.id}/unarchive`);
    expect(await verified('skill.changed', (d) => d.resource_id === skill.body.id && d.action === 'unarchive')).toMatchObject({
      resource_kind: 'skill',
      version: 3,
    });

    // Assets: an upload and its retirement.
    const uploaded = await fetch(`${t.url}/api/v1/assets?name=hooked.txt`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'text/plain' },
      body: 'hooked',
    });
    expect(uploaded.status).toBe(201);
    const asset = (await uploaded.json()) as { id: string };
    expect(await verified('asset.changed', (d) => d.resource_id === asset.id)).toMatchObject({ action: 'create', version: 1 });
    expect((await t.rest('DELETE', `/api/v1/assets/${asset.id}`)).status).toBe(200);
    expect(await verified('asset.changed', (d) => d.resource_id === asset.id && d.action === 'retire')).toMatchObject({ version: 2 });

    // Budgets: an agent's run reaching a notify budget's threshold and its limit (1 token: any request does).
    const spender = await t.rest('POST', '/api/v1/agents', { body: { name: 'budgeted', config: { model: 'dev' } } });
    const budget = await t.rest('POST', '/api/v1/budgets', {
      body: {
        name: 'hooked',
        scope: { kind: 'agent', id: spender.body.id },
        period: 'day',
        limit: { tokens: 1 },
        action: 'notify',
        notify_at: [0.5],
      },
    });
    expect(budget.status, JSON.stringify(budget.body)).toBe(201);
    const spent = await t.rest('POST', '/api/v1/runs', { body: { agent_id: spender.body.id, input: text('hi') } });
    const ofBudget = (d: any) => d.budget.id === budget.body.id && d.run_id === spent.body.id;
    expect(await verified('budget.threshold_reached', ofBudget)).toMatchObject({
      budget: {
        name: 'hooked',
        scope: { kind: 'agent', id: spender.body.id },
        period: 'day',
        limit: { cost: null, tokens: 1 },
        action: 'notify',
      },
      threshold: 0.5,
    });
    expect(await verified('budget.exceeded', ofBudget)).toMatchObject({ budget: { id: budget.body.id } });

    // Subscriptions themselves: a change of this one (its secret never in the payload, only field names).
    const current = await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}`);
    const described = await t.rest('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, {
      headers: { 'if-match': current.headers.get('etag')! },
      body: { description: 'everything' },
    });
    expect(described.status, JSON.stringify(described.body)).toBe(200);
    expect(await verified('webhook_subscription.changed', (d) => d.resource_id === sub.id && d.action === 'update')).toMatchObject({
      resource_kind: 'webhook_subscription',
      changed_fields: ['description'],
    });

    // Every kind arrived, each in an envelope {type, timestamp, data}; all deliveries are recorded as succeeded.
    expect(new Set(r.received.map((h) => h.json.type))).toEqual(new Set(WEBHOOK_EVENT_KINDS));
    for (const hook of r.received) expect(Object.keys(hook.json)).toEqual(['type', 'timestamp', 'data']);
    const deliveries = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries?limit=100`)).body.items,
      (items: { status: string }[]) => items.length === r.received.length && items.every((d) => d.status === 'succeeded'),
      'every delivery recorded as succeeded',
    );
    expect(deliveries[0]).toMatchObject({
      attempt_count: 1,
      last_status_code: 204,
      next_attempt_at: null,
      attempts: [{ attempt: 1, status_code: 204, error: null }],
    });
  });

  it('retries after a 500 and a time-out with the same webhook-id, then succeeds; the attempts are listed', async () => {
    const r = await receiver();
    r.plan.push({ status: 500, body: 'down for maintenance' }, { hang: true });
    const sub = await subscribe(r.url, ['model.changed']);
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    expect(ping.body).toMatchObject({ event_kind: 'webhook.ping', status: 'pending' });
    const hooks = await r.waitForCount(ofKind('webhook.ping'), 3, 'three attempts');
    expect(new Set(hooks.map((h) => h.headers['webhook-id']))).toEqual(new Set([ping.body.event_id]));
    // The same body every time; each attempt signed at its own time.
    expect(new Set(hooks.map((h) => h.body)).size).toBe(1);
    for (const hook of hooks) verifyHook(sub.secret, hook);
    expect(hooks[0]!.json.data).toMatchObject({ subscription_id: sub.id });
    const delivery = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${ping.body.id}`)).body,
      (d) => d.status === 'succeeded',
      'the delivery to succeed',
    );
    expect(delivery.attempts.map((a: { status_code: number | null }) => a.status_code)).toEqual([500, null, 204]);
    expect(delivery.attempts[0]).toMatchObject({ error: 'the receiver answered 500', response: 'down for maintenance' });
    expect(delivery.attempts[1].error).toMatch(/no answer within 1000 ms/);
    expect(delivery).toMatchObject({ attempt_count: 3, last_status_code: 204, last_error: null, completed_at: expect.any(String) });
  });

  it('fails a delivery after its retries, disables the subscription after repeated failures, and redelivers with the same id', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const sub = await subscribe(r.url, ['provider.changed']);
    const first = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'one' } });
    // 1 attempt + 3 retries, then failed for good.
    await r.waitForCount(
      ofKind('provider.changed', (d) => d.resource_id === first.body.id),
      4,
      'four attempts',
    );
    const failedOnce = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries?status=failed`)).body.items,
      (items: any[]) => items.length === 1,
      'the first delivery to fail',
    );
    expect(failedOnce[0]).toMatchObject({ status: 'failed', attempt_count: 4, last_status_code: 503, next_attempt_at: null });
    expect((await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}`)).body).toMatchObject({ enabled: true, consecutive_failures: 1 });

    await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'two' } });
    const disabled = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}`)).body,
      (s) => s.enabled === false,
      'the subscription to be disabled',
    );
    expect(disabled).toMatchObject({
      consecutive_failures: 2,
      disabled_reason: expect.stringContaining('2 deliveries in a row'),
      version: 2,
    });
    expect(disabled.disabled_at).toEqual(expect.any(String));
    const audit = await sql(`SELECT action, principal_id FROM audit_events WHERE resource_id = $1 ORDER BY id`, [sub.id]);
    expect(audit).toEqual([
      { action: 'create', principal_id: expect.stringMatching(/^key_/) },
      { action: 'disable', principal_id: 'system' },
    ]);
    // A disabled subscription gets no new events and refuses redelivery.
    await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'three' } });
    const redeliverPath = `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${failedOnce[0].id}/redeliver`;
    expect((await t.rest('POST', redeliverPath)).body.error.code).toBe('disabled');

    // Enabled again (reason and count cleared), the receiver fixed: a redelivery arrives with the event's id.
    const enabled = await t.rest('PATCH', `/api/v1/webhook-subscriptions/${sub.id}`, {
      headers: { 'if-match': `"${sub.id}:2"` },
      body: { enabled: true },
    });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null, consecutive_failures: 0 });
    r.fallback = { status: 200 };
    const before = r.received.length;
    const redelivered = await t.rest('POST', redeliverPath);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ status: 'pending', attempt_count: 0 });
    const again = await r.waitFor((h) => r.received.indexOf(h) >= before, 'the redelivery');
    expect(again.headers['webhook-id']).toBe(failedOnce[0].event_id);
    verifyHook(sub.secret, again);
    const done = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${failedOnce[0].id}`)).body,
      (d) => d.status === 'succeeded',
      'the redelivery to succeed',
    );
    // The log keeps every attempt, the earlier ones included.
    expect(done.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 503, 503, 200]);
    // No event of the disabled period was queued: two deliveries, not three.
    const three = await sql(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1`, [sub.id]);
    expect(three[0].n).toBe(2);
  });

  it('rotates the secret: during the overlap both signatures verify, after it only the new one', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url, ['model.changed']);
    const rotated = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, { body: { overlap_seconds: 3600 } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(sub.secret);
    expect(rotated.body).toMatchObject({ version: 2, previous_secret_expires_at: expect.any(String) });
    expect(rotated.headers.get('etag')).toBe(`"${sub.id}:2"`);
    expect((await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}`)).body).not.toHaveProperty('secret');
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    const overlap = await r.waitFor((h) => h.headers['webhook-id'] === ping.body.event_id, 'the ping during the overlap');
    expect(overlap.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyHook(sub.secret, overlap)).toBeTruthy();
    expect(verifyHook(rotated.body.secret, overlap)).toBeTruthy();

    const ended = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, { body: { overlap_seconds: 0 } });
    const ping2 = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    const after = await r.waitFor((h) => h.headers['webhook-id'] === ping2.body.event_id, 'the ping after the overlap');
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyHook(ended.body.secret, after)).toBeTruthy();
    expect(() => verifyHook(rotated.body.secret, after)).toThrow();
    expect(() => verifyHook(sub.secret, after)).toThrow();
    // A tampered body fails verification.
    expect(() => new Webhook(ended.body.secret).verify(after.body.replace('ping', 'pong'), after.headers)).toThrow();

    const audit = await sql(`SELECT action, changes::text AS changes FROM audit_events WHERE resource_id = $1 ORDER BY id`, [sub.id]);
    expect(audit.map((a) => a.action)).toEqual(['create', 'rotate_secret', 'rotate_secret']);
    expect(audit.map((a) => a.changes).join()).not.toContain(rotated.body.secret.slice(6));
    expect((await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/rotate-secret`, { body: { overlap_seconds: -1 } })).status).toBe(
      400,
    );
  });

  it('refuses a target the deployment no longer allows at delivery time, without retrying', async () => {
    const r = await receiver();
    const sub = await subscribe(r.url, ['model.changed']);
    const saved = t.app.deps.config.allowPlainHttpEndpoints;
    (t.app.deps.config as { allowPlainHttpEndpoints: boolean | string[] }).allowPlainHttpEndpoints = false;
    try {
      const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
      const failed = await waitFor(
        async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${ping.body.id}`)).body,
        (d) => d.status !== 'pending',
        'the delivery to be refused',
      );
      expect(failed).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: null });
      expect(failed.last_error).toMatch(/plain HTTP/);
      expect(r.received).toHaveLength(0);
    } finally {
      (t.app.deps.config as { allowPlainHttpEndpoints: boolean | string[] }).allowPlainHttpEndpoints = saved;
    }
    // The same for the private-target allowance: withdrawn, the loopback receiver is refused at the attempt.
    const config = t.app.deps.config as { outboundAllowPrivate: readonly string[] };
    const savedPrivate = config.outboundAllowPrivate;
    config.outboundAllowPrivate = [];
    try {
      const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
      const failed = await waitFor(
        async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${ping.body.id}`)).body,
        (d) => d.status !== 'pending',
        'the delivery to be refused',
      );
      expect(failed).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: null });
      expect(failed.last_error).toMatch(
        /^url: outbound_refused: 127\.0\.0\.1 is a loopback address; allow it with OUTBOUND_ALLOW_PRIVATE$/,
      );
      expect(r.received).toHaveLength(0);
    } finally {
      config.outboundAllowPrivate = savedPrivate;
    }
  });

  it('reads a bounded part of a large answer and keeps its first KiB', async () => {
    const r = await receiver();
    r.fallback = { status: 200, body: 'x'.repeat(2_000_000) };
    const sub = await subscribe(r.url, ['model.changed']);
    const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`);
    const done = await waitFor(
      async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries/${ping.body.id}`)).body,
      (d) => d.status !== 'pending',
      'the delivery',
    );
    expect(done).toMatchObject({ status: 'succeeded', last_status_code: 200 });
    expect(done.attempts[0].response).toBe('x'.repeat(1024));
  });

  it('writes the outbox in the change’s transaction: a rolled-back change queues nothing', async () => {
    const r = await receiver();
    await subscribe(r.url, ['memory.changed']);
    const count = async () => (await sql(`SELECT count(*)::int AS n FROM webhook_events WHERE kind = 'memory.changed'`))[0].n;
    const before = await count();
    await expect(
      t.app.deps.db.$transaction(async (tx) => {
        await enqueueWebhookEvent(tx, t.workspaceId, 'memory.changed', { resource_id: 'mem_rolled_back' });
        throw new Error('the change fails after its event was written');
      }),
    ).rejects.toThrow('the change fails');
    expect(await count()).toBe(before);
    // The same write committed is delivered.
    await t.app.deps.db.$transaction((tx) => enqueueWebhookEvent(tx, t.workspaceId, 'memory.changed', { resource_id: 'mem_committed' }));
    await r.waitFor(
      ofKind('memory.changed', (d) => d.resource_id === 'mem_committed'),
      'the committed event',
    );
    expect(r.received.some((h) => h.json.data.resource_id === 'mem_rolled_back')).toBe(false);
  });

  it('shares the work between instances: every delivery is sent once, by one of them', async () => {
    const second = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'], outboundAllowPrivate: ['127.0.0.1'], runWorkers: 0 }, t);
    try {
      const r = await receiver();
      const sub = await subscribe(r.url, ['model.changed']);
      const pings = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? t : second).rest('POST', `/api/v1/webhook-subscriptions/${sub.id}/test`)),
      );
      const ids = pings.map((p) => p.body.event_id as string);
      await r.waitForCount((h) => ids.includes(h.headers['webhook-id']!), 20, 'twenty pings');
      const deliveries = await waitFor(
        async () => (await t.rest('GET', `/api/v1/webhook-subscriptions/${sub.id}/deliveries?limit=100`)).body.items,
        (items: any[]) => items.length === 20 && items.every((d) => d.status === 'succeeded'),
        'twenty succeeded deliveries',
      );
      // Exactly once each: no delivery was claimed by both instances.
      expect(r.received.map((h) => h.headers['webhook-id']).sort()).toEqual([...ids].sort());
      expect(deliveries.every((d: any) => d.attempt_count === 1)).toBe(true);
    } finally {
      await second.stop();
    }
  });

  it('sends run.started once per run: the retries of a transient error are no new start', async () => {
    const r = await receiver();
    await subscribe(r.url, ['run.started', 'run.failed']);
    const retried = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'retried',
        config: { model: 'dev', model_settings: { script: [[{ error: { message: 'overloaded', transient: true } }]] } },
      },
    });
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: retried.body.id, input: text('hi') } });
    // Every claim is written before the seal, so once run.failed is in, every run.started it caused is too.
    await r.waitFor(
      ofKind('run.failed', (d) => d.run.id === run.body.id),
      'run.failed',
    );
    expect((await t.rest('GET', `/api/v1/runs/${run.body.id}`)).body.attempts).toBe(3);
    const events = await sql(`SELECT kind FROM webhook_events WHERE payload->'run'->>'id' = $1 ORDER BY created_at`, [run.body.id]);
    expect(events.map((e) => e.kind)).toEqual(['run.started', 'run.failed']);
  });

  it('writes no outbox rows for changes nobody subscribed to', async () => {
    const before = await sql(
      `SELECT (SELECT count(*) FROM webhook_events)::int AS events, (SELECT count(*) FROM webhook_deliveries)::int AS deliveries`,
    );
    // A subscription to other kinds, and one disabled subscription to these kinds: neither wants them.
    await subscribe('https://hooks.example.com/other', ['memory.changed']);
    await subscribe('https://hooks.example.com/off', ['run.completed', 'agent.revision_published'], { enabled: false });
    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'quiet', config: { model: 'dev' } } });
    const run = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.body.id, input: text('hi') } });
    await settleRun(t, run.body.id);
    const after = await sql(
      `SELECT (SELECT count(*) FROM webhook_events)::int AS events, (SELECT count(*) FROM webhook_deliveries)::int AS deliveries`,
    );
    expect(after).toEqual(before);
  });
});
