// Every mutation records the request that made it: each row sends one mutation over REST with its
// own X-Request-ID and reads the audit rows back through the audit API. The list of mutations comes
// from the schema, so a new mutation fails here until it has a row (or a stated reason).
import { createECDH, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RestResponse, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
beforeAll(async () => {
  // Local environments: the environment rows below make real ones.
  // No webhook retries: the ping the redelivery row needs fails for good at its first attempt.
  t = await startTestApp({ allowLocalEnvironments: true, webhookRetryDelaysMs: [] });
});
afterAll(async () => {
  await t.stop();
});

/** What earlier rows created, for later rows to act on. */
const made: Record<string, any> = {};
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const skillContent = { name: 'audited', description: 'Audited skill', instructions: '# Audited', files: [] };

type Send = (headers: Record<string, string>) => Promise<RestResponse>;
const any = { 'if-match': '*' };
const message = (text: string) => ({ content: [{ type: 'text', text }] });
/** An agent on the development model playing `script` (one list of steps per model request). */
async function scriptedAgent(name: string, script: unknown[][], config: Record<string, unknown> = {}): Promise<string> {
  const r = await t.rest('POST', '/api/v1/agents', { body: { name, config: { model: 'main', model_settings: { script }, ...config } } });
  return r.body.id;
}
/** A browser's push subscription keys (a P-256 public key and a 16-byte secret). */
function browserKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}
/** A device daemon's pairing request (public: nobody is known yet). */
const requestPairing = async (name: string): Promise<string> =>
  (
    await t.rest('POST', '/api/envd/pair', {
      token: null,
      body: { device_name: name, platform: 'linux-x64', public_key: 'ssh-ed25519 AAAA' },
    })
  ).body.pairing_id;

/** Mutation (schema field name) → the REST request that runs it. Order matters: later rows use what earlier ones made. */
const ROWS: [string, Send][] = [
  ['updateWorkspace', (h) => t.rest('PATCH', '/api/v1/workspace', { headers: { ...h, ...any }, body: { description: 'audited' } })],
  [
    'createProvider',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/model-providers', { headers: h, body: { type: 'development', name: 'dev' } });
      made.provider = r.body;
      return r;
    },
  ],
  [
    'updateProvider',
    (h) => t.rest('PATCH', `/api/v1/model-providers/${made.provider.id}`, { headers: { ...h, ...any }, body: { name: 'dev 2' } }),
  ],
  [
    'createModel',
    (h) => t.rest('POST', '/api/v1/models', { headers: h, body: { key: 'main', provider_id: made.provider.id, provider_model: 'echo' } }),
  ],
  ['updateModel', (h) => t.rest('PATCH', '/api/v1/models/main', { headers: { ...h, ...any }, body: { description: 'the main model' } })],
  [
    'createConnection',
    async (h) => {
      const provider = await t.rest('POST', '/api/v1/connector-providers', {
        body: { type: 'mcp', name: 'mcp', config: { url: 'https://mcp.example.com/mcp' } },
      });
      const r = await t.rest('POST', '/api/v1/connections', {
        headers: h,
        body: {
          provider_id: provider.body.id,
          name: 'mcp',
          config: { url: 'https://mcp.example.com/mcp' },
          credential: { bearer_token: 'secret' },
        },
      });
      made.connection = r.body;
      return r;
    },
  ],
  [
    'updateConnection',
    (h) => t.rest('PATCH', `/api/v1/connections/${made.connection.id}`, { headers: { ...h, ...any }, body: { description: 'audited' } }),
  ],
  ['revokeConnection', (h) => t.rest('POST', `/api/v1/connections/${made.connection.id}/revoke`, { headers: h })],
  [
    'createEnvironmentTemplate',
    async (h) => {
      const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'local' } });
      const r = await t.rest('POST', '/api/v1/environment-templates', {
        headers: h,
        body: { name: 'scratch', provider_id: provider.body.id },
      });
      made.environmentTemplate = r.body;
      return r;
    },
  ],
  [
    'updateEnvironmentTemplate',
    (h) =>
      t.rest('PATCH', `/api/v1/environment-templates/${made.environmentTemplate.id}`, {
        headers: { ...h, ...any },
        body: { description: 'audited' },
      }),
  ],
  [
    'createEnvironment',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/environments', { headers: h, body: { template_id: made.environmentTemplate.id } });
      made.environment = r.body;
      return r;
    },
  ],
  ['stopEnvironment', (h) => t.rest('POST', `/api/v1/environments/${made.environment.id}/stop`, { headers: h })],
  ['startEnvironment', (h) => t.rest('POST', `/api/v1/environments/${made.environment.id}/start`, { headers: h })],
  ['destroyEnvironment', (h) => t.rest('DELETE', `/api/v1/environments/${made.environment.id}`, { headers: h })],
  [
    'createSkill',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/skills', { headers: h, body: { name: 'Audited', content: skillContent } });
      made.skill = r.body;
      return r;
    },
  ],
  [
    'updateSkill',
    (h) => t.rest('PATCH', `/api/v1/skills/${made.skill.id}`, { headers: { ...h, ...any }, body: { description: 'changed' } }),
  ],
  [
    'publishSkillRevision',
    async (h) => {
      const r = await t.rest('POST', `/api/v1/skills/${made.skill.id}/revisions`, {
        headers: { ...h, ...any },
        body: { content: { ...skillContent, instructions: '# Audited 2' }, make_default: false },
      });
      made.skillRevision = r.body.revision ?? r.body;
      return r;
    },
  ],
  [
    'setDefaultSkillRevision',
    (h) => t.rest('POST', `/api/v1/skills/${made.skill.id}/revisions/${made.skillRevision.id}/set-default`, { headers: { ...h, ...any } }),
  ],
  ['archiveSkill', (h) => t.rest('POST', `/api/v1/skills/${made.skill.id}/archive`, { headers: { ...h, ...any } })],
  ['unarchiveSkill', (h) => t.rest('POST', `/api/v1/skills/${made.skill.id}/unarchive`, { headers: { ...h, ...any } })],
  [
    'createAgent',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/agents', { headers: h, body: { name: 'Audited', config: { model: 'main' } } });
      made.agent = r.body;
      return r;
    },
  ],
  [
    'updateAgent',
    (h) => t.rest('PATCH', `/api/v1/agents/${made.agent.id}`, { headers: { ...h, ...any }, body: { description: 'changed' } }),
  ],
  [
    'publishAgentRevision',
    async (h) => {
      const r = await t.rest('POST', `/api/v1/agents/${made.agent.id}/revisions`, {
        headers: { ...h, ...any },
        body: { config: { model: 'main', instructions: 'v2' }, make_default: false },
      });
      made.agentRevision = r.body.revision ?? r.body;
      return r;
    },
  ],
  [
    'setDefaultAgentRevision',
    (h) => t.rest('POST', `/api/v1/agents/${made.agent.id}/revisions/${made.agentRevision.id}/set-default`, { headers: { ...h, ...any } }),
  ],
  ['archiveAgent', (h) => t.rest('POST', `/api/v1/agents/${made.agent.id}/archive`, { headers: { ...h, ...any } })],
  ['unarchiveAgent', (h) => t.rest('POST', `/api/v1/agents/${made.agent.id}/unarchive`, { headers: { ...h, ...any } })],
  [
    'uploadAgentAvatar',
    async (h) => {
      const response = await fetch(`${t.url}/api/v1/agents/${made.agent.id}/avatar`, {
        method: 'PUT',
        headers: { ...h, authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png' },
        body: png,
      });
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
  ],
  ['deleteAgentAvatar', (h) => t.rest('DELETE', `/api/v1/agents/${made.agent.id}/avatar`, { headers: h })],
  [
    'uploadAsset',
    async (h) => {
      const response = await fetch(`${t.url}/api/v1/assets?name=audited.png`, {
        method: 'POST',
        headers: { ...h, authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png' },
        body: new Uint8Array(png),
      });
      const r = { status: response.status, headers: response.headers, body: await response.json() };
      made.asset = r.body;
      return r;
    },
  ],
  ['retireAsset', (h) => t.rest('DELETE', `/api/v1/assets/${made.asset.id}`, { headers: h })],
  ['prepareAgentComposer', (h) => t.rest('POST', '/api/v1/agent-composer', { headers: h })],
  [
    'createSession',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/sessions', { headers: h, body: { title: 'audited' } });
      made.session = r.body;
      return r;
    },
  ],
  [
    'updateSession',
    (h) => t.rest('PATCH', `/api/v1/sessions/${made.session.id}`, { headers: { ...h, ...any }, body: { title: 'changed' } }),
  ],
  [
    'createThread',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/threads', { headers: h, body: { session_id: made.session.id } });
      made.thread = r.body;
      return r;
    },
  ],
  [
    'updateThread',
    (h) => t.rest('PATCH', `/api/v1/threads/${made.thread.id}`, { headers: { ...h, ...any }, body: { labels: { a: 'b' } } }),
  ],
  [
    'startRun',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/runs', { headers: h, body: { agent_id: made.agent.id, input: message('hello') } });
      if (r.status >= 300) return r;
      made.run = await settleRun(t, r.body.id);
      return r;
    },
  ],
  ['updateRun', (h) => t.rest('PATCH', `/api/v1/runs/${made.run.id}`, { headers: { ...h, ...any }, body: { labels: { audited: 'yes' } } })],
  [
    'forkRun',
    async (h) => {
      const r = await t.rest('POST', `/api/v1/runs/${made.run.id}/fork`, {
        headers: { ...h, 'idempotency-key': 'fork-audited' },
        body: { payload: message('forked') },
      });
      await settleRun(t, r.body.run.id);
      return r;
    },
  ],
  [
    'deliverToInbox',
    async (h) => {
      const r = await t.rest('POST', `/api/v1/threads/${made.run.thread_id}/inbox`, { headers: h, body: { payload: message('more') } });
      await settleRun(t, r.body.run.id);
      return r;
    },
  ],
  [
    'resumeRun',
    async (h) => {
      // The model calls a client tool, so the run waits for the client's result.
      const agent = await scriptedAgent('Pauses', [[{ tool_call: { id: 'call_1', name: 'pick' } }], [{ text: 'picked' }]], {
        client_tools: [{ name: 'pick' }],
      });
      const waiting = await settleRun(
        t,
        (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent, input: message('pick') } })).body.id,
      );
      const r = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
        headers: { ...h, 'idempotency-key': 'resume-audited' },
        body: { calls: { call_1: { status: 'returned', value: 'a' } } },
      });
      if (r.status < 300) await settleRun(t, r.body.id);
      return r;
    },
  ],
  [
    'updateInboxEntry',
    async (h) => {
      // A run that stays active (its model pauses for a minute) until the cancelRun row; an entry queued behind it stays pending.
      const agent = await scriptedAgent('Busy', [[{ text: 'working' }, { delay_ms: 60_000 }, { text: 'never' }]]);
      made.busy = (await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent, input: message('work') } })).body;
      const queued = await t.rest('POST', `/api/v1/threads/${made.busy.thread_id}/inbox`, {
        headers: { 'x-request-id': 'deliver-queued' },
        body: { agent_id: made.agent.id, payload: message('next'), delivery: 'queue' },
      });
      made.queued = queued.body.entry;
      return t.rest('PATCH', `/api/v1/threads/${made.busy.thread_id}/inbox/${made.queued.id}`, {
        headers: { ...h, ...any },
        body: { payload: message('next, edited') },
      });
    },
  ],
  [
    'cancelRun',
    async (h) => {
      const r = await t.rest('POST', `/api/v1/runs/${made.busy.id}/cancel`, { headers: h });
      if (r.status >= 300) return r;
      await settleRun(t, made.busy.id, ['cancelled']);
      // The queued entry goes next; let its run finish so nothing is running when later rows look.
      const entry = await waitFor(
        async () => (await t.rest('GET', `/api/v1/threads/${made.busy.thread_id}/inbox/${made.queued.id}`)).body,
        (e) => e.assigned_run_id !== null,
        'the queued entry to be assigned',
      );
      made.promotedRunId = entry.assigned_run_id;
      await settleRun(t, entry.assigned_run_id);
      return r;
    },
  ],
  ['archiveThread', (h) => t.rest('POST', `/api/v1/threads/${made.thread.id}/archive`, { headers: { ...h, ...any } })],
  [
    'createMemory',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/memories', { headers: h, body: { name: 'Audited' } });
      made.memory = r.body;
      return r;
    },
  ],
  [
    'updateMemory',
    (h) => t.rest('PATCH', `/api/v1/memories/${made.memory.id}`, { headers: { ...h, ...any }, body: { description: 'changed' } }),
  ],
  [
    'upsertPushSubscription',
    async (h) => {
      const r = await t.rest('PUT', '/api/push/subscription', {
        headers: h,
        body: { endpoint: 'https://push.example.test/send/audited', keys: browserKeys(), expiration_time: null },
      });
      made.pushSubscription = r.body;
      return r;
    },
  ],
  ['deletePushSubscription', (h) => t.rest('DELETE', `/api/push/subscriptions/${made.pushSubscription.id}`, { headers: h })],
  [
    'approveDevicePairing',
    async (h) => {
      const r = await t.rest('POST', `/api/device-pairings/${await requestPairing('audited laptop')}/approve`, { headers: h });
      made.device = r.body;
      return r;
    },
  ],
  [
    'rejectDevicePairing',
    async (h) => t.rest('POST', `/api/device-pairings/${await requestPairing('refused laptop')}/reject`, { headers: h }),
  ],
  ['revokeDevice', (h) => t.rest('POST', `/api/devices/${made.device.id}/revoke`, { headers: h })],
  [
    'createWebhookSubscription',
    async (h) => {
      const r = await t.rest('POST', '/api/v1/webhook-subscriptions', {
        headers: h,
        body: { url: 'https://hooks.example.test/audited', event_kinds: ['run.failed'] },
      });
      made.webhook = r.body;
      return r;
    },
  ],
  [
    'updateWebhookSubscription',
    (h) =>
      t.rest('PATCH', `/api/v1/webhook-subscriptions/${made.webhook.id}`, { headers: { ...h, ...any }, body: { description: 'audited' } }),
  ],
  [
    'rotateWebhookSubscriptionSecret',
    (h) => t.rest('POST', `/api/v1/webhook-subscriptions/${made.webhook.id}/rotate-secret`, { headers: h }),
  ],
  [
    'redeliverWebhookDelivery',
    async (h) => {
      // A ping to a host that does not resolve fails at once (this app has no retries), then is sent again.
      const ping = await t.rest('POST', `/api/v1/webhook-subscriptions/${made.webhook.id}/test`);
      const path = `/api/v1/webhook-subscriptions/${made.webhook.id}/deliveries/${ping.body.id}`;
      await waitFor(
        async () => (await t.rest('GET', path)).body.status,
        (status) => status === 'failed',
        'the ping to fail',
      );
      return t.rest('POST', `${path}/redeliver`, { headers: h });
    },
  ],
  ['deleteWebhookSubscription', (h) => t.rest('DELETE', `/api/v1/webhook-subscriptions/${made.webhook.id}`, { headers: h })],
  [
    'startFindingAnalysis',
    async (h) => {
      // A run that fails on an unknown tool, so that the analysis records findings.
      const agentId = await scriptedAgent('Analysed', [[{ tool_call: { id: 'u1', name: 'no_such_tool' } }]], { retries: { tools: 0 } });
      const run = await t.rest('POST', '/api/v1/runs', {
        headers: { prefer: 'wait=30' },
        body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'go' }] } },
      });
      expect(run.body.status).toBe('failed');
      made.analysedAgentId = agentId;
      return t.rest('POST', '/api/v1/finding-analyses', { headers: { ...h, 'idempotency-key': 'audited' }, body: { agent_id: agentId } });
    },
  ],
  [
    'updateFinding',
    async (h) => {
      const findings = await t.rest('GET', `/api/v1/findings?agent_id=${made.analysedAgentId}`);
      return t.rest('PATCH', `/api/v1/findings/${findings.body.items[0].id}`, { headers: { ...h, ...any }, body: { closed: true } });
    },
  ],
];

/** Mutations that change no audited row, and why. */
const NO_AUDIT_ROW: Record<string, string> = {
  login: 'a login session is a credential, not an audited resource',
  logout: 'ends a login session',
  searchMemoryRecords: 'a read',
  testProvider: 'a probe',
  testConnection: 'a probe (connects and lists tools)',
  touchPresence: 'presence is in memory, not stored',
  leavePresence: 'presence is in memory, not stored',
  recordPushActivity: 'a liveness mark on the subscription',
  testPushSubscription: 'sends a notification',
  requestDevicePairing: 'nobody is known yet; the approval is audited',
  pollDevicePairing: 'a read by the device',
  addMemoryRecord: 'records carry their provenance (principal, run, tool call) instead of audit rows',
  replaceMemoryRecord: 'records carry their provenance instead of audit rows',
  testWebhookSubscription: 'queues a ping; its delivery is listed on the subscription',
};

/** Mutations that record the request id but cannot be reached from this table, and why (none today). */
const NOT_IN_TABLE: Record<string, string> = {};

describe('X-Request-ID on audit rows', () => {
  it('every mutation of the schema has a row here, or a stated reason', () => {
    const schema = buildSchema(readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8'));
    const mutations = Object.keys((schema.getMutationType() as GraphQLObjectType).getFields());
    const known = new Set([...ROWS.map(([name]) => name), ...Object.keys(NO_AUDIT_ROW), ...Object.keys(NOT_IN_TABLE)]);
    expect(mutations.filter((name) => !known.has(name))).toEqual([]);
    expect([...known].filter((name) => !mutations.includes(name))).toEqual([]);
  });

  for (const [index, [mutation, send]] of ROWS.entries()) {
    it(`${mutation} records the request id`, async () => {
      const requestId = `audit-${index}-${mutation}`;
      const response = await send({ 'x-request-id': requestId });
      expect(response.status, JSON.stringify(response.body)).toBeLessThan(300);
      const events = await t.rest('GET', '/api/v1/audit-events?limit=100');
      const mine = events.body.items.filter((event: { request_id: string | null }) => event.request_id === requestId);
      expect(mine.length, `${mutation}: no audit row with request id ${requestId}`).toBeGreaterThan(0);
    });
  }

  it("a queued entry's turn is audited for its sender, with the request that delivered it (not the cancel's)", async () => {
    const events = await t.rest('GET', `/api/v1/audit-events?resource_id=${made.promotedRunId}`);
    expect(events.body.items).toEqual([expect.objectContaining({ action: 'create', request_id: 'deliver-queued' })]);
  });
});
