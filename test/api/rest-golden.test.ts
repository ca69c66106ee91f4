// The REST contract, byte for byte: every route of rest-shim/routes.ts is driven through real HTTP
// against one seeded workspace (a provider of each kind, a model, an agent and a skill with
// revisions, a session, threads, runs — sealed, resumed, forked, cancelled, one waiting on a client
// tool —, inbox entries, a memory with records, audit events, push, presence, pairing, devices), and
// each answer's status, relevant headers and body are compared with the committed golden file
// test/api/golden/rest-responses.json. The GraphQL schema may change shape underneath (enums, typed
// objects, relations); the REST answers may not.
//
// Volatile parts are normalized before the comparison: ids become `<prefix>_<n>` by first
// appearance (so references between answers stay checked), timestamps `<time>`, secrets and
// random codes `<token>`, the loopback ports `<port>`; nothing else. JSON bodies are compared as
// text after normalization, so member order counts too.
//
// Regenerate the golden file (only when a REST change is intended, and review its diff):
//   UPDATE_GOLDEN=1 TEST_DATABASE_URL=… npx vitest run test/api/rest-golden.test.ts
// A route in the table without a case in the golden file fails the test, so new routes are added
// here (a step in the scenario below) and to the golden file deliberately.
//
// Deterministic by construction: every run is awaited with `Prefer: wait` (sealed or waiting when
// the answer is sent), requests are sent one after another, nothing depends on speed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import webpush from 'web-push';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startPushService, type PushService } from '../helpers/push-service.js';
import { routes } from '../../rest-shim/routes.js';
import { createUser } from '../../src/features/access/admin.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), 'golden', 'rest-responses.json');
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** The response headers that are part of the contract (others — date, keep-alive, … — are the server's). */
const HEADERS = ['content-type', 'etag', 'preference-applied', 'cache-control', 'allow', 'x-request-id'];

interface Recorded {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

let t: TestApp;
let push: PushService;
const recorded = new Map<string, Recorded>();

// ── normalization ──

const ID = /\b([a-z]{3})_[0-9A-HJKMNP-TV-Z]{26}\b/g;
const TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;
const PORT = /\b(127\.0\.0\.1|localhost):\d+/g;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
/** Members whose values are random or clock-bound by design (secrets, codes, uptimes, keys). */
const VOLATILE_MEMBERS = new Set([
  'token',
  'poll_secret',
  'user_code',
  'public_key',
  'uptime_seconds',
  'device_credential',
  'secret',
  // Trace span clocks.
  'start_time_unix_nano',
  'end_time_unix_nano',
  'time_unix_nano',
  'duration_ms',
  'wsa.model.time_to_first_token_ms',
]);
/** Members holding random OpenTelemetry ids: each id becomes `<trace-n>` / `<span-n>` by first appearance. */
const TRACE_ID_MEMBERS: Record<string, string> = { trace_id: 'trace', span_id: 'span', parent_span_id: 'span' };
/** Members holding lists of such ids (finding evidence, an analysis's traces read). */
const TRACE_ID_LIST_MEMBERS: Record<string, string> = { span_ids: 'span', read_trace_ids: 'trace' };
const traceIdNames = new Map<string, string>();
function stableTraceId(id: string, kind: string): string {
  if (!traceIdNames.has(id))
    traceIdNames.set(id, `<${kind}-${[...traceIdNames.values()].filter((n) => n.startsWith(`<${kind}-`)).length + 1}>`);
  return traceIdNames.get(id)!;
}
/** Random strings met in answers (push endpoints' paths, pairing codes) that later requests repeat. */
const secrets = new Set<string>();
const WEAK_ETAG = /W\/"[0-9a-f]+-[A-Za-z0-9+/=]+"/g;
const DIGEST = /\bsha256:[0-9a-f]{64}\b/g;

const idNames = new Map<string, string>();
const idCounts = new Map<string, number>();
function stableId(id: string, prefix: string): string {
  let name = idNames.get(id);
  if (!name) {
    const n = (idCounts.get(prefix) ?? 0) + 1;
    idCounts.set(prefix, n);
    idNames.set(id, (name = `${prefix}_${n}`));
  }
  return name;
}
const uuidNames = new Map<string, string>();

const digestNames = new Map<string, string>();

function normalizeText(text: string): string {
  for (const secret of secrets) text = text.replaceAll(secret, '<token>');
  return text
    .replace(WEAK_ETAG, 'W/"<weak etag>"')
    .replace(DIGEST, (digest) => {
      if (!digestNames.has(digest)) digestNames.set(digest, `sha256:<digest-${digestNames.size + 1}>`);
      return digestNames.get(digest)!;
    })
    .replace(ID, (id, prefix: string) => stableId(id, prefix))
    .replace(TIME, '<time>')
    .replace(PORT, '$1:<port>')
    .replace(UUID, (uuid) => {
      if (!uuidNames.has(uuid)) uuidNames.set(uuid, `<uuid-${uuidNames.size + 1}>`);
      return uuidNames.get(uuid)!;
    });
}

function normalize(value: unknown, key?: string): unknown {
  if (key && VOLATILE_MEMBERS.has(key) && value !== null && value !== undefined) return typeof value === 'number' ? 0 : '<token>';
  if (key && TRACE_ID_MEMBERS[key] && typeof value === 'string' && /^[0-9a-f]{16,32}$/.test(value))
    return stableTraceId(value, TRACE_ID_MEMBERS[key]);
  if (key && TRACE_ID_LIST_MEMBERS[key] && Array.isArray(value))
    return value.map((id) =>
      typeof id === 'string' && /^[0-9a-f]{16,32}$/.test(id) ? stableTraceId(id, TRACE_ID_LIST_MEMBERS[key]!) : normalize(id),
    );
  if (typeof value === 'string') return normalizeText(value);
  if (Array.isArray(value)) return value.map((member) => normalize(member));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [normalizeText(name), normalize(member, name)]));
  }
  return value;
}

// ── the client ──

interface Send {
  headers?: Record<string, string>;
  body?: unknown;
  raw?: { bytes: Buffer; contentType: string };
  token?: string | null;
}

/**
 * Sends one request and records its normalized answer as case `name` (the route's `METHOD path`,
 * with ` — label` for a further case of the same route). Returns the parsed answer for later steps.
 */
async function call(name: string, method: string, path: string, options: Send = {}) {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const token = options.token === undefined ? t.apiKey : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined;
  if (options.raw) {
    body = options.raw.bytes;
    headers['content-type'] = options.raw.contentType;
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${t.url}${path}`, { method, headers, body: body as BodyInit | undefined });
  const bytes = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get('content-type') ?? '';
  const parsed = bytes.length === 0 ? null : contentType.includes('json') ? JSON.parse(bytes.toString('utf8')) : null;
  const shown = bytes.length === 0 ? null : contentType.includes('json') ? structuredClone(parsed) : { base64: bytes.toString('base64') };
  const kept: Record<string, string> = {};
  for (const header of HEADERS) {
    const value = response.headers.get(header);
    if (value !== null) kept[header] = header === 'x-request-id' ? '<request-id>' : normalizeText(value);
  }
  expect(recorded.has(name), `case ${name} recorded twice`).toBe(false);
  recorded.set(name, { request: normalizeText(`${method} ${path}`), status: response.status, headers: kept, body: normalize(shown) });
  return { status: response.status, etag: response.headers.get('etag'), body: parsed };
}

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const WAIT = { prefer: 'wait=30' };

// ── the scenario: every route at least once, in an order where each step has what it needs ──

async function scenario() {
  // authentication (a login session, used again at the end for logout)
  await createUser(t.app.deps, { email: 'golden@example.com', password: 'golden password', workspaceId: t.workspaceId, role: 'admin' });
  const login = await call('POST /api/auth/login', 'POST', '/api/auth/login', {
    token: null,
    body: { email: 'golden@example.com', password: 'golden password' },
  });

  // the workspace
  const workspace = await call('GET /api/v1/workspace', 'GET', '/api/v1/workspace');
  await call('PATCH /api/v1/workspace', 'PATCH', '/api/v1/workspace', {
    headers: { 'if-match': workspace.etag! },
    body: { description: 'golden workspace', labels: { team: 'core' } },
  });

  // providers of every kind, and the type catalogues
  for (const kind of ['model', 'web', 'environment', 'connector', 'memory'])
    await call('GET /api/v1/provider-types/:kind' + (kind === 'model' ? '' : ` — ${kind}`), 'GET', `/api/v1/provider-types/${kind}`);
  await call('GET /api/v1/provider-types/:kind — an unknown kind', 'GET', '/api/v1/provider-types/gadget');
  const provider = await call('POST /api/v1/model-providers', 'POST', '/api/v1/model-providers', {
    body: { type: 'development', name: 'offline', description: 'scripted', labels: { tier: 'dev' } },
  });
  const providerId = provider.body.id as string;
  for (const kind of ['web', 'environment', 'connector', 'memory']) {
    const types = (await t.rest('GET', `/api/v1/provider-types/${kind}`)).body.items as { type: string }[];
    const base = `/api/v1/${kind}-providers`;
    const created = await call(`POST ${base}`, 'POST', base, {
      body: {
        type: types[0]!.type,
        name: `${kind} provider`,
        ...(kind === 'web' || kind === 'environment' ? { credential: { api_key: 'golden-secret' } } : {}),
        ...(kind === 'connector' ? { config: { url: 'https://mcp.example.com/mcp' }, credential: { bearer_token: 'golden-secret' } } : {}),
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await call(`GET ${base}`, 'GET', base);
    await call(`GET ${base}/:provider_id`, 'GET', `${base}/${id}`);
    // Probing a remote provider would reach the network: these are disabled first, and the probe
    // answers that (the built-in memory provider is probed for real).
    await call(`PATCH ${base}/:provider_id`, 'PATCH', `${base}/${id}`, {
      headers: { 'if-match': created.etag! },
      body: { description: `${kind} provider, described`, ...(kind === 'memory' ? {} : { enabled: false }) },
    });
    await call(`POST ${base}/:provider_id/test`, 'POST', `${base}/${id}/test`);
  }
  await call('GET /api/v1/model-providers', 'GET', '/api/v1/model-providers?label=tier:dev');
  await call('GET /api/v1/model-providers/:provider_id', 'GET', `/api/v1/model-providers/${providerId}`);
  await call('PATCH /api/v1/model-providers/:provider_id', 'PATCH', `/api/v1/model-providers/${providerId}`, {
    headers: { 'if-match': provider.etag! },
    body: { description: 'scripted, offline' },
  });
  await call('POST /api/v1/model-providers/:provider_id/test', 'POST', `/api/v1/model-providers/${providerId}/test`);

  // models
  const model = await call('POST /api/v1/models', 'POST', '/api/v1/models', {
    body: { key: 'dev', provider_id: providerId, provider_model: 'echo', name: 'Dev', settings: { temperature: 0.5 } },
  });
  await call('GET /api/v1/models', 'GET', '/api/v1/models');
  await call('GET /api/v1/models/:model_key', 'GET', '/api/v1/models/dev');
  await call('PATCH /api/v1/models/:model_key', 'PATCH', '/api/v1/models/dev', {
    headers: { 'if-match': model.etag! },
    body: { description: 'the echo model', labels: { tier: 'dev' } },
  });

  // skills
  const skill = await call('POST /api/v1/skills', 'POST', '/api/v1/skills', {
    body: { name: 'Weather', description: 'reads the sky', content: { name: 'weather', instructions: '# Look up' } },
  });
  const skillId = skill.body.id as string;
  await call('GET /api/v1/skills', 'GET', '/api/v1/skills');
  await call('GET /api/v1/skills/:skill_id', 'GET', `/api/v1/skills/${skillId}`);
  const skillPatched = await call('PATCH /api/v1/skills/:skill_id', 'PATCH', `/api/v1/skills/${skillId}`, {
    headers: { 'if-match': skill.etag! },
    body: { labels: { area: 'weather' } },
  });
  const skillRevision = await call('POST /api/v1/skills/:skill_id/revisions', 'POST', `/api/v1/skills/${skillId}/revisions`, {
    headers: { 'if-match': skillPatched.etag! },
    body: { note: 'second', content: { name: 'weather', instructions: '# Look up, twice' } },
  });
  await call('GET /api/v1/skills/:skill_id/revisions', 'GET', `/api/v1/skills/${skillId}/revisions`);
  await call('GET /api/v1/skills/:skill_id/revisions/:revision_id', 'GET', `/api/v1/skills/${skillId}/revisions/${skillRevision.body.id}`);
  const skillHead = await t.rest('GET', `/api/v1/skills/${skillId}`);
  const skillDefault = await call(
    'POST /api/v1/skills/:skill_id/revisions/:revision_id/set-default',
    'POST',
    `/api/v1/skills/${skillId}/revisions/${skill.body.default_revision_id}/set-default`,
    { headers: { 'if-match': skillHead.headers.get('etag')! } },
  );
  const skillArchived = await call('POST /api/v1/skills/:skill_id/archive', 'POST', `/api/v1/skills/${skillId}/archive`, {
    headers: { 'if-match': skillDefault.etag! },
  });
  await call('POST /api/v1/skills/:skill_id/unarchive', 'POST', `/api/v1/skills/${skillId}/unarchive`, {
    headers: { 'if-match': skillArchived.etag! },
  });

  // agents: one that answers, one that calls a client tool (the run waits)
  const agent = await call('POST /api/v1/agents', 'POST', '/api/v1/agents', {
    body: { name: 'Echo', description: 'says it back', labels: { tier: 'dev' }, config: { model: 'dev', instructions: 'be brief' } },
  });
  const agentId = agent.body.id as string;
  await call('GET /api/v1/agents', 'GET', '/api/v1/agents');
  await call('GET /api/v1/agents/:agent_id', 'GET', `/api/v1/agents/${agentId}`);
  const agentPatched = await call('PATCH /api/v1/agents/:agent_id', 'PATCH', `/api/v1/agents/${agentId}`, {
    headers: { 'if-match': agent.etag! },
    body: { description: 'says it back, briefly' },
  });
  const agentRevision = await call('POST /api/v1/agents/:agent_id/revisions', 'POST', `/api/v1/agents/${agentId}/revisions`, {
    headers: { 'if-match': agentPatched.etag! },
    body: {
      note: 'with a skill',
      config: { model: 'dev', instructions: 'be brief', skills: [{ skill_id: skillId, revision_id: skill.body.default_revision_id }] },
    },
  });
  await call('GET /api/v1/agents/:agent_id/revisions', 'GET', `/api/v1/agents/${agentId}/revisions`);
  await call('GET /api/v1/agents/:agent_id/revisions/:revision_id', 'GET', `/api/v1/agents/${agentId}/revisions/${agentRevision.body.id}`);
  const agentHead = await t.rest('GET', `/api/v1/agents/${agentId}`);
  const agentDefault = await call(
    'POST /api/v1/agents/:agent_id/revisions/:revision_id/set-default',
    'POST',
    `/api/v1/agents/${agentId}/revisions/${agent.body.default_revision_id}/set-default`,
    { headers: { 'if-match': agentHead.headers.get('etag')! } },
  );
  const agentArchived = await call('POST /api/v1/agents/:agent_id/archive', 'POST', `/api/v1/agents/${agentId}/archive`, {
    headers: { 'if-match': agentDefault.etag! },
  });
  const agentUnarchived = await call('POST /api/v1/agents/:agent_id/unarchive', 'POST', `/api/v1/agents/${agentId}/unarchive`, {
    headers: { 'if-match': agentArchived.etag! },
  });
  const avatar = await call('PUT /api/v1/agents/:agent_id/avatar', 'PUT', `/api/v1/agents/${agentId}/avatar`, {
    headers: { 'if-match': agentUnarchived.etag! },
    raw: { bytes: PNG, contentType: 'image/png' },
  });
  await call('GET /api/v1/assets/:asset_id/content', 'GET', avatar.body.image_url as string);
  await call('DELETE /api/v1/agents/:agent_id/avatar', 'DELETE', `/api/v1/agents/${agentId}/avatar`, {
    headers: { 'if-match': avatar.etag! },
  });
  await call('POST /api/v1/agent-composer', 'POST', '/api/v1/agent-composer');
  const toolAgent = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'Weather',
      config: {
        model: 'dev',
        model_settings: {
          script: [[{ tool_call: { id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } } }], [{ text: 'It is sunny.' }]],
        },
        client_tools: [
          {
            name: 'get_weather',
            description: 'Weather',
            parameters_json_schema: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
      },
    },
  });
  expect(toolAgent.status).toBe(201);

  // sessions and threads
  const session = await call('POST /api/v1/sessions', 'POST', '/api/v1/sessions', { body: { title: 'golden', labels: { a: 'b' } } });
  const sessionId = session.body.id as string;
  await call('GET /api/v1/sessions', 'GET', '/api/v1/sessions');
  await call('GET /api/v1/sessions/:session_id', 'GET', `/api/v1/sessions/${sessionId}`);
  await call('PATCH /api/v1/sessions/:session_id', 'PATCH', `/api/v1/sessions/${sessionId}`, {
    headers: { 'if-match': session.etag! },
    body: { title: 'golden, renamed' },
  });
  const thread = await call('POST /api/v1/threads', 'POST', '/api/v1/threads', { body: { session_id: sessionId, labels: { a: 'b' } } });
  const threadId = thread.body.id as string;

  // runs: sealed (Prefer: wait), one waiting on a client tool, resumed, forked, cancelled
  const run = await call('POST /api/v1/runs', 'POST', '/api/v1/runs', {
    headers: WAIT,
    body: { agent_id: agentId, thread_id: threadId, input: text('hello'), labels: { a: 'b' } },
  });
  expect(run.body.status).toBe('completed');
  const runId = run.body.id as string;
  const waiting = await call('POST /api/v1/runs — waiting on a client tool', 'POST', '/api/v1/runs', {
    headers: WAIT,
    body: { agent_id: toolAgent.body.id, input: text('weather?') },
  });
  expect(waiting.body).toMatchObject({ status: 'waiting', wait_reason: 'client_tool' });
  await call('GET /api/v1/runs', 'GET', '/api/v1/runs');
  await call('GET /api/v1/runs — by status', 'GET', '/api/v1/runs?status=waiting,completed');
  await call('GET /api/v1/runs — an unknown status', 'GET', '/api/v1/runs?status=bogus');
  await call('GET /api/v1/runs — an unknown status in a list', 'GET', '/api/v1/runs?status=completed,bogus');
  await call('GET /api/v1/runs/:run_id', 'GET', `/api/v1/runs/${runId}`, { headers: WAIT });
  await call('PATCH /api/v1/runs/:run_id', 'PATCH', `/api/v1/runs/${runId}`, {
    headers: { 'if-match': run.etag! },
    body: { labels: { a: 'c' } },
  });
  await call('GET /api/v1/runs/:run_id/items', 'GET', `/api/v1/runs/${runId}/items`);
  await call('GET /api/v1/runs/:run_id/agent', 'GET', `/api/v1/runs/${runId}/agent`);
  await call('GET /api/v1/content-refs/:ref_id — unknown ref', 'GET', '/api/v1/content-refs/itm_unknown:result?offset=0&limit=10');
  const resumed = await call('POST /api/v1/runs/:run_id/resume', 'POST', `/api/v1/runs/${waiting.body.id}/resume`, {
    headers: { ...WAIT, 'idempotency-key': 'golden-resume' },
    body: { calls: { call_1: { status: 'returned', value: { sky: 'clear' } } } },
  });
  expect(resumed.body.status).toBe('completed');
  await call('GET /api/v1/runs/:run_id/trace', 'GET', `/api/v1/runs/${waiting.body.id}/trace`);
  await call('GET /api/v1/runs/:run_id/trace — a resumed run', 'GET', `/api/v1/runs/${resumed.body.id}/trace`);
  await call('GET /api/v1/runs/:run_id/trace — an unknown run', 'GET', '/api/v1/runs/run_unknown/trace');
  await call('GET /api/v1/runs/:run_id/lineage', 'GET', `/api/v1/runs/${resumed.body.id}/lineage`);
  await call('POST /api/v1/runs/:run_id/fork', 'POST', `/api/v1/runs/${runId}/fork`, {
    headers: { ...WAIT, 'idempotency-key': 'golden-fork' },
    body: { payload: text('hello again') },
  });
  const pending = await t.rest('POST', '/api/v1/runs', { headers: WAIT, body: { agent_id: toolAgent.body.id, input: text('weather?') } });
  expect(pending.body.status).toBe('waiting');
  await call('POST /api/v1/runs/:run_id/cancel', 'POST', `/api/v1/runs/${pending.body.id}/cancel`);

  // the inbox: a delivery to an idle thread starts a run at once; one queued behind a busy run stays
  // pending (and is edited) until that run is cancelled, then runs
  const delivered = await call('POST /api/v1/threads/:thread_id/inbox', 'POST', `/api/v1/threads/${threadId}/inbox`, {
    headers: { ...WAIT, 'idempotency-key': 'golden-inbox' },
    body: { payload: text('one more'), delivery: 'queue' },
  });
  expect(delivered.body.run.status).toBe('completed');
  await call('GET /api/v1/threads/:thread_id/inbox', 'GET', `/api/v1/threads/${threadId}/inbox`);
  await call('GET /api/v1/threads/:thread_id/inbox — by status', 'GET', `/api/v1/threads/${threadId}/inbox?status=completed`);
  await call('GET /api/v1/threads/:thread_id/inbox — an unknown status', 'GET', `/api/v1/threads/${threadId}/inbox?status=bogus`);
  await call('POST /api/v1/threads/:thread_id/inbox — an unknown delivery', 'POST', `/api/v1/threads/${threadId}/inbox`, {
    body: { payload: text('x'), delivery: 'later' },
  });
  await call('POST /api/v1/threads/:thread_id/inbox — an unknown kind', 'POST', `/api/v1/threads/${threadId}/inbox`, {
    body: { payload: text('x'), kind: 'memo' },
  });
  const busyAgent = await t.rest('POST', '/api/v1/agents', {
    body: { name: 'Busy', config: { model: 'dev', model_settings: { script: [[{ delay_ms: 600_000 }, { text: 'x' }]] } } },
  });
  const busy = await t.rest('POST', '/api/v1/runs', { body: { agent_id: busyAgent.body.id, session_id: sessionId, input: text('wait') } });
  await settleRun(t, busy.body.id, ['running']);
  const busyThread = busy.body.thread_id as string;
  const queued = await call(
    'POST /api/v1/threads/:thread_id/inbox — queued behind a busy run',
    'POST',
    `/api/v1/threads/${busyThread}/inbox`,
    {
      headers: { 'idempotency-key': 'golden-queued' },
      body: { agent_id: agentId, payload: text('after you'), delivery: 'queue' },
    },
  );
  expect(queued.body.entry.status).toBe('pending');
  const entryPath = `/api/v1/threads/${busyThread}/inbox/${queued.body.entry.id}`;
  const entry = await call('GET /api/v1/threads/:thread_id/inbox/:entry_id', 'GET', entryPath);
  await call('PATCH /api/v1/threads/:thread_id/inbox/:entry_id — an unknown delivery', 'PATCH', entryPath, {
    headers: { 'if-match': entry.etag! },
    body: { delivery: 'later' },
  });
  await call('PATCH /api/v1/threads/:thread_id/inbox/:entry_id', 'PATCH', entryPath, {
    headers: { 'if-match': entry.etag! },
    body: { payload: text('changed') },
  });
  expect((await t.rest('POST', `/api/v1/runs/${busy.body.id}/cancel`)).status).toBe(200);
  await waitFor(
    async () => (await t.rest('GET', entryPath)).body,
    (read) => read.status === 'completed',
    'the queued entry to run',
  );
  await settleRun(t, busy.body.id, ['cancelled']);

  // threads, read after the runs (history, current run), then archived
  await call('GET /api/v1/threads', 'GET', `/api/v1/threads?session_id=${sessionId}`);
  const threadRead = await call('GET /api/v1/threads/:thread_id', 'GET', `/api/v1/threads/${threadId}`);
  const threadPatched = await call('PATCH /api/v1/threads/:thread_id', 'PATCH', `/api/v1/threads/${threadId}`, {
    headers: { 'if-match': threadRead.etag! },
    body: { labels: { a: 'c' } },
  });
  await call('POST /api/v1/threads/:thread_id/archive', 'POST', `/api/v1/threads/${threadId}/archive`, {
    headers: { 'if-match': threadPatched.etag! },
  });

  // memories
  const memory = await call('POST /api/v1/memories', 'POST', '/api/v1/memories', {
    body: { name: 'notes', description: 'team notes', labels: { area: 'ops' } },
  });
  const memoryId = memory.body.id as string;
  await call('GET /api/v1/memories', 'GET', '/api/v1/memories');
  await call('GET /api/v1/memories/:memory_id', 'GET', `/api/v1/memories/${memoryId}`);
  await call('PATCH /api/v1/memories/:memory_id', 'PATCH', `/api/v1/memories/${memoryId}`, {
    headers: { 'if-match': memory.etag! },
    body: { description: 'runbooks' },
  });
  const record = await call('POST /api/v1/memories/:memory_id/records', 'POST', `/api/v1/memories/${memoryId}/records`, {
    body: { text: 'the deploy key rotates on mondays' },
  });
  await call('PUT /api/v1/memories/:memory_id/records/:record_id', 'PUT', `/api/v1/memories/${memoryId}/records/${record.body.id}`, {
    body: { text: 'the deploy key rotates on tuesdays' },
  });
  await call('GET /api/v1/memories/:memory_id/records', 'GET', `/api/v1/memories/${memoryId}/records`);
  await call('POST /api/v1/memories/:memory_id/records/search', 'POST', `/api/v1/memories/${memoryId}/records/search`, {
    body: { query: 'deploy key', limit: 5 },
  });

  // the audit trail of one agent
  await call('GET /api/v1/audit-events', 'GET', `/api/v1/audit-events?resource_id=${agentId}`);

  // the usage of the runs above, by model
  await call('GET /api/v1/usage', 'GET', '/api/v1/usage?group_by=model');
  // the dashboards' statistics, over a fixed range before the scenario (byte-stable: every bucket empty)
  await call('GET /api/v1/stats/runs', 'GET', '/api/v1/stats/runs?from=2020-01-01T00:00:00Z&to=2020-01-01T06:00:00Z&bucket=hour');
  await call('GET /api/v1/stats/webhooks', 'GET', '/api/v1/stats/webhooks?from=2020-01-01T00:00:00Z&to=2020-01-01T03:00:00Z');

  // the support API: push, status, presence
  await call('GET /api/push/configuration', 'GET', '/api/push/configuration');
  const browser = push.subscribe();
  secrets.add(new URL(browser.endpoint).pathname.split('/').pop()!);
  const subscription = await call('PUT /api/push/subscription', 'PUT', '/api/push/subscription', {
    body: { endpoint: browser.endpoint, keys: browser.keys },
  });
  const subscriptionId = subscription.body.id as string;
  await call('GET /api/push/subscriptions', 'GET', '/api/push/subscriptions');
  await call('POST /api/push/subscriptions/:subscriptionId/activity', 'POST', `/api/push/subscriptions/${subscriptionId}/activity`);
  await call('POST /api/push/subscriptions/:subscriptionId/test', 'POST', `/api/push/subscriptions/${subscriptionId}/test`);
  await call('DELETE /api/push/subscriptions/:subscriptionId', 'DELETE', `/api/push/subscriptions/${subscriptionId}`);
  await call('GET /api/status', 'GET', '/api/status');
  await call('GET /api/presence', 'GET', '/api/presence?participant_id=golden-tab');
  await call('DELETE /api/presence', 'DELETE', '/api/presence?participant_id=golden-tab');

  // device pairing and devices (the device never connects: its directories answer as offline)
  const pairing = await call('POST /api/envd/pair', 'POST', '/api/envd/pair', {
    token: null,
    body: { device_name: 'build-box', platform: 'linux-x64', public_key: 'golden-public-key' },
  });
  secrets.add(pairing.body.user_code);
  await call('GET /api/device-pairings', 'GET', `/api/device-pairings?user_code=${pairing.body.user_code}`);
  await call(
    'POST /api/device-pairings/:pairingId/approve',
    'POST',
    `/api/device-pairings/${pairing.body.pairing_id ?? pairing.body.id}/approve`,
  );
  const polled = await call('POST /api/envd/pair/poll', 'POST', '/api/envd/pair/poll', {
    token: null,
    body: { poll_secret: pairing.body.poll_secret },
  });
  const deviceId = (polled.body.device_id ?? polled.body.device?.id) as string;
  await call('GET /api/devices', 'GET', '/api/devices');
  await call('GET /api/devices/:deviceId', 'GET', `/api/devices/${deviceId}`);
  await call('GET /api/devices/:deviceId/directories', 'GET', `/api/devices/${deviceId}/directories`);
  await call('POST /api/devices/:deviceId/revoke', 'POST', `/api/devices/${deviceId}/revoke`);
  const refused = await t.rest('POST', '/api/envd/pair', {
    token: null,
    body: { device_name: 'other-box', platform: 'linux-x64', public_key: 'golden-public-key-2' },
  });
  await call(
    'POST /api/device-pairings/:pairingId/reject',
    'POST',
    `/api/device-pairings/${refused.body.pairing_id ?? refused.body.id}/reject`,
  );

  // and the login session ends
  await call('POST /api/auth/logout', 'POST', '/api/auth/logout', { token: login.body.token });

  // connections (after everything else, so the cases above keep their ids): created, listed, read,
  // disabled, revoked; the test of a disabled connection answers `disabled` without reaching the network
  const connector = await t.rest('POST', '/api/v1/connector-providers', {
    body: { type: 'mcp', name: 'Connections', config: { url: 'https://mcp.example.com/mcp' } },
  });
  const connection = await call('POST /api/v1/connections', 'POST', '/api/v1/connections', {
    body: {
      provider_id: connector.body.id,
      name: 'Tickets',
      description: 'the ticket tracker',
      config: { transport: 'streamable_http', url: 'https://mcp.example.com/mcp' },
      credential: { bearer_token: 'golden-secret' },
      labels: { team: 'support' },
    },
  });
  const connectionId = connection.body.id as string;
  await call('GET /api/v1/connections', 'GET', '/api/v1/connections?label=team:support&enabled=true');
  await call('GET /api/v1/connections/:connection_id', 'GET', `/api/v1/connections/${connectionId}`);
  const connectionPatched = await call('PATCH /api/v1/connections/:connection_id', 'PATCH', `/api/v1/connections/${connectionId}`, {
    headers: { 'if-match': connection.etag! },
    body: { description: 'the ticket tracker, paused', enabled: false },
  });
  await call('POST /api/v1/connections/:connection_id/revoke', 'POST', `/api/v1/connections/${connectionId}/revoke`, {
    headers: { 'if-match': connectionPatched.etag! },
  });
  await call('POST /api/v1/connections/:connection_id/test', 'POST', `/api/v1/connections/${connectionId}/test`);
  // Starting an OAuth authorization reaches the server; here the input is refused before that (the
  // whole flow is test/api/connection-oauth.test.ts, against a server on loopback).
  await call('POST /api/v1/connections/:connection_id/authorize', 'POST', `/api/v1/connections/${connectionId}/authorize`, {
    body: { client_secret: 'golden-client-secret' },
  });

  // environment templates and environments of the local type: a second instance on the same database
  // whose deployment allows local environments (the main one does not, so its provider types stay as
  // they are)
  const main = t;
  t = await startTestApp({ allowLocalEnvironments: true }, main);
  try {
    const local = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'this machine' } });
    const template = await call('POST /api/v1/environment-templates', 'POST', '/api/v1/environment-templates', {
      body: {
        name: 'scratch',
        description: 'a scratch directory',
        provider_id: local.body.id,
        labels: { area: 'ops' },
        config: { working_directory: 'work' },
      },
    });
    const templateId = template.body.id as string;
    await call('GET /api/v1/environment-templates', 'GET', '/api/v1/environment-templates?label=area:ops');
    await call('GET /api/v1/environment-templates/:template_id', 'GET', `/api/v1/environment-templates/${templateId}`);
    await call('PATCH /api/v1/environment-templates/:template_id', 'PATCH', `/api/v1/environment-templates/${templateId}`, {
      headers: { 'if-match': template.etag! },
      body: { description: 'a build directory', config: { working_directory: 'build', env: { CI: '1' } } },
    });
    // The data directory is the test's temporary one: shown as <token>.
    secrets.add(t.app.deps.config.dataDir);
    const environment = await call('POST /api/v1/environments', 'POST', '/api/v1/environments', { body: { template_id: templateId } });
    const environmentId = environment.body.id as string;
    await call('GET /api/v1/environments', 'GET', `/api/v1/environments?template_id=${templateId}`);
    await call('GET /api/v1/environments/:environment_id', 'GET', `/api/v1/environments/${environmentId}`);
    await call('POST /api/v1/environments/:environment_id/stop', 'POST', `/api/v1/environments/${environmentId}/stop`);
    await call('DELETE /api/v1/environments/:environment_id', 'DELETE', `/api/v1/environments/${environmentId}`);
    // Starting again: a second environment (so the cases above stay as they were), stopped first.
    const restarted = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
    await t.rest('POST', `/api/v1/environments/${restarted.body.id}/stop`);
    await call('POST /api/v1/environments/:environment_id/start', 'POST', `/api/v1/environments/${restarted.body.id}/start`);
  } finally {
    await t.stop();
    t = main;
  }

  // webhook subscriptions (last, so the cases above keep their ids): this instance delivers nothing
  // (WEBHOOK_DELIVERY_CONCURRENCY=0), so the test ping's delivery stays pending and its answers
  // do not depend on a receiver
  await call('GET /api/v1/webhook-event-kinds', 'GET', '/api/v1/webhook-event-kinds');
  const hook = await call('POST /api/v1/webhook-subscriptions', 'POST', '/api/v1/webhook-subscriptions', {
    body: {
      url: 'https://hooks.example.com/agents',
      event_kinds: ['run.failed', 'run.completed'],
      description: 'the on-call channel',
      labels: { team: 'ops' },
    },
  });
  const hookId = hook.body.id as string;
  await call('GET /api/v1/webhook-subscriptions', 'GET', '/api/v1/webhook-subscriptions?label=team:ops&enabled=true');
  await call('GET /api/v1/webhook-subscriptions/:subscription_id', 'GET', `/api/v1/webhook-subscriptions/${hookId}`);
  const hookPatched = await call(
    'PATCH /api/v1/webhook-subscriptions/:subscription_id',
    'PATCH',
    `/api/v1/webhook-subscriptions/${hookId}`,
    { headers: { 'if-match': hook.etag! }, body: { event_kinds: ['run.failed'], description: 'failures only' } },
  );
  await call(
    'POST /api/v1/webhook-subscriptions/:subscription_id/rotate-secret',
    'POST',
    `/api/v1/webhook-subscriptions/${hookId}/rotate-secret`,
    { headers: { 'if-match': hookPatched.etag! }, body: { overlap_seconds: 3600 } },
  );
  const ping = await call(
    'POST /api/v1/webhook-subscriptions/:subscription_id/test',
    'POST',
    `/api/v1/webhook-subscriptions/${hookId}/test`,
  );
  await call(
    'GET /api/v1/webhook-subscriptions/:subscription_id/deliveries',
    'GET',
    `/api/v1/webhook-subscriptions/${hookId}/deliveries?status=pending`,
  );
  await call(
    'GET /api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id',
    'GET',
    `/api/v1/webhook-subscriptions/${hookId}/deliveries/${ping.body.id}`,
  );
  await call(
    'POST /api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id/redeliver',
    'POST',
    `/api/v1/webhook-subscriptions/${hookId}/deliveries/${ping.body.id}/redeliver`,
  );
  await call('DELETE /api/v1/webhook-subscriptions/:subscription_id', 'DELETE', `/api/v1/webhook-subscriptions/${hookId}`);

  // assets (last, so that the answers above keep their ids)
  const asset = await call('POST /api/v1/assets', 'POST', '/api/v1/assets?name=pixel.png&label=kind:icon', {
    raw: { bytes: PNG, contentType: 'image/png' },
  });
  await call('GET /api/v1/assets', 'GET', '/api/v1/assets?label=kind:icon');
  await call('GET /api/v1/assets/:asset_id', 'GET', `/api/v1/assets/${asset.body.id}`);
  await call('DELETE /api/v1/assets/:asset_id', 'DELETE', `/api/v1/assets/${asset.body.id}`, { headers: { 'if-match': asset.etag! } });

  // finding analyses and findings (after everything else, so the cases above keep their ids): an agent
  // whose run fails on its output spec, analysed; the findings listed, read and assessed
  const failing = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'Analysed',
      config: {
        model: 'dev',
        retries: { output: 0 },
        output_spec: { schema: { type: 'object', properties: { answer: { type: 'integer' } } } },
        model_settings: { script: [[{ text: '{"answer": "x"}' }]] },
      },
    },
  });
  const failed = await t.rest('POST', '/api/v1/runs', { headers: WAIT, body: { agent_id: failing.body.id, input: text('go') } });
  expect(failed.body.status).toBe('failed');
  // With no usable model the analysis runs the detectors alone (the analysis agent is covered by
  // analysis-agent.test.ts): its answer stays the one recorded here.
  const devModel = await t.rest('GET', '/api/v1/models/dev');
  const disabled = await t.rest('PATCH', '/api/v1/models/dev', {
    headers: { 'if-match': devModel.headers.get('etag')! },
    body: { enabled: false },
  });
  expect(disabled.status).toBe(200);
  const analysis = await call('POST /api/v1/finding-analyses', 'POST', '/api/v1/finding-analyses', {
    headers: { 'idempotency-key': 'golden-analysis' },
    body: { agent_id: failing.body.id, max_traces: 5 },
  });
  await call('POST /api/v1/finding-analyses — without an Idempotency-Key', 'POST', '/api/v1/finding-analyses', { body: {} });
  await call('GET /api/v1/finding-analyses', 'GET', '/api/v1/finding-analyses?limit=5');
  await call('GET /api/v1/finding-analyses/:analysis_id/findings', 'GET', `/api/v1/finding-analyses/${analysis.body.id}/findings?limit=5`);
  const findings = await call('GET /api/v1/findings', 'GET', `/api/v1/findings?agent_id=${failing.body.id}&category=output_spec`);
  const findingId = findings.body.items[0].id as string;
  const finding = await call('GET /api/v1/findings/:finding_id', 'GET', `/api/v1/findings/${findingId}`);
  await call('PATCH /api/v1/findings/:finding_id', 'PATCH', `/api/v1/findings/${findingId}`, {
    headers: { 'if-match': finding.etag! },
    body: { assessment: 'confirmed', assessment_note: 'the spec was loosened', closed: true },
  });

  // budgets (after everything else, so the cases above keep their ids): made after the runs, so nothing is spent
  const budget = await call('POST /api/v1/budgets', 'POST', '/api/v1/budgets', {
    body: {
      name: 'Monthly',
      scope: { kind: 'workspace' },
      period: 'month',
      limit: { cost: '25.00' },
      action: 'notify',
      notify_at: [0.5, 0.8],
    },
  });
  await call('GET /api/v1/budgets', 'GET', '/api/v1/budgets?scope_kind=workspace');
  await call('GET /api/v1/budgets/:budget_id', 'GET', `/api/v1/budgets/${budget.body.id}`);
  await call('PATCH /api/v1/budgets/:budget_id', 'PATCH', `/api/v1/budgets/${budget.body.id}`, {
    headers: { 'if-match': budget.etag! },
    body: { limit: { cost: '25.00', tokens: 5000000 }, action: 'block' },
  });
  await call('DELETE /api/v1/budgets/:budget_id', 'DELETE', `/api/v1/budgets/${budget.body.id}`);
}

beforeAll(async () => {
  push = await startPushService();
  const vapid = webpush.generateVAPIDKeys();
  t = await startTestApp({
    pushCaFile: push.caFile,
    vapidPublicKey: vapid.publicKey,
    vapidPrivateKey: vapid.privateKey,
    webhookDeliveryConcurrency: 0,
  });
  await scenario();
}, 120_000);
afterAll(async () => {
  await t?.stop();
  await push?.stop();
});

describe('REST responses stay byte for byte the same', () => {
  const routeKeys = routes.map((route) => `${route.method} ${route.path}`);
  const caseRoute = (name: string) => name.split(' — ')[0]!;

  it('the scenario covers every route of the table, and only routes of the table', () => {
    const covered = new Set([...recorded.keys()].map(caseRoute));
    expect(routeKeys.filter((key) => !covered.has(key))).toEqual([]);
    expect([...covered].filter((key) => !routeKeys.includes(key))).toEqual([]);
  });

  it('every answer equals the golden file', () => {
    const actual = Object.fromEntries(recorded);
    if (UPDATE || !existsSync(GOLDEN)) {
      if (!UPDATE) throw new Error(`${GOLDEN} is missing: run with UPDATE_GOLDEN=1 to write it`);
      mkdirSync(dirname(GOLDEN), { recursive: true });
      writeFileSync(GOLDEN, `${JSON.stringify(actual, null, 2)}\n`);
      return;
    }
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Recorded>;
    // A route in the table must have its answer in the golden file (new routes are added deliberately).
    expect(routeKeys.filter((key) => !Object.keys(golden).some((name) => caseRoute(name) === key))).toEqual([]);
    expect(Object.keys(actual)).toEqual(Object.keys(golden));
    for (const [name, expected] of Object.entries(golden)) {
      // Compared as text: member order is part of the bytes on the wire.
      expect(JSON.stringify(actual[name], null, 2), name).toBe(JSON.stringify(expected, null, 2));
    }
  });
});
