// Skills in runs: the catalogue in the system prompt, `load_skill` and `read_skill_file`, pinned and
// default revisions, built-in skills, the resolved list in the run's agent view, and the skills a
// configuration may not name (another workspace's, archived ones, unknown built-ins) — through the
// public API, on the scripted model and on the real OpenAI-compatible and Anthropic adapters.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { startAnthropicServer, startOpenAICompatibleServer, type ModelServer } from '../helpers/model-servers.js';
import { settleRun } from '../helpers/runs.js';
import { createWorkspace } from '../../src/features/access/admin.js';
import { builtinSkills } from '../../src/features/agents/builtin-skills.js';

let t: TestApp;
let openai: ModelServer;
let anthropic: ModelServer;
let otherKey: string;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startOpenAICompatibleServer(), startAnthropicServer()]);
  t = await startTestApp({ allowPlainHttpEndpoints: ['127.0.0.1'] });
  await insertModel(t, 'dev');
  otherKey = (await createWorkspace(t.app.deps, { name: 'B' })).apiKey.token;
});
afterAll(async () => {
  await t.stop();
  await Promise.all([openai.close(), anthropic.close()]);
});

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });

const invoiceContent = (instructions: string) => ({
  name: 'invoice-checks',
  description: 'Check an invoice against its purchase order before approving it.',
  instructions,
  files: [{ path: 'rules/limits.md', content: 'Approve up to 500 EUR without a second signature.', media_type: 'text/markdown' }],
});

/** A skill with two revisions: revision 1 (kept for pins) and revision 2 (the default). */
async function skillWithTwoRevisions(token?: string) {
  const created = await t.rest('POST', '/api/v1/skills', {
    token,
    body: { name: 'Invoice checks', content: invoiceContent('Version one: compare totals.') },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const second = await t.rest('POST', `/api/v1/skills/${created.body.id}/revisions`, {
    token,
    headers: { 'if-match': created.headers.get('etag')! },
    body: { content: invoiceContent('Version two: compare totals and line items.') },
  });
  expect(second.status).toBe(201);
  return { id: created.body.id as string, first: created.body.default_revision_id as string, second: second.body.id as string };
}

async function createSkill(content: Record<string, unknown>) {
  const created = await t.rest('POST', '/api/v1/skills', { body: { name: String(content.name), content } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { id: created.body.id as string, revision: created.body.default_revision_id as string, etag: created.headers.get('etag')! };
}

async function createAgent(config: Record<string, unknown>) {
  const response = await t.rest('POST', '/api/v1/agents', { body: { name: 'skilled', config } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function run(agentId: string, input = 'Check invoice 42', options?: Record<string, unknown>) {
  const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agentId, input: text(input), options } });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return settleRun(t, started.body.id);
}

/** The results of a run's server tool calls (each call's result is its own `tool_result` item). */
const toolCalls = async (runId: string) =>
  (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items.filter((item: { kind: string }) => item.kind === 'tool_result');

describe('skills in runs (scripted model)', () => {
  it('loads a pinned revision, the default revision of an unpinned skill and a built-in skill, and reads their files', async () => {
    const pinned = await skillWithTwoRevisions();
    const unpinned = await createSkill({
      name: 'tone-of-voice',
      description: 'How we write to customers.',
      instructions: 'Write plainly; no exclamation marks.',
      files: [],
    });
    const agent = await createAgent({
      model: 'dev',
      skills: [{ skill_id: pinned.id, revision_id: pinned.first }, { skill_id: unpinned.id }],
      builtin_skills: ['planning'],
      model_settings: {
        script: [
          [{ tool_call: { id: 'l1', name: 'load_skill', arguments: { name: 'invoice-checks' } } }],
          [{ tool_call: { id: 'r1', name: 'read_skill_file', arguments: { skill: 'invoice-checks', path: 'rules/limits.md' } } }],
          [{ tool_call: { id: 'l2', name: 'load_skill', arguments: { name: 'tone-of-voice' } } }],
          [{ tool_call: { id: 'l3', name: 'load_skill', arguments: { name: 'planning' } } }],
          [{ tool_call: { id: 'r2', name: 'read_skill_file', arguments: { skill: 'planning', path: 'templates/plan.md' } } }],
          [{ text: 'Checked.' }],
        ],
      },
    });
    const done = await run(agent.id);
    expect(done).toMatchObject({ status: 'completed', output: 'Checked.' });

    const calls = await toolCalls(done.id);
    expect(calls.map((c: { state: string }) => c.state)).toEqual(['completed', 'completed', 'completed', 'completed', 'completed']);
    const [loadPinned, readFile, loadDefault, loadBuiltin, readBuiltin] = calls.map((c: { content: { result: any } }) => c.content.result);
    // The pin wins over the skill's default (revision 2).
    expect(loadPinned).toEqual({
      name: 'invoice-checks',
      description: 'Check an invoice against its purchase order before approving it.',
      instructions: 'Version one: compare totals.',
      files: [{ path: 'rules/limits.md', media_type: 'text/markdown', size_bytes: 49 }],
    });
    expect(readFile).toEqual({
      skill: 'invoice-checks',
      path: 'rules/limits.md',
      media_type: 'text/markdown',
      content: 'Approve up to 500 EUR without a second signature.',
    });
    expect(loadDefault).toMatchObject({ name: 'tone-of-voice', instructions: 'Write plainly; no exclamation marks.', files: [] });
    const planning = builtinSkills().get('planning')!;
    expect(loadBuiltin).toMatchObject({ name: 'planning', instructions: planning.instructions });
    expect(loadBuiltin.files).toContainEqual(expect.objectContaining({ path: 'templates/plan.md', media_type: 'text/markdown' }));
    expect(readBuiltin.content).toBe(planning.files.find((f) => f.path === 'templates/plan.md')!.content);

    // The agent view shows what the run resolved: ids, revisions (the default at that moment) and names.
    const view = await t.rest('GET', `/api/v1/runs/${done.id}/agent`);
    expect(view.status).toBe(200);
    expect(view.body.resolved_skills).toEqual([
      { source: 'workspace', skill_id: pinned.id, revision_id: pinned.first, name: 'invoice-checks' },
      { source: 'workspace', skill_id: unpinned.id, revision_id: unpinned.revision, name: 'tone-of-voice' },
      { source: 'builtin', skill_id: null, revision_id: null, name: 'planning' },
    ]);
    const graphql = await t.graphql('query ($id: ID!) { runAgent(runId: $id) { resolvedSkills { source skillId revisionId name } } }', {
      id: done.id,
    });
    expect(graphql.data.runAgent.resolvedSkills).toEqual(
      view.body.resolved_skills.map((s: any) => ({ source: s.source, skillId: s.skill_id, revisionId: s.revision_id, name: s.name })),
    );

    // An unpinned skill follows its default: a later run resolves the new default revision.
    const next = await t.rest('POST', `/api/v1/skills/${unpinned.id}/revisions`, {
      headers: { 'if-match': unpinned.etag },
      body: { content: { name: 'tone-of-voice', description: 'How we write to customers.', instructions: 'Warm and short.' } },
    });
    const later = await run(agent.id);
    expect(later.status).toBe('completed');
    const laterView = (await t.rest('GET', `/api/v1/runs/${later.id}/agent`)).body;
    expect(laterView.resolved_skills[1]).toEqual({
      source: 'workspace',
      skill_id: unpinned.id,
      revision_id: next.body.id,
      name: 'tone-of-voice',
    });
    expect((await toolCalls(later.id))[2].content.result.instructions).toBe('Warm and short.');
    // The first run's view still shows the revision it used.
    expect((await t.rest('GET', `/api/v1/runs/${done.id}/agent`)).body.resolved_skills[1].revision_id).toBe(unpinned.revision);
  });

  it('a run without skills offers no skill tools and shows an empty list; skills can come from run overrides', async () => {
    const agent = await createAgent({
      model: 'dev',
      retries: { tools: 1 },
      model_settings: { script: [[{ tool_call: { id: 'x1', name: 'load_skill', arguments: { name: 'planning' } } }], [{ text: 'ok' }]] },
    });
    const done = await run(agent.id);
    expect(done.status).toBe('completed');
    const items = (await t.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items;
    expect(items.find((item: { kind: string }) => item.kind === 'tool_result').content).toMatchObject({
      tool_name: 'load_skill',
      error: expect.stringContaining("unavailable tool 'load_skill'"),
    });
    expect((await t.rest('GET', `/api/v1/runs/${done.id}/agent`)).body.resolved_skills).toEqual([]);

    const overridden = await run(agent.id, 'plan it', { overrides: { builtin_skills: ['code-review'] } });
    expect(overridden.status).toBe('completed');
    expect((await t.rest('GET', `/api/v1/runs/${overridden.id}/agent`)).body.resolved_skills).toEqual([
      { source: 'builtin', skill_id: null, revision_id: null, name: 'code-review' },
    ]);
  });

  it('an unknown skill name or file goes back to the model as an error that lists what exists', async () => {
    const agent = await createAgent({
      model: 'dev',
      builtin_skills: ['research'],
      retries: { tools: 2 },
      model_settings: {
        script: [
          [{ tool_call: { id: 'u1', name: 'load_skill', arguments: { name: 'nonexistent' } } }],
          [{ tool_call: { id: 'u2', name: 'read_skill_file', arguments: { skill: 'research', path: 'missing.md' } } }],
          [{ text: 'done' }],
        ],
      },
    });
    const done = await run(agent.id);
    expect(done.status).toBe('completed');
    // A skill name the schema does not list is refused before load_skill runs (no `tool_call` item);
    // the unknown file fails in read_skill_file (its `tool_call` item failed). Each `tool_result`
    // carries the error the model sees, naming what exists.
    const items = (await t.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items;
    const callStates = items.filter((item: { kind: string }) => item.kind === 'tool_call').map((item: { state: string }) => item.state);
    expect(callStates).toEqual(['failed']);
    const [unknownSkill, unknownFile] = await toolCalls(done.id);
    expect(unknownSkill).toMatchObject({
      content: { tool_name: 'load_skill', error: 'invalid arguments: /name must be equal to one of the allowed values: "research"' },
    });
    expect(unknownFile).toMatchObject({ content: { error: expect.stringContaining('its files are: source-evaluation.md') } });
    // The model saw the errors (they are in the thread's history).
    const history = JSON.stringify((await t.rest('GET', `/api/v1/threads/${done.thread_id}`)).body.message_history);
    expect(history).toContain('must be equal to one of the allowed values');
    expect(history).toContain('its files are: source-evaluation.md');
  });
});

describe('skills the configuration may not name', () => {
  it("another workspace's skill or revision answers 404 naming the entry, for agents and run overrides", async () => {
    const foreign = await skillWithTwoRevisions(otherKey);
    for (const skills of [[{ skill_id: foreign.id }], [{ skill_id: foreign.id, revision_id: foreign.first }]]) {
      const refused = await t.rest('POST', '/api/v1/agents', { body: { name: 'x', config: { model: 'dev', skills } } });
      expect(refused.status).toBe(404);
      expect(refused.body.error).toMatchObject({ code: 'not_found', details: { field: 'config.skills[0]' } });
    }
    const own = await skillWithTwoRevisions();
    // A revision of another skill (here: the foreign one) is not this skill's revision.
    const mismatched = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', skills: [{ skill_id: own.id, revision_id: foreign.first }] } },
    });
    expect(mismatched.status).toBe(404);
    const agent = await createAgent({ model: 'dev' });
    const overridden = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.id, input: text('hi'), options: { overrides: { skills: [{ skill_id: foreign.id }] } } },
    });
    expect(overridden.status).toBe(404);
    expect(overridden.body.error.details.field).toBe('options.overrides.skills[0]');
  });

  it('unknown or repeated built-in skills and repeated skills answer 400 naming the field', async () => {
    const skill = await createSkill({ name: 'dup-check', instructions: 'x' });
    const cases: [Record<string, unknown>, string][] = [
      [{ builtin_skills: ['no-such-skill'] }, 'config.builtin_skills[0]'],
      [{ builtin_skills: ['planning', 'planning'] }, 'config.builtin_skills[1]'],
      [{ skills: [{ skill_id: skill.id }, { skill_id: skill.id, revision_id: skill.revision }] }, 'config.skills[1].skill_id'],
      [{ skills: [{ revision_id: skill.revision }] }, 'config.skills[0].skill_id'],
    ];
    for (const [config, field] of cases) {
      const refused = await t.rest('POST', '/api/v1/agents', { body: { name: 'x', config: { model: 'dev', ...config } } });
      expect(refused.status, JSON.stringify(config)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_argument', details: { field } });
    }
  });

  it('an archived skill is refused when configured (409) and fails a run that would use it', async () => {
    const skill = await createSkill({ name: 'soon-archived', instructions: 'x' });
    const agent = await createAgent({ model: 'dev', skills: [{ skill_id: skill.id }] });
    const archived = await t.rest('POST', `/api/v1/skills/${skill.id}/archive`, { headers: { 'if-match': skill.etag } });
    expect(archived.status).toBe(200);

    const configured = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'x', config: { model: 'dev', skills: [{ skill_id: skill.id }] } },
    });
    expect(configured.status).toBe(409);
    expect(configured.body.error).toMatchObject({ code: 'failed_precondition', details: { field: 'config.skills[0]' } });

    const failed = await run(agent.id);
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'failed_precondition' } });
    expect(failed.failure.message).toContain(`skill "${skill.id}" (skills[0]) is archived`);
    const items = (await t.rest('GET', `/api/v1/runs/${failed.id}/items`)).body.items;
    expect(items.find((i: { kind: string }) => i.kind === 'error').content).toMatchObject({ code: 'failed_precondition' });
    expect((await t.rest('GET', `/api/v1/runs/${failed.id}/agent`)).body.resolved_skills).toBeNull();
  });

  it('two skills with the same name fail the run, naming the clash', async () => {
    const shadow = await createSkill({ name: 'planning', description: 'our own planning', instructions: 'x' });
    const agent = await createAgent({ model: 'dev', skills: [{ skill_id: shadow.id }], builtin_skills: ['planning'] });
    const failed = await run(agent.id);
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'failed_precondition' } });
    expect(failed.failure.message).toContain('two of the run\'s skills are named "planning"');
  });

  it('the agents list finds an agent through a skill it names without a pin', async () => {
    const skill = await createSkill({ name: 'findable', instructions: 'x' });
    const agent = await createAgent({ model: 'dev', skills: [{ skill_id: skill.id }] });
    const listed = await t.rest('GET', `/api/v1/agents?skill_id=${skill.id}`);
    expect(listed.body.items.map((a: { id: string }) => a.id)).toEqual([agent.id]);
    expect((await t.rest('GET', `/api/v1/agents?skill_revision_id=${skill.revision}`)).body.items).toEqual([]);
  });
});

describe('skills through the real adapters', () => {
  for (const [label, type, server, path] of [
    ['OpenAI-compatible', 'openai_compatible', () => openai, '/v1/chat/completions'],
    ['Anthropic', 'anthropic', () => anthropic, '/v1/messages'],
  ] as const) {
    it(`${label}: the catalogue is in the system prompt, the tools are offered, load_skill's result reaches the model`, async () => {
      const s = server();
      const provider = await t.rest('POST', '/api/v1/model-providers', {
        body: { type, name: `${label} skills`, config: { base_url: `${s.url}/v1` }, credential: { api_key: s.apiKey } },
      });
      const key = `${type.replace('_', '-')}-skills`;
      await t.rest('POST', '/api/v1/models', { body: { key, provider_id: provider.body.id, provider_model: 'loop-model' } });
      const skill = await skillWithTwoRevisions();
      const agent = await createAgent({
        model: key,
        instructions: 'You approve invoices.',
        skills: [{ skill_id: skill.id }],
        builtin_skills: ['summarizing'],
      });
      s.requests.length = 0;
      s.turns.push({ tool: { id: 'call_s1', name: 'load_skill', arguments: { name: 'invoice-checks' } } }, { text: 'Invoice 42 is fine.' });
      const done = await run(agent.id);
      expect(done).toMatchObject({ status: 'completed', output: 'Invoice 42 is fine.' });

      const [first, second] = s.requests.filter((r) => r.path === path);
      const system =
        type === 'anthropic'
          ? (first!.body.system as { text: string }[]).map((part) => part.text).join('\n')
          : first!.body.messages.find((m: { role: string }) => m.role === 'system').content;
      expect(system).toContain('You approve invoices.');
      expect(system).toContain('Available skills:');
      expect(system).toContain('- invoice-checks: Check an invoice against its purchase order before approving it.');
      expect(system).toContain(`- summarizing: ${builtinSkills().get('summarizing')!.description}`);
      // Only the catalogue: a skill's instructions reach the model when it loads the skill.
      expect(system).not.toContain('compare totals');
      const toolNames = (first!.body.tools as { name?: string; function?: { name: string } }[]).map(
        (tool) => tool.name ?? tool.function!.name,
      );
      expect(toolNames).toEqual(expect.arrayContaining(['load_skill', 'read_skill_file']));
      // The default revision (2) is what the unpinned skill loads.
      expect(JSON.stringify(second!.body)).toContain('Version two: compare totals and line items.');
      expect(JSON.stringify(second!.body)).toContain('call_s1');
    });
  }
});

/**
 * A proxy in front of the OpenAI-compatible loopback server whose first chat request is held until the
 * test releases it and then has its connection dropped (a transient failure: the run gets another
 * attempt — a 503 would be waited out within the attempt instead); every later request goes through
 * to the loopback server.
 */
async function failingFirstRequest(target: ModelServer) {
  let release!: () => void;
  let markReached!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<void>((resolve) => (markReached = resolve));
  let first = true;
  const server = createServer((req, res) => {
    if (first && req.method === 'POST' && req.url === '/v1/chat/completions') {
      first = false;
      markReached();
      void released.then(() => res.socket?.destroy());
      return;
    }
    const upstream = request(`${target.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
  return { url, reached, release, close };
}

describe('a later attempt of a run', () => {
  it('uses the skills its first attempt resolved, even after the default revision changed', async () => {
    const proxy = await failingFirstRequest(openai);
    try {
      const provider = await t.rest('POST', '/api/v1/model-providers', {
        body: { type: 'openai_compatible', name: 'flaky', config: { base_url: `${proxy.url}/v1` }, credential: { api_key: openai.apiKey } },
      });
      await t.rest('POST', '/api/v1/models', { body: { key: 'flaky', provider_id: provider.body.id, provider_model: 'loop-model' } });
      const skill = await createSkill({ name: 'stable-skill', instructions: 'First revision.' });
      const agent = await createAgent({ model: 'flaky', skills: [{ skill_id: skill.id }] });
      openai.turns.push({ tool: { id: 'call_r1', name: 'load_skill', arguments: { name: 'stable-skill' } } }, { text: 'Done.' });
      const started = await t.rest('POST', '/api/v1/runs', { body: { agent_id: agent.id, input: text('go') } });
      // The first attempt has resolved its skills and is asking the model: change the default now.
      await proxy.reached;
      const next = await t.rest('POST', `/api/v1/skills/${skill.id}/revisions`, {
        headers: { 'if-match': skill.etag },
        body: { content: { name: 'stable-skill', instructions: 'Second revision.' } },
      });
      expect(next.body.number).toBe(2);
      proxy.release();
      const done = await settleRun(t, started.body.id);
      expect(done).toMatchObject({ status: 'completed', output: 'Done.', attempts: 2 });
      expect((await toolCalls(done.id))[0].content.result.instructions).toBe('First revision.');
      expect((await t.rest('GET', `/api/v1/runs/${done.id}/agent`)).body.resolved_skills).toEqual([
        { source: 'workspace', skill_id: skill.id, revision_id: skill.revision, name: 'stable-skill' },
      ]);
    } finally {
      await proxy.close();
    }
  });
});
