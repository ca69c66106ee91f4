// The platform tools (`platform_tools`) through the public API with the scripted model and the
// `local` environment type: a run writes a file, runs a command that reads it, edits it, greps and
// globs, lists and reads; large command output goes to content_refs; a write under
// `write_permission: ask` waits for an approval and runs after it; a lazy environment is made by the
// first call; paths leaving the environment are refused; a named mount is worked in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { waitFor } from '../helpers/wait.js';

let t: TestApp;
let templateId: string;
beforeAll(async () => {
  t = await startTestApp({ allowLocalEnvironments: true });
  await insertModel(t, 'dev');
  const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'This machine' } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  const template = await t.rest('POST', '/api/v1/environment-templates', {
    body: { name: 'Workbench', provider_id: provider.body.id, config: { working_directory: 'repo' } },
  });
  expect(template.status, JSON.stringify(template.body)).toBe(201);
  templateId = template.body.id;
});
afterAll(async () => {
  await t?.stop();
});

type Call = { id: string; name: string; arguments: Record<string, unknown> };
/** One model turn per call, then a closing text. */
const script = (calls: Call[], closing = 'Done.') => ({
  script: [...calls.map((call) => [{ tool_call: call }]), [{ text: closing }]],
});

async function agentWith(calls: Call[], config: Record<string, unknown> = {}) {
  const agent = await t.rest('POST', '/api/v1/agents', {
    body: {
      name: 'worker',
      config: {
        model: 'dev',
        model_settings: script(calls),
        retries: { tools: 10 },
        default_environment_template_id: templateId,
        platform_tools: { groups: ['shell', 'files', 'search'], read_permission: 'allow', write_permission: 'allow' },
        ...config,
      },
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  return agent.body.id as string;
}

async function run(agentId: string, body: Record<string, unknown> = {}) {
  const started = await t.rest('POST', '/api/v1/runs', {
    body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'Work.' }] }, ...body },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  return settleRun(t, started.body.id);
}

const itemsOf = async (runId: string) => (await t.rest('GET', `/api/v1/runs/${runId}/items`)).body.items as any[];
/** The tool_result items of a run by tool call id. */
async function resultsOf(runId: string): Promise<Record<string, any>> {
  const results = (await itemsOf(runId)).filter((item) => item.kind === 'tool_result');
  return Object.fromEntries(results.map((item) => [item.content.tool_call_id, item]));
}

describe('platform tools', () => {
  it('write a file, run a command that reads it, edit, grep, glob, list and read — in the run’s environment', async () => {
    const agentId = await agentWith([
      { id: 'w1', name: 'write_file', arguments: { path: 'notes/hello.txt', content: 'hello world\nsecond line\n' } },
      { id: 'c1', name: 'run_command', arguments: { command: 'cat notes/hello.txt; echo oops >&2; exit 3' } },
      { id: 'e1', name: 'edit_file', arguments: { path: 'notes/hello.txt', old_string: 'world', new_string: 'there' } },
      { id: 'e2', name: 'edit_file', arguments: { path: 'notes/hello.txt', old_string: 'absent', new_string: 'x' } },
      { id: 'g1', name: 'grep', arguments: { pattern: 'th[e]re', path: '.' } },
      { id: 'g2', name: 'glob', arguments: { pattern: '**/*.txt' } },
      { id: 'l1', name: 'list_files', arguments: {} },
      { id: 'r1', name: 'read_file', arguments: { path: 'notes/hello.txt' } },
      { id: 't1', name: 'run_command', arguments: { command: 'sleep 5', timeout_seconds: 1 } },
    ]);
    const done = await run(agentId);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    expect(done.environment_mounts).toHaveLength(1);
    const results = await resultsOf(done.id);
    expect(results.w1.content.result).toEqual({ path: 'notes/hello.txt', size_bytes: 24 });
    expect(results.c1.content.result).toMatchObject({
      exit_code: 3,
      stdout: 'hello world\nsecond line\n',
      stderr: 'oops\n',
      truncated: false,
      timed_out: false,
    });
    expect(results.e1.content.result).toEqual({ path: 'notes/hello.txt', replacements: 1, size_bytes: 24 });
    expect(results.e2.content.error).toContain('old_string does not occur');
    expect(results.g1.content.result).toEqual({ matches: ['./notes/hello.txt:1:hello there'], truncated: false });
    expect(results.g2.content.result).toEqual({ paths: ['notes/hello.txt'], truncated: false });
    expect(results.l1.content.result.entries.map((e: { path: string; kind: string }) => [e.path, e.kind])).toEqual([
      ['notes', 'directory'],
      ['notes/hello.txt', 'file'],
    ]);
    expect(results.r1.content.result).toEqual({
      path: 'notes/hello.txt',
      content: 'hello there\nsecond line\n',
      size_bytes: 24,
      truncated: false,
    });
    expect(results.t1.content.result).toMatchObject({ timed_out: true, exit_code: null });
    // The file is really in the environment's working directory on this machine.
    const mount = done.environment_mounts[0];
    expect(readFileSync(join(mount.working_directory, 'notes/hello.txt'), 'utf8')).toBe('hello there\nsecond line\n');
    // The tool calls are server calls of the run, named as the model called them.
    const calls = (await itemsOf(done.id)).filter((item) => item.kind === 'tool_call');
    expect(calls.map((item) => [item.content.tool_name, item.content.server])).toContainEqual(['run_command', true]);
  });

  it('keep large command output in content_refs, with a preview for the model', async () => {
    const agentId = await agentWith([{ id: 'big', name: 'run_command', arguments: { command: 'yes abcdefghij | head -c 60000' } }]);
    const done = await run(agentId);
    expect(done.status).toBe('completed');
    const result = (await resultsOf(done.id)).big;
    expect(result.content_refs.result).toMatchObject({ media_type: 'application/json', size_bytes: expect.any(Number) });
    expect(result.content_refs.result.size_bytes).toBeGreaterThan(60_000);
    expect(typeof result.content.result).toBe('string');
  });

  it('refuse paths that leave the environment', async () => {
    const agentId = await agentWith([
      { id: 'up', name: 'read_file', arguments: { path: '../../../../../../etc/passwd' } },
      { id: 'abs', name: 'write_file', arguments: { path: '/tmp/platform-tools-escape.txt', content: 'x' } },
      { id: 'grep', name: 'grep', arguments: { pattern: 'root', path: '/etc' } },
      { id: 'cwd', name: 'run_command', arguments: { command: 'pwd', cwd: '../../..' } },
      { id: 'link', name: 'run_command', arguments: { command: 'ln -s /etc outside' } },
      { id: 'via', name: 'read_file', arguments: { path: 'outside/passwd' } },
    ]);
    const done = await run(agentId);
    expect(done.status).toBe('completed');
    const results = await resultsOf(done.id);
    for (const id of ['up', 'abs', 'grep', 'cwd', 'via']) {
      expect(results[id].content.result, id).toBeUndefined();
      expect(results[id].content.error, id).toMatch(/outside the environment/);
    }
    expect(results.link.content.result).toMatchObject({ exit_code: 0 });
  });

  it('with write_permission ask wait for an approval before a write; reads run at once; the approved write runs after the resume', async () => {
    const agentId = await agentWith(
      [
        { id: 'list', name: 'list_files', arguments: {} },
        { id: 'write', name: 'write_file', arguments: { path: 'approved.txt', content: 'yes' } },
        { id: 'read', name: 'read_file', arguments: { path: 'approved.txt' } },
      ],
      { platform_tools: { groups: ['files'], read_permission: 'allow', write_permission: 'ask' } },
    );
    const waiting = await run(agentId);
    expect(waiting).toMatchObject({
      status: 'waiting',
      wait_reason: 'approval',
      pending: { approvals: [{ tool_call_id: 'write', tool_name: 'write_file', presentation: { kind: 'approval', title: 'write_file' } }] },
    });
    expect((await resultsOf(waiting.id)).list.content.result).toEqual({ entries: [], truncated: false });
    const mount = waiting.environment_mounts[0];
    const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'idempotency-key': `approve-${waiting.id}` },
      body: { approvals: { write: { action: 'approve' } } },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBeLessThan(300);
    const done = await settleRun(t, resumed.body.id);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    expect(done.environment_mounts).toEqual(waiting.environment_mounts);
    const results = await resultsOf(done.id);
    expect(results.write.content.result).toEqual({ path: 'approved.txt', size_bytes: 3 });
    expect(results.read.content.result).toMatchObject({ content: 'yes' });
    expect(readFileSync(join(mount.working_directory, 'approved.txt'), 'utf8')).toBe('yes');
  });

  it('with deny permissions refuse the calls and offer only the configured groups', async () => {
    const agentId = await agentWith([{ id: 'cmd', name: 'run_command', arguments: { command: 'touch x' } }], {
      platform_tools: { groups: ['shell'], write_permission: 'deny' },
    });
    const done = await run(agentId);
    expect(done.status).toBe('completed');
    expect((await resultsOf(done.id)).cmd.content).toMatchObject({ denied: true, denied_by: 'configuration' });
  });

  it('with lazy_environment provision the environment on the first call', async () => {
    const agentId = await agentWith([{ id: 'first', name: 'run_command', arguments: { command: 'echo lazy > made.txt && ls' } }], {
      lazy_environment: true,
    });
    const before = (await t.rest('GET', `/api/v1/environments?template_id=${templateId}&limit=100`)).body.items.length;
    const done = await run(agentId);
    expect(done.status).toBe('completed');
    expect((await resultsOf(done.id)).first.content.result).toMatchObject({ exit_code: 0, stdout: 'made.txt\n' });
    expect(done.environment_mounts).toEqual([
      { environment_id: expect.stringMatching(/^env_/), name: 'default', working_directory: expect.any(String) },
    ]);
    const environments = (await t.rest('GET', `/api/v1/environments?template_id=${templateId}&limit=100`)).body.items;
    expect(environments).toHaveLength(before + 1);
    expect(readFileSync(join(done.environment_mounts[0].working_directory, 'made.txt'), 'utf8')).toBe('lazy\n');
  });

  it('work in the mount a call names, and say when there is none', async () => {
    const created = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
    expect(created.status).toBe(201);
    const agentId = await agentWith([
      { id: 'named', name: 'write_file', arguments: { path: 'here.txt', content: 'scratch', mount: 'scratch' } },
      { id: 'missing', name: 'read_file', arguments: { path: 'here.txt', mount: 'nowhere' } },
    ]);
    const done = await run(agentId, {
      environment_mounts: [{ environment_id: created.body.id, name: 'scratch', working_directory: 'sub' }],
    });
    expect(done.status).toBe('completed');
    const results = await resultsOf(done.id);
    expect(results.named.content.result).toEqual({ path: 'here.txt', size_bytes: 7 });
    expect(readFileSync(join(created.body.working_directory, 'sub', 'here.txt'), 'utf8')).toBe('scratch');
    expect(results.missing.content.error).toContain('no environment mounted as nowhere');
  });

  it('sync the run’s skills into the environment before the first call (shared, no overwrite) and clean up when the run seals', async () => {
    const skill = await t.rest('POST', '/api/v1/skills', {
      body: {
        name: 'Greeting',
        content: {
          name: 'greeter',
          description: 'Greets people',
          instructions: '# Greeting\n\nRun the script.',
          files: [{ path: 'scripts/greet.sh', content: 'echo hello from the skill' }],
        },
      },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    const environment = (await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } })).body;
    const mounts = [{ environment_id: environment.id }];
    const skillsDir = join(environment.working_directory, '.skills');
    // A shared sync without overwrite keeps a file that is already there (here: edited by an earlier run).
    const shared = { skills: [{ skill_id: skill.body.id }], skill_sync: { mode: 'shared', overwrite: false, cleanup: false } };
    const editor = await agentWith(
      [{ id: 'edit', name: 'write_file', arguments: { path: '.skills/greeter/scripts/greet.sh', content: 'echo edited' } }],
      shared,
    );
    expect((await run(editor, { environment_mounts: mounts })).status).toBe('completed');
    const reader = await agentWith(
      [
        {
          id: 'cat',
          name: 'run_command',
          arguments: { command: 'sh .skills/greeter/scripts/greet.sh && head -3 .skills/greeter/SKILL.md' },
        },
      ],
      shared,
    );
    const kept = await run(reader, { environment_mounts: mounts });
    expect(kept.status, JSON.stringify(kept.failure)).toBe('completed');
    expect((await resultsOf(kept.id)).cat.content.result.stdout).toBe('edited\n---\nname: "greeter"\ndescription: "Greets people"\n');
    // With overwrite the skill's own files replace it; with cleanup they are gone when the run seals.
    const cleaner = await agentWith([{ id: 'run', name: 'run_command', arguments: { command: 'sh .skills/greeter/scripts/greet.sh' } }], {
      skills: [{ skill_id: skill.body.id }],
      skill_sync: { mode: 'shared', overwrite: true, cleanup: true },
    });
    const cleaned = await run(cleaner, { environment_mounts: mounts });
    expect(cleaned.status, JSON.stringify(cleaned.failure)).toBe('completed');
    expect((await resultsOf(cleaned.id)).run.content.result.stdout).toBe('hello from the skill\n');
    expect(readdirSync(skillsDir)).toEqual([]);
    // Isolated: the run's own directory, named by the run.
    const isolated = await agentWith([{ id: 'ls', name: 'glob', arguments: { pattern: '.skills/**' } }], {
      skills: [{ skill_id: skill.body.id }],
      skill_sync: { mode: 'isolated' },
    });
    const separate = await run(isolated, { environment_mounts: mounts });
    expect(separate.status, JSON.stringify(separate.failure)).toBe('completed');
    expect((await resultsOf(separate.id)).ls.content.result.paths.sort()).toEqual([
      `.skills/${separate.id}/greeter/SKILL.md`,
      `.skills/${separate.id}/greeter/scripts/greet.sh`,
    ]);
    // A run that calls no platform tool writes nothing.
    const idle = await agentWith([], { skills: [{ skill_id: skill.body.id }], skill_sync: { mode: 'isolated' } });
    expect((await run(idle, { environment_mounts: mounts })).status).toBe('completed');
    expect(readdirSync(skillsDir)).toEqual([separate.id]);
  });
  it('take platform_tools and skill_sync from the run’s overrides: the agent view shows them and the run acts on them', async () => {
    const skill = await t.rest('POST', '/api/v1/skills', {
      body: { name: 'Overridden', content: { name: 'noted', description: 'Notes', instructions: '# Notes' } },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    // The revision offers only the files group and syncs skills shared; the run asks for the shell and
    // an isolated sync. Only with both overrides can the command run and see `.skills/<run id>/`.
    const agentId = await agentWith([{ id: 'look', name: 'run_command', arguments: { command: 'find .skills -type f | sort' } }], {
      skills: [{ skill_id: skill.body.id }],
      platform_tools: { groups: ['files'], read_permission: 'allow', write_permission: 'allow' },
      skill_sync: { mode: 'shared', overwrite: false, cleanup: false },
    });
    const overrides = {
      platform_tools: { groups: ['shell'], read_permission: 'allow', write_permission: 'allow' },
      skill_sync: { mode: 'isolated', overwrite: true, cleanup: false },
    };
    const done = await run(agentId, { options: { overrides } });
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const view = await t.rest('GET', `/api/v1/runs/${done.id}/agent`);
    expect(view.body.config).toMatchObject(overrides);
    expect(view.body.revision.config).toMatchObject({
      platform_tools: { groups: ['files'] },
      skill_sync: { mode: 'shared', overwrite: false, cleanup: false },
    });
    expect((await resultsOf(done.id)).look.content.result).toMatchObject({
      exit_code: 0,
      stdout: `.skills/${done.id}/noted/SKILL.md\n`,
    });
  });

  it('with cleanup remove the synced skills of a failed and of a cancelled run as well', async () => {
    const skill = await t.rest('POST', '/api/v1/skills', {
      body: {
        name: 'Tidy',
        content: {
          name: 'tidy',
          description: 'Leaves nothing behind',
          instructions: '# Tidy',
          files: [{ path: 'notes.md', content: 'x' }],
        },
      },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    const environment = (await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } })).body;
    const mounts = [{ environment_id: environment.id }];
    const skillsDir = join(environment.working_directory, '.skills');
    const look = (id: string) => [{ tool_call: { id, name: 'run_command', arguments: { command: 'find .skills -type f | sort' } } }];

    // Failed: the model breaks after the call that synced the skill (shared mode).
    const failing = await agentWith([], {
      skills: [{ skill_id: skill.body.id }],
      skill_sync: { mode: 'shared', cleanup: true },
      model_settings: { script: [look('look'), [{ error: { message: 'the model is broken' } }]] },
    });
    const failed = await run(failing, { environment_mounts: mounts });
    expect(failed).toMatchObject({ status: 'failed', failure: { code: 'model_error' } });
    expect((await resultsOf(failed.id)).look.content.result.stdout).toBe('.skills/tidy/SKILL.md\n.skills/tidy/notes.md\n');
    expect(readdirSync(skillsDir)).toEqual([]);

    // Cancelled: the model holds its next answer until the run is cancelled (isolated mode).
    const holding = await agentWith([], {
      skills: [{ skill_id: skill.body.id }],
      skill_sync: { mode: 'isolated', cleanup: true },
      model_settings: { script: [look('look'), [{ delay_ms: 600_000 }, { text: 'never' }]] },
    });
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: holding, input: { content: [{ type: 'text', text: 'Work.' }] }, environment_mounts: mounts },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const runId = started.body.id as string;
    // Gate on the call's result: the skill is synced and the run waits for its model.
    const synced = await waitFor(
      async () => (await resultsOf(runId)).look,
      (result) => result !== undefined,
      'the call that synced the skill',
    );
    expect(synced.content.result.stdout).toBe(`.skills/${runId}/tidy/SKILL.md\n.skills/${runId}/tidy/notes.md\n`);
    expect(readdirSync(skillsDir)).toEqual([runId]);
    const cancel = await t.rest('POST', `/api/v1/runs/${runId}/cancel`);
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(await settleRun(t, runId)).toMatchObject({ status: 'cancelled' });
    expect(readdirSync(skillsDir)).toEqual([]);
  });
});
