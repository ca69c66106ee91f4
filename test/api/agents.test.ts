// Agents through REST and GraphQL: revisions, digests, the identical-configuration rule, the head
// lifecycle, list filters, validation, tenancy, concurrency, the composer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel, insertWorkspaceResource } from '../helpers/fixtures.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let other: { id: string; apiKey: string };
let readOnly: string;

beforeAll(async () => {
  t = await startTestApp();
  const created = await createWorkspace(t.app.deps, { name: 'B' });
  other = { id: created.workspace.id, apiKey: created.apiKey.token };
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  await insertModel(t, 'gpt-main');
  await insertModel(t, 'a.b-c9');
  await insertModel(t, 'only-in-b', { workspaceId: other.id });
});
afterAll(async () => {
  await t.stop();
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
  t.rest('POST', path, { body, headers, token });
async function createAgent(body: Record<string, unknown> = {}) {
  const response = await post('/api/v1/agents', { name: 'Helper', config: { model: 'gpt-main' }, ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { agent: response.body, etag: response.headers.get('etag')! };
}

describe('creating and reading agents', () => {
  it('creates a head with revision 1 as default and canonical defaults filled', async () => {
    const { agent, etag } = await createAgent({ name: 'ConfAlphaBeta', description: 'does things', labels: { team: 'core' } });
    expect(agent).toMatchObject({
      name: 'ConfAlphaBeta',
      description: 'does things',
      labels: { team: 'core' },
      workspace_id: t.workspaceId,
      source: 'custom',
      preset_kind: '',
      image_url: '',
      archived_at: null,
      version: 1,
    });
    expect(agent.id).toMatch(/^agt_/);
    expect(typeof agent.organization_id).toBe('string');
    expect(etag).toBe(`"${agent.id}:1"`);
    const revision = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions/${agent.default_revision_id}`);
    expect(revision.status).toBe(200);
    expect(revision.body).toMatchObject({
      id: agent.default_revision_id,
      agent_id: agent.id,
      number: 1,
      note: '',
      config: { model: 'gpt-main', instructions: '', user_questions: false },
    });
    expect(revision.body.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(revision.body.id).toMatch(/^rev_/);
    for (const field of ['created_by_id', 'updated_by_id', 'created_at', 'updated_at'])
      expect(revision.body[field]).toEqual(expect.any(String));
    expect(revision.headers.get('etag')).toBe(`"${revision.body.id}:1"`);
    const read = await t.rest('GET', `/api/v1/agents/${agent.id}`);
    expect(read.body).toEqual(agent);
    expect(read.headers.get('etag')).toBe(etag);
  });

  it('round-trips every configuration field', async () => {
    const connection = await insertWorkspaceResource(t, 'connection');
    const memory = (await post('/api/v1/memories', { name: 'Agent notes' })).body.id;
    const template = await insertWorkspaceResource(t, 'environmentTemplate');
    const skill = await post('/api/v1/skills', { name: 'Writing', content: { name: 'writing', instructions: '# Write well' } });
    const helper = (await createAgent()).agent;
    const config = {
      model: 'gpt-main',
      model_settings: { temperature: 0.2, anything: { nested: true } },
      model_characteristics: { compact_threshold: 0.8, context_window_tokens: 1, proactive_context_management_threshold: 0.6 },
      instructions: 'Be helpful.',
      client_tools: [
        {
          name: 'lookup',
          description: 'd',
          instruction: 'i',
          metadata: { a: 1 },
          parameters_json_schema: { type: 'object', properties: { q: { type: 'string' } } },
          permission: 'inherit',
        },
      ],
      connection_tools: [
        { connection_id: connection, tools: ['search'], defer_loading: true, permission: 'inherit', permissions: { search: 'allow' } },
      ],
      toolsets: {
        web: { config: { max_results: 3 }, enabled: true, tools: { web_fetch: { permission: 'ask' } } },
      },
      platform_tools: { groups: ['agents'], read_permission: 'allow', write_permission: 'allow' },
      builtin_skills: ['planning'],
      skills: [{ skill_id: skill.body.id, revision_id: skill.body.default_revision_id }],
      skill_sync: { cleanup: true, mode: 'shared', overwrite: false },
      memory_mounts: [{ memory_id: memory, name: 'notes', access: 'read', recall: true }],
      plugins: [{ plugin_key: 'http_request', instance_name: 'p1', config: {} }],
      subagents: {
        researcher: {
          agent_id: helper.id,
          revision_id: helper.default_revision_id,
          description: 'finds sources',
          permission: 'ask',
          overrides: { instructions: 'Be brief.', retries: { tools: 1 } },
        },
      },
      subagent_mode: 'inline',
      default_environment_template_id: template,
      lazy_environment: true,
      media_understanding: { audio: 'gpt-main', image: 'gpt-main', video: 'gpt-main' },
      output_spec: {
        name: 'o',
        description: 'd',
        resources: {},
        schema: { type: 'object' },
        variants: [{ name: 'v', description: 'd', resources: {}, schema: {} }],
      },
      retries: { output: 2, tools: 3 },
      reviewer: {
        instruction: 'check',
        shell_instruction: 'sh',
        model: 'a.b-c9',
        model_settings: {},
        on_error: 'deny',
        on_flagged: 'deny',
        risk_threshold: 'low',
        rules: { shell: { on_flagged: 'deny', risk_threshold: 'low' } },
        timeout_seconds: 120,
      },
      user_questions: true,
    };
    const { agent } = await createAgent({ config });
    const revision = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions/${agent.default_revision_id}`);
    expect(revision.body.config).toEqual(config);
  });

  it('refuses invalid configurations with 400 naming the field path', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'config.model'],
      [{ model: 'gpt-main', model_characteristics: { context_window_tokens: 0 } }, 'config.model_characteristics.context_window_tokens'],
      [{ model: 'gpt-main', model_characteristics: { context_window_tokens: 1.5 } }, 'config.model_characteristics.context_window_tokens'],
      [{ model: 'gpt-main', retries: { output: 'two' } }, 'config.retries.output'],
      [{ model: 'gpt-main', lazy_environment: 'yes' }, 'config.lazy_environment'],
      [{ model: 'gpt-main', colour: 'red' }, 'config.colour'],
      [{ model: 'gpt-main', reviewer: { risk_threshold: 'extreme' } }, 'config.reviewer.risk_threshold'],
      [
        { model: 'gpt-main', client_tools: [{ name: 'x', parameters_json_schema: { type: 'not-a-type' } }] },
        'config.client_tools[0].parameters_json_schema',
      ],
      [{ model: 'Bad Key' }, 'config.model'],
      // A draft the service does not read, or a $schema that is not a draft's URI: refused, never a 500.
      ...['http://json-schema.org/draft-04/schema#', 'nonsense', 5].map((draft): [Record<string, unknown>, string] => [
        { model: 'gpt-main', client_tools: [{ name: 'x', parameters_json_schema: { $schema: draft, type: 'object' } }] },
        'config.client_tools[0].parameters_json_schema',
      ]),
      // Checked against the draft it names: draft-07's `definitions` must be an object.
      [
        {
          model: 'gpt-main',
          client_tools: [{ name: 'x', parameters_json_schema: { $schema: 'http://json-schema.org/draft-07/schema#', definitions: 3 } }],
        },
        'config.client_tools[0].parameters_json_schema',
      ],
    ];
    for (const [config, field] of cases) {
      const response = await post('/api/v1/agents', { name: 'x', config });
      expect(response.status, field).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    // The drafts the service reads are accepted, each checked against its own meta-schema.
    for (const draft of [
      'http://json-schema.org/draft-07/schema#',
      'https://json-schema.org/draft/2019-09/schema',
      'https://json-schema.org/draft/2020-12/schema',
    ]) {
      const schema = { $schema: draft, type: 'object', properties: { q: { type: 'string' } } };
      const accepted = await post('/api/v1/agents', {
        name: 'x',
        config: { model: 'gpt-main', client_tools: [{ name: 'x', parameters_json_schema: schema }] },
      });
      expect(accepted.status, `${draft}: ${JSON.stringify(accepted.body)}`).toBe(201);
    }
    const noName = await post('/api/v1/agents', { config: { model: 'gpt-main' } });
    expect(noName.status).toBe(400);
    expect(noName.body.error.details.field).toBe('name');
    const noConfig = await post('/api/v1/agents', { name: 'x' });
    expect(noConfig.status).toBe(400);
    expect(noConfig.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'config' } });
    const unknownField = await post('/api/v1/agents', { name: 'x', config: { model: 'gpt-main' }, colour: 'red' });
    expect(unknownField.body.error.details.field).toBe('colour');
  });

  it('refuses a toolset that is not one of the service, naming it, on create, revisions and run overrides', async () => {
    const refused = await post('/api/v1/agents', { name: 'x', config: { model: 'gpt-main', toolsets: { code: { enabled: true } } } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'config.toolsets.code' } });
    expect(refused.body.error.message).toContain('is not a known toolset');
    const { agent, etag } = await createAgent();
    const revision = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', toolsets: { web: { enabled: true }, Web: {} } } },
      { 'if-match': etag },
    );
    expect(revision.status).toBe(400);
    expect(revision.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'config.toolsets.Web' } });
    const run = await post('/api/v1/runs', {
      agent_id: agent.id,
      input: { content: [{ type: 'text', text: 'hi' }] },
      options: { overrides: { toolsets: { search: {} } } },
    });
    expect(run.status).toBe(400);
    expect(run.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'options.overrides.toolsets.search' } });
    // The known one is accepted.
    const web = await post('/api/v1/agents', { name: 'x', config: { model: 'gpt-main', toolsets: { web: { enabled: false } } } });
    expect(web.status, JSON.stringify(web.body)).toBe(201);
  });

  it('treats references outside the workspace as not existing (404)', async () => {
    const skillB = await t.rest('POST', '/api/v1/skills', {
      token: other.apiKey,
      body: { name: 'b', content: { name: 'b', instructions: 'x' } },
    });
    const connectionB = await insertWorkspaceResource(t, 'connection', other.id);
    const templateB = await insertWorkspaceResource(t, 'environmentTemplate', other.id);
    const memoryB = (await t.rest('POST', '/api/v1/memories', { token: other.apiKey, body: { name: 'B notes' } })).body.id;
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'only-in-b' }, 'config.model'],
      [{ model: 'no-such-model' }, 'config.model'],
      [{ model: 'gpt-main', reviewer: { model: 'only-in-b' } }, 'config.reviewer.model'],
      [{ model: 'gpt-main', skills: [{ skill_id: skillB.body.id, revision_id: skillB.body.default_revision_id }] }, 'config.skills[0]'],
      [{ model: 'gpt-main', connection_tools: [{ connection_id: connectionB }] }, 'config.connection_tools[0].connection_id'],
      [{ model: 'gpt-main', default_environment_template_id: templateB }, 'config.default_environment_template_id'],
      [{ model: 'gpt-main', memory_mounts: [{ memory_id: memoryB }] }, 'config.memory_mounts[0].memory_id'],
    ];
    const { agent, etag } = await createAgent();
    for (const [config, field] of cases) {
      const created = await post('/api/v1/agents', { name: 'x', config });
      expect(created.status, field).toBe(404);
      expect(created.body.error).toMatchObject({ code: 'not_found', details: { field } });
      const revised = await post(`/api/v1/agents/${agent.id}/revisions`, { config }, { 'if-match': etag });
      expect(revised.status, field).toBe(404);
    }
  });
});

describe('revisions', () => {
  it('number consecutively; the digest ignores key order and whitespace; identical config returns the default revision', async () => {
    const { agent, etag } = await createAgent({ config: { model: 'gpt-main', instructions: 'one' } });
    const r2 = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { instructions: 'two', model: 'gpt-main' }, note: 'second' },
      { 'if-match': etag },
    );
    expect(r2.status).toBe(201);
    expect(r2.body).toMatchObject({ number: 2, note: 'second', agent_id: agent.id });
    const head2 = await t.rest('GET', `/api/v1/agents/${agent.id}`);
    expect(head2.body).toMatchObject({ default_revision_id: r2.body.id, version: 2 });
    // Same configuration, other key order, other whitespace in the raw JSON → same revision, head untouched.
    const raw = '{ "config" : {"model":"gpt-main",\n  "user_questions": false, "instructions":"two"} }';
    const same = await t.rest('POST', `/api/v1/agents/${agent.id}/revisions`, {
      rawBody: raw,
      headers: { 'if-match': head2.headers.get('etag')! },
    });
    expect(same.status).toBe(201);
    expect(same.body).toEqual(r2.body);
    const sameNoDefault = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'two' }, make_default: false },
      { 'if-match': head2.headers.get('etag')! },
    );
    expect(sameNoDefault.status).toBe(201);
    expect(sameNoDefault.body.id).toBe(r2.body.id);
    const head3 = await t.rest('GET', `/api/v1/agents/${agent.id}`);
    expect(head3.body).toEqual(head2.body);
    // A different config without make_default: new revision, default unchanged.
    const r3 = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'three' }, make_default: false },
      { 'if-match': head3.headers.get('etag')! },
    );
    expect(r3.body.number).toBe(3);
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.default_revision_id).toBe(r2.body.id);
    // Revisions are immutable.
    const r1 = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions/${agent.default_revision_id}`);
    expect(r1.body.config.instructions).toBe('one');
    // Newest first, paged.
    const page1 = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions?limit=2`);
    expect(page1.body.items.map((r: { number: number }) => r.number)).toEqual([3, 2]);
    const page2 = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ items: [{ number: 1 }], next_cursor: null });
  });

  it('need a config with a model: missing → 400 naming the field', async () => {
    const { agent, etag } = await createAgent();
    for (const [body, field] of [
      [{}, 'config'],
      [{ note: 'no config' }, 'config'],
      [{ config: {} }, 'config.model'],
      [{ config: { instructions: 'no model' } }, 'config.model'],
    ] as const) {
      const refused = await post(`/api/v1/agents/${agent.id}/revisions`, body, { 'if-match': etag });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error, JSON.stringify(body)).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.version).toBe(1);
  });

  it('need the head ETag: missing → 428, stale → 412', async () => {
    const { agent, etag } = await createAgent();
    expect((await post(`/api/v1/agents/${agent.id}/revisions`, { config: { model: 'gpt-main', instructions: 'x' } })).status).toBe(428);
    await post(`/api/v1/agents/${agent.id}/revisions`, { config: { model: 'gpt-main', instructions: 'y' } }, { 'if-match': etag });
    const stale = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'z' } },
      { 'if-match': etag },
    );
    expect(stale.status).toBe(412);
  });

  it('stay gapless under concurrent publishers', async () => {
    const { agent } = await createAgent();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(`/api/v1/agents/${agent.id}/revisions`, { config: { model: 'gpt-main', instructions: `v${i}` } }, { 'if-match': '*' }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(results.map((r) => r.body.number).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('set-default selects a revision of this agent only; another agent’s revision is 404', async () => {
    const a = await createAgent();
    const b = await createAgent();
    const r2 = await post(
      `/api/v1/agents/${a.agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'two' } },
      { 'if-match': a.etag },
    );
    const head = await t.rest('GET', `/api/v1/agents/${a.agent.id}`);
    const back = await post(`/api/v1/agents/${a.agent.id}/revisions/${a.agent.default_revision_id}/set-default`, undefined, {
      'if-match': head.headers.get('etag')!,
    });
    expect(back.status).toBe(200);
    expect(back.body.default_revision_id).toBe(a.agent.default_revision_id);
    expect(back.body.version).toBe(head.body.version + 1);
    const foreign = await post(`/api/v1/agents/${a.agent.id}/revisions/${b.agent.default_revision_id}/set-default`, undefined, {
      'if-match': '*',
    });
    expect(foreign.status).toBe(404);
    expect((await t.rest('GET', `/api/v1/agents/${a.agent.id}/revisions/${b.agent.default_revision_id}`)).status).toBe(404);
    expect(r2.body.number).toBe(2);
    // The ETag read before the switch above is superseded: a set-default carrying it changes nothing.
    const stale = await post(`/api/v1/agents/${a.agent.id}/revisions/${r2.body.id}/set-default`, undefined, {
      'if-match': head.headers.get('etag')!,
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', details: { current_etag: back.headers.get('etag') } });
    expect((await t.rest('GET', `/api/v1/agents/${a.agent.id}`)).body).toMatchObject({
      default_revision_id: a.agent.default_revision_id,
      version: back.body.version,
    });
  });
});

describe('head lifecycle', () => {
  it('PATCH changes only head fields; a no-op keeps the version', async () => {
    const { agent, etag } = await createAgent();
    const patched = await t.rest('PATCH', `/api/v1/agents/${agent.id}`, {
      headers: { 'if-match': etag },
      body: { name: 'Renamed', labels: { a: '1' }, image_url: 'https://example.com/a.png' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      labels: { a: '1' },
      image_url: 'https://example.com/a.png',
      version: 2,
      default_revision_id: agent.default_revision_id,
    });
    const revisions = await t.rest('GET', `/api/v1/agents/${agent.id}/revisions`);
    expect(revisions.body.items).toHaveLength(1);
    const noop = await t.rest('PATCH', `/api/v1/agents/${agent.id}`, {
      headers: { 'if-match': patched.headers.get('etag')! },
      body: { name: 'Renamed' },
    });
    expect(noop.body.version).toBe(2);
    const deleted = await t.rest('DELETE', `/api/v1/agents/${agent.id}/avatar`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ image_url: '', version: 3 });
    const staleAvatar = await t.rest('DELETE', `/api/v1/agents/${agent.id}/avatar`, {
      headers: { 'if-match': patched.headers.get('etag')! },
    });
    expect(staleAvatar.status).toBe(412);
    expect(
      (await t.rest('PATCH', `/api/v1/agents/${agent.id}`, { headers: { 'if-match': '*' }, body: { image_url: 'ftp://x' } })).status,
    ).toBe(400);
    // The representation's "" (no image) is accepted back: it sets nothing, like null.
    const again = await t.rest('PATCH', `/api/v1/agents/${agent.id}`, {
      headers: { 'if-match': '*' },
      body: { image_url: 'https://example.com/b.png' },
    });
    expect(again.body).toMatchObject({ image_url: 'https://example.com/b.png', version: 4 });
    const cleared = await t.rest('PATCH', `/api/v1/agents/${agent.id}`, { headers: { 'if-match': '*' }, body: { image_url: '' } });
    expect(cleared.body).toMatchObject({ image_url: '', version: 5 });
    expect(
      (await t.rest('PATCH', `/api/v1/agents/${agent.id}`, { headers: { 'if-match': '*' }, body: { image_url: null } })).body.version,
    ).toBe(5);
    const viaGraphql = await t.graphql(`query($id: ID!) { agent(id: $id) { imageUrl presetKind } }`, { id: agent.id });
    expect(viaGraphql.data.agent).toEqual({ imageUrl: '', presetKind: '' });
  });

  it('archive/unarchive with ETags; archived heads stay readable and refuse new revisions', async () => {
    const { agent, etag } = await createAgent();
    expect((await post(`/api/v1/agents/${agent.id}/archive`, undefined)).status).toBe(428);
    const archived = await post(`/api/v1/agents/${agent.id}/archive`, undefined, { 'if-match': etag });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).toEqual(expect.any(String));
    expect(archived.headers.get('etag')).toBe(`"${agent.id}:2"`);
    expect((await post(`/api/v1/agents/${agent.id}/archive`, undefined, { 'if-match': etag })).status).toBe(412);
    const again = await post(`/api/v1/agents/${agent.id}/archive`, undefined, { 'if-match': archived.headers.get('etag')! });
    expect(again.body.version).toBe(2);
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).status).toBe(200);
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}/revisions/${agent.default_revision_id}`)).status).toBe(200);
    const publish = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'new' } },
      { 'if-match': '*' },
    );
    expect(publish.status).toBe(409);
    expect(publish.body.error.code).toBe('failed_precondition');
    const unarchived = await post(`/api/v1/agents/${agent.id}/unarchive`, undefined, { 'if-match': archived.headers.get('etag')! });
    expect(unarchived.body).toMatchObject({ archived_at: null, version: 3 });
    expect(unarchived.body.workspace_id).toBe(t.workspaceId);
  });

  it('unarchive needs only write: without If-Match it succeeds, a stale one is still refused with 412', async () => {
    const { agent, etag } = await createAgent();
    const archived = await post(`/api/v1/agents/${agent.id}/archive`, undefined, { 'if-match': etag });
    expect(archived.status).toBe(200);
    const stale = await post(`/api/v1/agents/${agent.id}/unarchive`, undefined, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toMatchObject({ code: 'precondition_failed', details: { current_etag: archived.headers.get('etag') } });
    const unarchived = await post(`/api/v1/agents/${agent.id}/unarchive`, undefined);
    expect(unarchived.status, JSON.stringify(unarchived.body)).toBe(200);
    expect(unarchived.body).toMatchObject({ archived_at: null, version: 3 });
    expect(unarchived.headers.get('etag')).toBe(`"${agent.id}:3"`);
    // Unarchiving an open head is still a no-op without the header.
    expect((await post(`/api/v1/agents/${agent.id}/unarchive`, undefined)).body.version).toBe(3);
  });

  it('takes an avatar upload, serves it back, and deletes it', async () => {
    const { agent } = await createAgent();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const upload = await fetch(`${t.url}/api/v1/agents/${agent.id}/avatar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png' },
      body: png,
    });
    expect(upload.status).toBe(200);
    const head = (await upload.json()) as { image_url: string; version: number };
    expect(head.image_url).toMatch(/^\/api\/v1\/assets\/ast_[0-9A-Z]{26}\/content$/);
    expect(head.version).toBe(2);
    const image = await fetch(`${t.url}${head.image_url}`, { headers: { authorization: `Bearer ${t.apiKey}` } });
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(png)).toBe(true);
    expect((await fetch(`${t.url}${head.image_url}`, { headers: { authorization: `Bearer ${other.apiKey}` } })).status).toBe(404);
    const notPng = await fetch(`${t.url}/api/v1/agents/${agent.id}/avatar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png' },
      body: Buffer.from('GIF89a...'),
    });
    expect(notPng.status).toBe(400);
    const svg = await fetch(`${t.url}/api/v1/agents/${agent.id}/avatar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/svg+xml' },
      body: '<svg/>',
    });
    expect(svg.status).toBe(400);
    // An encoded image is refused, not inflated (as asset uploads are): the head keeps the avatar
    // uploaded above, so nothing was stored. A valid gzip of a valid PNG: only the header refuses it.
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const encoded = await fetch(`${t.url}/api/v1/agents/${agent.id}/avatar`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png', 'content-encoding': encoding },
        body: encoding === 'gzip' ? gzipSync(png) : encoding === 'deflate' ? deflateSync(png) : brotliCompressSync(png),
      });
      expect(encoded.status).toBe(400);
      expect(((await encoded.json()) as any).error).toMatchObject({ code: 'invalid_argument', details: { field: 'Content-Encoding' } });
    }
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body).toMatchObject({ image_url: head.image_url, version: 2 });
    const identity = await fetch(`${t.url}/api/v1/agents/${agent.id}/avatar`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'image/png', 'content-encoding': 'identity', 'if-match': '*' },
      body: png,
    });
    expect(identity.status).toBe(200);
    const removed = await t.rest('DELETE', `/api/v1/agents/${agent.id}/avatar`);
    expect(removed.body.image_url).toBe('');
    // The retired avatar's content stays readable.
    expect((await fetch(`${t.url}${head.image_url}`, { headers: { authorization: `Bearer ${t.apiKey}` } })).status).toBe(200);
  });

  it('publishing the configuration of an older revision returns that revision (no duplicate) and makes it default', async () => {
    const { agent, etag } = await createAgent({ config: { model: 'gpt-main', instructions: 'old' } });
    const r2 = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'new' } },
      { 'if-match': etag },
    );
    const back = await post(
      `/api/v1/agents/${agent.id}/revisions`,
      { config: { model: 'gpt-main', instructions: 'old' } },
      { 'if-match': '*' },
    );
    expect(back.status).toBe(201);
    expect(back.body.id).toBe(agent.default_revision_id);
    const head = await t.rest('GET', `/api/v1/agents/${agent.id}`);
    expect(head.body.default_revision_id).toBe(agent.default_revision_id);
    expect(r2.body.number).toBe(2);
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}/revisions`)).body.items).toHaveLength(2);
  });

  it('has no delete', async () => {
    const { agent } = await createAgent();
    expect((await t.rest('DELETE', `/api/v1/agents/${agent.id}`)).status).toBe(405);
  });
});

describe('tenancy and permissions', () => {
  it("answers 404 for another workspace's agent on every operation", async () => {
    const { agent } = await createAgent();
    const as = { token: other.apiKey, headers: { 'if-match': '*' } };
    const rev = agent.default_revision_id;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/agents/${agent.id}`],
      ['PATCH', `/api/v1/agents/${agent.id}`, { name: 'x' }],
      ['POST', `/api/v1/agents/${agent.id}/archive`],
      ['POST', `/api/v1/agents/${agent.id}/unarchive`],
      ['POST', `/api/v1/agents/${agent.id}/revisions`, { config: { model: 'only-in-b' } }],
      ['GET', `/api/v1/agents/${agent.id}/revisions/${rev}`],
      ['GET', `/api/v1/agents/${agent.id}/revisions`],
      ['POST', `/api/v1/agents/${agent.id}/revisions/${rev}/set-default`],
      ['DELETE', `/api/v1/agents/${agent.id}/avatar`],
      ['GET', '/api/v1/agents/agt_01AAAAAAAAAAAAAAAAAAAAAAAA'],
    ];
    for (const [method, path, body] of calls) {
      const response = await t.rest(method, path, { ...as, body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/json/);
    }
    const list = await t.rest('GET', '/api/v1/agents?limit=100', { token: other.apiKey });
    expect(list.body.items.map((a: { id: string }) => a.id)).not.toContain(agent.id);
  });

  it('needs write to create or change', async () => {
    const { agent, etag } = await createAgent();
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/agents', { name: 'x', config: { model: 'gpt-main' } }],
      ['PATCH', `/api/v1/agents/${agent.id}`, { name: 'x' }],
      ['POST', `/api/v1/agents/${agent.id}/archive`],
      ['POST', `/api/v1/agents/${agent.id}/unarchive`],
      ['POST', `/api/v1/agents/${agent.id}/revisions/${agent.default_revision_id}/set-default`],
      ['POST', `/api/v1/agents/${agent.id}/revisions`, { config: { model: 'gpt-main', instructions: 'q' } }],
      ['DELETE', `/api/v1/agents/${agent.id}/avatar`],
      ['POST', '/api/v1/agent-composer'],
    ];
    for (const [method, path, body] of calls) {
      const response = await t.rest(method, path, { token: readOnly, headers: { 'if-match': etag }, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('permission_denied');
    }
    expect((await t.rest('GET', `/api/v1/agents/${agent.id}`)).body.version).toBe(1);
  });
});

describe('listing', () => {
  it('filters by label, q, archived, source, preset_kind and skills, and pages without gaps', async () => {
    const skill = await post('/api/v1/skills', { name: 'Pinned', content: { name: 'pinned', instructions: 'x' } });
    const pin = { skill_id: skill.body.id, revision_id: skill.body.default_revision_id };
    const fresh = await createWorkspace(t.app.deps, { name: 'lists' });
    await insertModel(t, 'm', { workspaceId: fresh.workspace.id });
    const key = fresh.apiKey.token;
    const mk = async (name: string, extra: Record<string, unknown> = {}) =>
      (await t.rest('POST', '/api/v1/agents', { token: key, body: { name, config: { model: 'm' }, ...extra } })).body;
    const skillB = await t.rest('POST', '/api/v1/skills', { token: key, body: { name: 'S', content: { name: 's', instructions: 'x' } } });
    const pinB = { skill_id: skillB.body.id, revision_id: skillB.body.default_revision_id };
    const a = await mk('Alpha one', { labels: { team: 'a', tier: 'gold' }, description: 'Finds needles' });
    const b = await mk('Beta', { labels: { team: 'a' }, config: { model: 'm', skills: [pinB] } });
    const c = await mk('Gamma', { labels: { team: 'b' } });
    await t.rest('POST', `/api/v1/agents/${c.id}/archive`, { token: key, headers: { 'if-match': '*' } });
    const names = async (query: string) => {
      const response = await t.rest('GET', `/api/v1/agents?${query}`, { token: key });
      expect(response.status, query).toBe(200);
      return response.body.items.map((item: { name: string }) => item.name);
    };
    expect(await names('')).toEqual(['Beta', 'Alpha one']);
    expect(await names('archived=true')).toEqual(['Gamma']);
    expect(await names('archived=false')).toEqual(['Beta', 'Alpha one']);
    expect(await names('label=team:a')).toEqual(['Beta', 'Alpha one']);
    expect(await names('label=team:a&label=tier:gold')).toEqual(['Alpha one']);
    expect(await names('q=ALPHA')).toEqual(['Alpha one']);
    expect(await names('q=needle')).toEqual(['Alpha one']);
    expect(await names('q=zzzq')).toEqual([]);
    expect(await names(`skill_id=${pinB.skill_id}`)).toEqual(['Beta']);
    expect(await names(`skill_revision_id=${pinB.revision_id}`)).toEqual(['Beta']);
    expect(await names(`skill_id=${pin.skill_id}`)).toEqual([]);
    expect(await names('source=custom')).toEqual(['Beta', 'Alpha one']);
    expect(await names('preset_kind=composer')).toEqual([]);
    expect(await names(Array.from({ length: 8 }, (_, i) => `label=k${i}:v`).join('&'))).toEqual([]);
    for (const bad of [
      Array.from({ length: 9 }, (_, i) => `label=k${i}:v`).join('&'),
      'archived=maybe',
      'limit=0',
      'limit=101',
      'label=novalue',
    ]) {
      expect((await t.rest('GET', `/api/v1/agents?${bad}`, { token: key })).status, bad).toBe(400);
    }
    // 51 agents: the default page is 50 with a cursor, and a limit=1 walk sees each exactly once.
    for (let i = 0; i < 49; i++) await mk(`bulk ${i}`);
    const first = await t.rest('GET', '/api/v1/agents', { token: key });
    expect(first.body.items).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: { id: string }[]; next_cursor: string | null } } = await t.rest(
        'GET',
        `/api/v1/agents?limit=7${cursor ? `&cursor=${cursor}` : ''}`,
        { token: key },
      );
      seen.push(...page.body.items.map((item) => item.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(51);
    expect(new Set(seen).size).toBe(51);
    expect(seen).toContain(a.id);
    expect(seen).toContain(b.id);
  });

  it('skill filters match a pin in any revision, not only the default one', async () => {
    const fresh = await createWorkspace(t.app.deps, { name: 'skill filters' });
    await insertModel(t, 'm', { workspaceId: fresh.workspace.id });
    const as = { token: fresh.apiKey.token };
    const skill = await t.rest('POST', '/api/v1/skills', { ...as, body: { name: 'S', content: { name: 's', instructions: 'x' } } });
    const pin = { skill_id: skill.body.id, revision_id: skill.body.default_revision_id };
    const create = async (name: string, config: Record<string, unknown>) =>
      (await t.rest('POST', '/api/v1/agents', { ...as, body: { name, config: { model: 'm', ...config } } })).body;
    const publish = async (agentId: string, config: Record<string, unknown>, makeDefault: boolean) => {
      const published = await t.rest('POST', `/api/v1/agents/${agentId}/revisions`, {
        ...as,
        headers: { 'if-match': '*' },
        body: { config: { model: 'm', ...config }, make_default: makeDefault },
      });
      expect(published.status, JSON.stringify(published.body)).toBe(201);
    };
    // Pinned only in a later revision that never became the default.
    const later = await create('Later', {});
    await publish(later.id, { skills: [pin] }, false);
    // Pinned in its first revision, whose default has since moved to one without the skill.
    const earlier = await create('Earlier', { skills: [pin] });
    await publish(earlier.id, { instructions: 'no skills now' }, true);
    await create('Never', {});
    for (const query of [`skill_id=${pin.skill_id}`, `skill_revision_id=${pin.revision_id}`]) {
      const listed = await t.rest('GET', `/api/v1/agents?${query}`, as);
      expect(listed.body.items.map((agent: { name: string }) => agent.name).sort(), query).toEqual(['Earlier', 'Later']);
    }
  });

  it('makes as many queries for 100 agents as for 1 (no per-row queries)', async () => {
    const count = async (limit: number) => {
      const before = t.app.database.operationCount();
      const response = await t.rest('GET', `/api/v1/agents?limit=${limit}`);
      expect(response.status).toBe(200);
      return t.app.database.operationCount() - before;
    };
    await count(1); // warm (last-used bookkeeping of the key)
    const one = await count(1);
    const many = await count(100);
    expect(many).toBe(one);
    expect(one).toBeLessThanOrEqual(3);
  });
});

describe('the composer', () => {
  it('needs a usable model, then creates the builtin composer once and keeps it up to date', async () => {
    const fresh = await createWorkspace(t.app.deps, { name: 'composer' });
    const key = fresh.apiKey.token;
    const none = await t.rest('POST', '/api/v1/agent-composer', { token: key });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('model_required');
    await insertModel(t, 'disabled-model', { workspaceId: fresh.workspace.id, enabled: false });
    await insertModel(t, 'provider-off', { workspaceId: fresh.workspace.id, providerEnabled: false });
    expect((await t.rest('POST', '/api/v1/agent-composer', { token: key })).body.error.code).toBe('model_required');
    await insertModel(t, 'usable', { workspaceId: fresh.workspace.id });
    const created = await t.rest('POST', '/api/v1/agent-composer', { token: key });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ source: 'builtin', preset_kind: 'composer', name: 'Agent composer', version: 1 });
    const revision = await t.rest('GET', `/api/v1/agents/${created.body.id}/revisions/${created.body.default_revision_id}`, { token: key });
    expect(revision.body.config.model).toBe('usable');
    expect(revision.body.config.instructions).toMatch(/composer/);
    const again = await t.rest('POST', '/api/v1/agent-composer', { token: key });
    expect(again.body).toEqual(created.body);
    const list = await t.rest('GET', '/api/v1/agents?preset_kind=composer', { token: key });
    expect(list.body.items).toHaveLength(1);
    const concurrent = await Promise.all([1, 2, 3].map(() => t.rest('POST', '/api/v1/agent-composer', { token: key })));
    for (const response of concurrent) expect(response.body.id).toBe(created.body.id);

    // A composer of an older definition (its label says so) is brought up to date: the label moves as
    // a PATCH would move it, with a new version and an `update` audit row.
    const current = await t.rest('GET', `/api/v1/agents/${created.body.id}`, { token: key });
    const shipped = current.body.labels['composer-version'];
    const older = await t.rest('PATCH', `/api/v1/agents/${created.body.id}`, {
      token: key,
      body: { labels: { 'composer-version': '0' } },
      headers: { 'if-match': current.headers.get('etag')! },
    });
    expect(older.status, JSON.stringify(older.body)).toBe(200);
    const upToDate = await t.rest('POST', '/api/v1/agent-composer', { token: key });
    expect(upToDate.body).toMatchObject({ labels: { 'composer-version': shipped }, version: older.body.version + 1 });
    const audited = await t.rest('GET', `/api/v1/audit-events?resource_id=${created.body.id}&action=update&limit=100`, { token: key });
    expect(audited.body.items.map((row: any) => [row.version, Object.keys(row.changes)])).toEqual([
      [older.body.version + 1, ['labels']],
      [older.body.version, ['labels']],
    ]);
  });
});

describe('GraphQL', () => {
  it('serves the same agents with etag fields', async () => {
    const { agent, etag } = await createAgent();
    const { data, errors } = await t.graphql(
      'query($id: ID!) { agent(id: $id) { id etag version defaultRevisionId } agentRevisions(agentId: $id) { nodes { number config { model } } pageInfo { hasNextPage endCursor } } }',
      { id: agent.id },
    );
    expect(errors).toBeUndefined();
    expect(data.agent).toEqual({ id: agent.id, etag, version: 1, defaultRevisionId: agent.default_revision_id });
    expect(data.agentRevisions.nodes[0].config.model).toBe('gpt-main');
    const published = await t.graphql(
      'mutation($id: ID!, $m: String) { publishAgentRevision(agentId: $id, ifMatch: $m, input: {config: {model: "gpt-main", instructions: "gql"}}) { created revision { number } agent { version } } }',
      { id: agent.id, m: etag },
    );
    expect(published.data.publishAgentRevision).toEqual({ created: true, revision: { number: 2 }, agent: { version: 2 } });
  });
});
