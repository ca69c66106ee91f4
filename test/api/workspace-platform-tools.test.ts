// The workspace groups of the platform tools through the public API, driven by the builtin composer
// (POST /api/v1/agent-composer) with the scripted model: it lists the workspace's models, skills,
// connections, memories and environment templates without any environment; its `create_agent` waits
// for an approval, and the resume that approves it creates the agent (audited for the run's principal)
// while a denial creates nothing; another workspace's agent is not found; an invalid configuration is
// a tool error the model sees and the run goes on; an unknown group is refused where configurations
// are taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/features/access/admin.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';

let t: TestApp;
let composerId: string;
let skillId: string;
let otherAgentId: string;
let otherToken: string;

beforeAll(async () => {
  t = await startTestApp();
  await insertModel(t, 'dev');
  const skill = await t.rest('POST', '/api/v1/skills', {
    body: { name: 'Tone guide', content: { name: 'tone', description: 'How to sound', instructions: '# Tone\n\nBe kind.' } },
  });
  expect(skill.status, JSON.stringify(skill.body)).toBe(201);
  skillId = skill.body.id;
  // A connection with a credential and a query in its URL: neither may reach the model.
  const connector = await t.rest('POST', '/api/v1/connector-providers', {
    body: { type: 'mcp', name: 'MCP', config: { url: 'https://mcp.example.com/mcp' } },
  });
  expect(connector.status, JSON.stringify(connector.body)).toBe(201);
  const connection = await t.rest('POST', '/api/v1/connections', {
    body: {
      provider_id: connector.body.id,
      name: 'Tickets',
      config: { url: 'https://user:pw@mcp.example.com/mcp?key=query-secret' },
      credential: { bearer_token: 'bearer-secret', headers: { 'x-api-key': 'header-secret' } },
    },
  });
  expect(connection.status, JSON.stringify(connection.body)).toBe(201);
  const composer = await t.rest('POST', '/api/v1/agent-composer');
  expect(composer.status, JSON.stringify(composer.body)).toBe(200);
  composerId = composer.body.id;
  // Another workspace with an agent of its own.
  const other = await createWorkspace(t.app.deps, { name: 'elsewhere' });
  otherToken = other.apiKey.token;
  await insertModel(t, 'dev', { workspaceId: other.workspace.id });
  const agent = await t.rest('POST', '/api/v1/agents', { token: otherToken, body: { name: 'Theirs', config: { model: 'dev' } } });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  otherAgentId = agent.body.id;
});
afterAll(async () => {
  await t?.stop();
});

type Call = { id: string; name: string; arguments: Record<string, unknown> };
const PROPOSAL = { name: 'Helper', config: { model: 'dev' } };
/** One model turn per call, then the composer's proposal (its output spec) as the closing answer. */
const script = (calls: Call[]) => ({
  script: [...calls.map((call) => [{ tool_call: call }]), [{ text: JSON.stringify(PROPOSAL) }]],
});

/** A composer run whose model plays `calls`, settled (completed, failed or waiting). */
async function compose(calls: Call[]) {
  const started = await t.rest('POST', '/api/v1/runs', {
    body: {
      agent_id: composerId,
      input: { content: [{ type: 'text', text: 'Make me a helper.' }] },
      options: { overrides: { model_settings: script(calls) } },
    },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return settleRun(t, started.body.id);
}

async function resume(runId: string, approvals: Record<string, { action: 'approve' | 'deny' }>) {
  const resumed = await t.rest('POST', `/api/v1/runs/${runId}/resume`, {
    headers: { 'idempotency-key': `resume-${runId}` },
    body: { approvals },
  });
  expect(resumed.status, JSON.stringify(resumed.body)).toBeLessThan(300);
  return settleRun(t, resumed.body.id);
}

/** The tool_result items of runs (a run and its resumed successors) by tool call id. */
async function resultsOf(...runIds: string[]): Promise<Record<string, any>> {
  const results: Record<string, any> = {};
  for (const runId of runIds) {
    const items = (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
    for (const item of items) if (item.kind === 'tool_result') results[item.content.tool_call_id] = item;
  }
  return results;
}

const agentsNamed = async (name: string) =>
  ((await t.rest('GET', `/api/v1/agents?q=${encodeURIComponent(name)}`)).body.items as { id: string; name: string }[]).filter(
    (agent) => agent.name === name,
  );

describe('the workspace platform tools of the composer', () => {
  it('list models, skills and the other resources without an environment; create_agent waits for an approval and the approval creates it', async () => {
    const newConfig = { model: 'dev', instructions: 'Help kindly.', skills: [{ skill_id: skillId }] };
    const waiting = await compose([
      { id: 'models', name: 'list_models', arguments: {} },
      { id: 'skills', name: 'list_skills', arguments: { q: 'tone' } },
      { id: 'skill', name: 'get_skill', arguments: { skill_id: skillId } },
      { id: 'connections', name: 'list_connections', arguments: {} },
      { id: 'memories', name: 'list_memories', arguments: {} },
      { id: 'templates', name: 'list_environment_templates', arguments: {} },
      { id: 'agents', name: 'list_agents', arguments: { limit: 1 } },
      { id: 'create', name: 'create_agent', arguments: { name: 'Approved helper', description: 'Helps', config: newConfig } },
    ]);
    expect(waiting, JSON.stringify(waiting.failure)).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: { approvals: [{ tool_call_id: 'create', tool_name: 'create_agent' }] },
    });
    expect(waiting.environment_mounts).toEqual([]);
    const reads = await resultsOf(waiting.id);
    expect(reads.models.content.result).toEqual({
      models: [expect.objectContaining({ key: 'dev', provider_type: 'development', provider_model: 'echo', enabled: true, usable: true })],
      next_cursor: null,
    });
    expect(reads.skills.content.result).toEqual({
      skills: [expect.objectContaining({ id: skillId, name: 'Tone guide', archived: false })],
      next_cursor: null,
    });
    expect(reads.skill.content.result.default_revision).toMatchObject({
      number: 1,
      name: 'tone',
      instructions: '# Tone\n\nBe kind.',
      files: [],
    });
    expect(reads.connections.content.result).toEqual({
      connections: [
        expect.objectContaining({
          name: 'Tickets',
          provider_type: 'mcp',
          transport: 'streamable_http',
          server: 'https://mcp.example.com/mcp',
        }),
      ],
      next_cursor: null,
    });
    expect(JSON.stringify(reads.connections.content)).not.toMatch(/secret|user:pw/);
    expect(reads.memories.content.result).toEqual({ memories: [], next_cursor: null });
    expect(reads.templates.content.result).toEqual({ environment_templates: [], next_cursor: null });
    // A bounded page with a cursor: the composer itself is the only agent yet (newest first).
    expect(reads.agents.content.result).toEqual({
      agents: [expect.objectContaining({ id: composerId, source: 'builtin' })],
      next_cursor: null,
    });
    // Nothing is created before the approval.
    expect(await agentsNamed('Approved helper')).toEqual([]);

    const done = await resume(waiting.id, { create: { action: 'approve' } });
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    expect(done.output).toEqual(PROPOSAL);
    const created = (await resultsOf(done.id)).create.content.result;
    expect(created).toMatchObject({ name: 'Approved helper', description: 'Helps', source: 'custom', archived: false, revision_number: 1 });
    const agent = await t.rest('GET', `/api/v1/agents/${created.id}`);
    expect(agent.body).toMatchObject({ id: created.id, name: 'Approved helper', default_revision_id: created.default_revision_id });
    const revision = await t.rest('GET', `/api/v1/agents/${created.id}/revisions/${created.default_revision_id}`);
    expect(revision.body.config).toMatchObject(newConfig);
    // Audited as the run's principal did it.
    const audit = await t.rest('GET', `/api/v1/audit-events?resource_id=${created.id}`);
    expect(audit.body.items).toEqual([
      expect.objectContaining({ action: 'create', resource_kind: 'agent', principal_id: waiting.principal_id }),
    ]);
  });

  it('create nothing when the approval is denied', async () => {
    const waiting = await compose([{ id: 'create', name: 'create_agent', arguments: { name: 'Denied helper', config: { model: 'dev' } } }]);
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    const done = await resume(waiting.id, { create: { action: 'deny' } });
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    expect((await resultsOf(done.id)).create.content).toMatchObject({ denied: true });
    expect(await agentsNamed('Denied helper')).toEqual([]);
  });

  it('answer another workspace’s agent as not found, to reads and writes alike', async () => {
    const waiting = await compose([
      { id: 'read', name: 'get_agent', arguments: { agent_id: otherAgentId } },
      { id: 'skill', name: 'get_skill', arguments: { skill_id: 'skl_missing' } },
      {
        id: 'publish',
        name: 'publish_agent_revision',
        arguments: { agent_id: otherAgentId, config: { model: 'dev', instructions: 'Mine now.' } },
      },
    ]);
    expect(waiting).toMatchObject({ status: 'waiting', pending: { approvals: [{ tool_call_id: 'publish' }] } });
    const done = await resume(waiting.id, { publish: { action: 'approve' } });
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const results = await resultsOf(waiting.id, done.id);
    expect(results.read.content.error).toBe(`not_found: agent "${otherAgentId}" not found`);
    expect(results.skill.content.error).toMatch(/^not_found: skill/);
    expect(results.publish.content.error).toBe(`not_found: agent "${otherAgentId}" not found`);
    // The other workspace's agent is untouched.
    const theirs = await t.rest('GET', `/api/v1/agents/${otherAgentId}/revisions`, { token: otherToken });
    expect(theirs.body.items).toHaveLength(1);
  });

  it('tell the model an invalid configuration as the tool’s error, and the run goes on to publish a valid revision', async () => {
    const made = await t.rest('POST', '/api/v1/agents', { body: { name: 'Publish target', config: { model: 'dev' } } });
    expect(made.status).toBe(201);
    const waiting = await compose([
      {
        id: 'unknown',
        name: 'create_agent',
        arguments: { name: 'Broken', config: { model: 'dev', platform_tools: { groups: ['telepathy'] } } },
      },
      { id: 'model', name: 'create_agent', arguments: { name: 'Broken', config: { model: 'no-such-model' } } },
      { id: 'stale', name: 'publish_agent_revision', arguments: { agent_id: made.body.id, config: { model: 'dev' }, version: 99 } },
      {
        id: 'good',
        name: 'publish_agent_revision',
        arguments: { agent_id: made.body.id, config: { model: 'dev', instructions: 'v2' }, note: 'v2' },
      },
    ]);
    // One call at a time: each approval resumes a run that reaches the next write.
    let run = waiting;
    const chain: string[] = [];
    for (const id of ['unknown', 'model', 'stale', 'good']) {
      expect(run.pending.approvals.map((a: { tool_call_id: string }) => a.tool_call_id)).toEqual([id]);
      run = await resume(run.id, { [id]: { action: 'approve' } });
      chain.push(run.id);
    }
    expect(run.status, JSON.stringify(run.failure)).toBe('completed');
    const results = await resultsOf(...chain);
    expect(results.unknown.content.error).toMatch(/^invalid_argument: config\.platform_tools\.groups\[0\] must be one of "shell"/);
    expect(results.model.content.error).toBe('not_found: model "no-such-model" not found (field config.model)');
    expect(results.stale.content.error).toMatch(/^precondition_failed: /);
    expect(results.good.content.result).toMatchObject({ agent: { id: made.body.id, version: 2 }, revision: { number: 2 }, created: true });
    expect(await agentsNamed('Broken')).toEqual([]);
    const head = await t.rest('GET', `/api/v1/agents/${made.body.id}`);
    expect(head.body.default_revision_id).toBe(results.good.content.result.revision.id);
  });
});

describe('platform_tools.groups', () => {
  it('refuse an unknown group on agent create, revision publish and in a run’s overrides, naming the field', async () => {
    const created = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'Odd', config: { model: 'dev', platform_tools: { groups: ['files', 'telepathy'] } } },
    });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'config.platform_tools.groups[1]' } });

    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'Plain', config: { model: 'dev' } } });
    const published = await t.rest('POST', `/api/v1/agents/${agent.body.id}/revisions`, {
      headers: { 'If-Match': agent.headers.get('etag')! },
      body: { config: { model: 'dev', platform_tools: { groups: ['agent'] } } },
    });
    expect(published.status).toBe(400);
    expect(published.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'config.platform_tools.groups[0]' } });

    const run = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: agent.body.id,
        input: { content: [{ type: 'text', text: 'Hi.' }] },
        options: { overrides: { platform_tools: { groups: ['models', 'nope'] } } },
      },
    });
    expect(run.status).toBe(400);
    expect(run.body.error).toMatchObject({ code: 'invalid_argument', details: { field: 'options.overrides.platform_tools.groups[1]' } });
  });

  it('offer the workspace groups without an environment and the environment groups only with one', async () => {
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: {
        name: 'Mixed',
        config: {
          model: 'dev',
          platform_tools: { groups: ['files', 'models'], read_permission: 'allow' },
          retries: { tools: 1 },
          model_settings: {
            script: [
              [{ tool_call: { id: 'models', name: 'list_models', arguments: { limit: 1 } } }],
              [{ tool_call: { id: 'files', name: 'list_files', arguments: {} } }],
              [{ text: 'Done.' }],
            ],
          },
        },
      },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'Go.' }] } },
    });
    const done = await settleRun(t, started.body.id);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const results = await resultsOf(done.id);
    expect(results.models.content.result.models.map((m: { key: string }) => m.key)).toEqual(['dev']);
    // No environment: the files group is not offered, so its tool is unknown to the run.
    expect(results.files.content.error).toMatch(/list_files/);
  });
});
