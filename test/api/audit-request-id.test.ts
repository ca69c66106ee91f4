// Every mutation records the request that made it: each row sends one mutation over REST with its
// own X-Request-ID and reads the audit rows back through the audit API. The list of mutations comes
// from the schema, so a new mutation fails here until it has a row (or a stated reason).
import { readFileSync } from 'node:fs';
import { buildSchema, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type RestResponse, type TestApp } from '../helpers/app.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
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
];

/** Mutations that change no audited row, and why. */
const NO_AUDIT_ROW: Record<string, string> = {
  login: 'a login session is a credential, not an audited resource',
  logout: 'ends a login session',
  searchMemoryRecords: 'a read',
  testProvider: 'a probe',
  touchPresence: 'presence is in memory, not stored',
  recordPushActivity: 'a liveness mark on the subscription',
  testPushSubscription: 'sends a notification',
  requestDevicePairing: 'nobody is known yet; the approval is audited',
  pollDevicePairing: 'a read by the device',
  addMemoryRecord: 'records carry their provenance (principal, run, tool call) instead of audit rows',
  replaceMemoryRecord: 'records carry their provenance instead of audit rows',
};

/** Mutations that record the request id but whose set-up is too long for this table, and where they are exercised. */
const NOT_IN_TABLE: Record<string, string> = {
  cancelRun: 'needs a run that is still active: a race with the workers here (test/api/runs-resources.test.ts)',
  resumeRun: 'needs a waiting run (test/engine/*)',
  updateInboxEntry: 'needs a pending entry behind an active run (test/engine/inbox.test.ts)',
  upsertPushSubscription: 'needs a user and a push service (test/support/push.test.ts)',
  deletePushSubscription: 'needs a user and a push service (test/support/push.test.ts)',
  approveDevicePairing: 'needs a device daemon (test/support/envd.test.ts)',
  rejectDevicePairing: 'needs a device daemon (test/support/envd.test.ts)',
  revokeDevice: 'needs a paired device (test/support/envd.test.ts)',
};

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
});
