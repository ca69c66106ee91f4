// Agents that act, as one story through the public API: a scripted run works in two environments at
// once — a `local` one (a directory and real subprocesses on this machine) mounted as `default` and a
// `docker` one (a container of the loopback Docker Engine API, test/helpers/docker-engine-server.ts)
// mounted as `box`. Its skill is synced into both before its first platform tool call and read back
// there; its writes and commands wait for an approval (`write_permission: ask`) and run in the
// successor after it; the successor delegates to a subagent in `inline` mode, which writes in the
// same environment and delegates in turn to a subagent in `thread` mode that works in the container.
// A later run reads every file back with `read_file`. Everything is checked through REST and GraphQL
// (run items, the files as a later run reads them, the child runs' lineage), and every resource the
// story touched answers 404 to another workspace.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { startDockerEngineServer, type DockerEngineServer } from '../helpers/docker-engine-server.js';
import { createWorkspace } from '../../src/features/access/admin.js';

let t: TestApp;
let engine: DockerEngineServer;
let otherKey: string;
beforeAll(async () => {
  engine = await startDockerEngineServer({ images: ['alpine:3.20'] });
  t = await startTestApp({ allowLocalEnvironments: true });
  await insertModel(t, 'dev');
  otherKey = (await createWorkspace(t.app.deps, { name: 'Elsewhere' })).apiKey.token;
});
afterAll(async () => {
  await t?.stop();
  await engine?.close();
});

async function created(path: string, body: Record<string, unknown>) {
  const response = await t.rest('POST', path, { body });
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201);
  return response.body;
}
const get = async (path: string) => {
  const response = await t.rest('GET', path);
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
  return response.body;
};
const itemsOf = async (runId: string) => (await get(`/api/v1/runs/${runId}/items?limit=500`)).items as any[];
/** The run's own tool results (not those mirrored from a child) by tool call id. */
async function resultsOf(runId: string): Promise<Record<string, any>> {
  const results = (await itemsOf(runId)).filter((item) => item.kind === 'tool_result' && !item.content.subagent);
  return Object.fromEntries(results.map((item) => [item.content.tool_call_id, item.content]));
}
const call = (id: string, name: string, args: Record<string, unknown>) => ({ tool_call: { id, name, arguments: args } });

const SKILL_MD = '---\nname: "release-notes"\ndescription: "Stamps release notes"\n---\n\n# Release notes\n\nRun scripts/stamp.sh.\n';

describe('an agent that acts in a local environment and a container, with skills, approvals and subagents', () => {
  it('does the work, and every surface shows it', async () => {
    // ── the places to work: a local environment and a container ──
    const localProvider = await created('/api/v1/environment-providers', { type: 'local', name: 'This machine' });
    const dockerProvider = await created('/api/v1/environment-providers', {
      type: 'docker',
      name: 'Engine',
      config: { endpoint: engine.endpoint },
    });
    const localTemplate = await created('/api/v1/environment-templates', {
      name: 'Workbench',
      provider_id: localProvider.id,
      config: { working_directory: 'repo' },
    });
    const dockerTemplate = await created('/api/v1/environment-templates', {
      name: 'Alpine',
      provider_id: dockerProvider.id,
      config: { image: 'alpine:3.20', working_directory: '/work' },
    });
    const local = await created('/api/v1/environments', { template_id: localTemplate.id });
    const box = await created('/api/v1/environments', { template_id: dockerTemplate.id });
    expect([local.status, box.status]).toEqual(['ready', 'ready']);
    const container = engine.containers.get(box.instance_id)!;
    expect(container.running).toBe(true);

    // ── the skill, the subagents and the agent ──
    const skill = await created('/api/v1/skills', {
      name: 'Release notes',
      content: {
        name: 'release-notes',
        description: 'Stamps release notes',
        instructions: '# Release notes\n\nRun scripts/stamp.sh.',
        files: [{ path: 'scripts/stamp.sh', content: 'echo "stamped by the skill in the $1"' }],
      },
    });
    const allowAll = { groups: ['shell', 'files'], read_permission: 'allow', write_permission: 'allow' };
    // `thread` mode's subagent: checks the container's file and leaves its own there.
    const tester = await created('/api/v1/agents', {
      name: 'tester',
      config: {
        model: 'dev',
        platform_tools: allowAll,
        model_settings: {
          script: [
            [
              call('t_check', 'run_command', {
                mount: 'box',
                command: 'cat hello.txt > from-thread.txt && echo "checked in the container" >> from-thread.txt && cat from-thread.txt',
              }),
            ],
            [{ text: 'The tester checked the container.' }],
          ],
        },
      },
    });
    // `inline` mode's subagent: writes in the local environment, then delegates to the tester in `thread` mode.
    const scribe = await created('/api/v1/agents', {
      name: 'scribe',
      config: {
        model: 'dev',
        platform_tools: allowAll,
        subagents: { tester: { agent_id: tester.id, description: 'checks the container' } },
        subagent_mode: 'thread',
        model_settings: {
          script: [
            [call('s_write', 'write_file', { path: 'from-inline.txt', content: 'written by the inline subagent' })],
            [call('s_delegate', 'delegate_to_tester', { task: 'Check hello.txt in the container.' })],
            [{ text: 'The scribe wrote from-inline.txt and the tester checked the container.' }],
          ],
        },
      },
    });
    const builder = await created('/api/v1/agents', {
      name: 'builder',
      config: {
        model: 'dev',
        skills: [{ skill_id: skill.id }],
        skill_sync: { mode: 'shared' },
        platform_tools: { groups: ['shell', 'files', 'search'], read_permission: 'allow', write_permission: 'ask' },
        subagents: { scribe: { agent_id: scribe.id, description: 'writes things down' } },
        subagent_mode: 'inline',
        model_settings: {
          script: [
            [
              // Reads run at once: the first one syncs the skill into each environment.
              call('read_skill_local', 'read_file', { path: '.skills/release-notes/SKILL.md' }),
              call('read_skill_box', 'read_file', { path: '.skills/release-notes/SKILL.md', mount: 'box' }),
              // Writes and commands wait for an approval.
              call('write_local', 'write_file', { path: 'notes/plan.md', content: '# Plan\n\nShip it.\n' }),
              call('run_local', 'run_command', {
                command: 'sh .skills/release-notes/scripts/stamp.sh workbench > stamp.txt && cat stamp.txt notes/plan.md',
              }),
              call('write_box', 'write_file', { path: 'hello.txt', content: 'hello from the builder\n', mount: 'box' }),
              call('run_box', 'run_command', {
                command: 'sh .skills/release-notes/scripts/stamp.sh container && cat hello.txt',
                mount: 'box',
              }),
            ],
            [call('delegate', 'delegate_to_scribe', { task: 'Write it down and have it checked.' })],
            [{ text: 'All done.' }],
          ],
        },
      },
    });

    // ── the run: reads at once, then waits for the approval of its writes ──
    const started = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: builder.id,
        input: { content: [{ type: 'text', text: 'Prepare the release.' }] },
        environment_mounts: [{ environment_id: local.id }, { environment_id: box.id, name: 'box' }],
      },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const waiting = await settleRun(t, started.body.id);
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'approval' });
    expect(waiting.pending.approvals.map((a: { tool_call_id: string }) => a.tool_call_id)).toEqual([
      'write_local',
      'run_local',
      'write_box',
      'run_box',
    ]);
    expect(waiting.environment_mounts).toEqual([
      { environment_id: local.id, name: 'default', working_directory: local.working_directory },
      { environment_id: box.id, name: 'box', working_directory: '/work' },
    ]);
    const beforeApproval = await resultsOf(waiting.id);
    // The skill was synced into both environments and read there.
    expect(beforeApproval.read_skill_local.result).toEqual({
      path: '.skills/release-notes/SKILL.md',
      content: SKILL_MD,
      size_bytes: Buffer.byteLength(SKILL_MD),
      truncated: false,
    });
    expect(beforeApproval.read_skill_box.result).toMatchObject({ content: SKILL_MD });
    // Nothing waiting for the approval has run.
    expect(Object.keys(beforeApproval).sort()).toEqual(['read_skill_box', 'read_skill_local']);
    expect(existsSync(join(local.working_directory, 'notes'))).toBe(false);
    expect(existsSync(join(container.root, 'work', 'hello.txt'))).toBe(false);

    // ── the approval: the successor runs the writes and commands, then delegates ──
    const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'idempotency-key': `approve-${waiting.id}` },
      body: {
        approvals: Object.fromEntries(['write_local', 'run_local', 'write_box', 'run_box'].map((id) => [id, { action: 'approve' }])),
      },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    const done = await settleRun(t, resumed.body.id);
    expect(done, JSON.stringify(done.failure)).toMatchObject({ status: 'completed', output: 'All done.', parent_run_id: waiting.id });
    expect(done.environment_mounts).toEqual(waiting.environment_mounts);
    const results = await resultsOf(done.id);
    expect(results.write_local.result).toEqual({ path: 'notes/plan.md', size_bytes: 17 });
    expect(results.run_local.result).toMatchObject({
      exit_code: 0,
      stdout: 'stamped by the skill in the workbench\n# Plan\n\nShip it.\n',
    });
    expect(results.write_box.result).toEqual({ path: 'hello.txt', size_bytes: 23 });
    expect(results.run_box.result).toMatchObject({
      exit_code: 0,
      stdout: 'stamped by the skill in the container\nhello from the builder\n',
    });
    // The container really ran it: through the engine's exec API.
    expect(engine.requests.filter((r) => r === `POST /containers/${box.instance_id}/exec`).length).toBeGreaterThan(0);

    // ── the subagents: inline (mirrored into the parent), and thread (kept apart) ──
    const items = await itemsOf(done.id);
    const scribeRecord = items.find((i) => i.kind === 'subagent_run');
    expect(scribeRecord.content).toMatchObject({ name: 'scribe', tool_call_id: 'delegate', mode: 'inline', status: 'completed' });
    expect(results.delegate.result).toBe('The scribe wrote from-inline.txt and the tester checked the container.');
    const scribeRunId = scribeRecord.content.run_id as string;
    const mirrored = items.filter((i) => i.content.subagent?.run_id === scribeRunId);
    expect(mirrored.find((i) => i.kind === 'tool_result' && i.content.tool_call_id === 's_write').content.result).toEqual({
      path: 'from-inline.txt',
      size_bytes: 30,
    });
    const scribeItems = await itemsOf(scribeRunId);
    const testerRecord = scribeItems.find((i) => i.kind === 'subagent_run');
    expect(testerRecord.content).toMatchObject({ name: 'tester', tool_call_id: 's_delegate', mode: 'thread', status: 'completed' });
    const testerRunId = testerRecord.content.run_id as string;
    // Thread mode: the tester's items stay in its own thread — in neither the scribe's nor the builder's.
    expect(scribeItems.filter((i) => i.content.subagent)).toEqual([]);
    expect(items.some((i) => i.content.subagent?.run_id === testerRunId)).toBe(false);
    expect((await resultsOf(scribeRunId)).s_delegate.result).toBe('The tester checked the container.');
    expect((await resultsOf(testerRunId)).t_check.result).toMatchObject({
      exit_code: 0,
      stdout: 'hello from the builder\nchecked in the container\n',
    });
    // The children worked in the environments of the run that delegated to them.
    const scribeRun = await get(`/api/v1/runs/${scribeRunId}`);
    const testerRun = await get(`/api/v1/runs/${testerRunId}`);
    expect(scribeRun).toMatchObject({ lineage: 'subagent', parent_run_id: done.id, environment_mounts: done.environment_mounts });
    expect(testerRun).toMatchObject({ lineage: 'subagent', parent_run_id: scribeRunId, environment_mounts: done.environment_mounts });
    // Lineage, nearest first: the tester, the scribe, the successor, the run that waited.
    const lineage = await get(`/api/v1/runs/${testerRunId}/lineage`);
    expect(lineage.items.map((r: { id: string }) => r.id)).toEqual([testerRunId, scribeRunId, done.id, waiting.id]);
    const graphLineage = await t.graphql(
      `query ($id: ID!) {
        run(id: $id) { lineage parentRunId thread { origin subagent } parent { lineage parent { lineage parent { lineage } } } }
      }`,
      { id: testerRunId },
    );
    expect(graphLineage.errors).toBeUndefined();
    expect(graphLineage.data.run).toEqual({
      lineage: 'subagent',
      parentRunId: scribeRunId,
      thread: { origin: 'subagent', subagent: 'tester' },
      parent: { lineage: 'subagent', parent: { lineage: 'resume', parent: { lineage: 'root' } } },
    });

    // ── a later run reads the files back with read_file ──
    const reader = await created('/api/v1/agents', {
      name: 'reader',
      config: {
        model: 'dev',
        platform_tools: { groups: ['files'], read_permission: 'allow', write_permission: 'deny' },
        model_settings: {
          script: [
            [
              call('plan', 'read_file', { path: 'notes/plan.md' }),
              call('stamp', 'read_file', { path: 'stamp.txt' }),
              call('inline', 'read_file', { path: 'from-inline.txt' }),
              call('hello', 'read_file', { path: 'hello.txt', mount: 'box' }),
              call('thread', 'read_file', { path: 'from-thread.txt', mount: 'box' }),
              call('skills', 'list_files', { path: '.skills', mount: 'box', depth: 3 }),
            ],
            [{ text: 'Read.' }],
          ],
        },
      },
    });
    const read = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: reader.id,
        input: { content: [{ type: 'text', text: 'What is there?' }] },
        environment_mounts: [{ environment_id: local.id }, { environment_id: box.id, name: 'box' }],
      },
    });
    expect(read.status, JSON.stringify(read.body)).toBe(201);
    const readDone = await settleRun(t, read.body.id);
    expect(readDone.status, JSON.stringify(readDone.failure)).toBe('completed');
    const contents = Object.fromEntries(
      Object.entries(await resultsOf(readDone.id))
        .filter(([id]) => id !== 'skills')
        .map(([id, result]) => [id, result.result?.content ?? result.error]),
    );
    expect(contents).toEqual({
      plan: '# Plan\n\nShip it.\n',
      stamp: 'stamped by the skill in the workbench\n',
      inline: 'written by the inline subagent',
      hello: 'hello from the builder\n',
      thread: 'hello from the builder\nchecked in the container\n',
    });
    expect((await resultsOf(readDone.id)).skills.result.entries.map((e: { path: string }) => e.path)).toEqual([
      'release-notes',
      'release-notes/scripts',
      'release-notes/SKILL.md',
      'release-notes/scripts/stamp.sh',
    ]);
    // The same through GraphQL: the reader's items.
    const graphItems = await t.graphql(
      'query ($id: ID!) { run(id: $id) { status items(first: 100) { edges { node { kind content } } } } }',
      { id: readDone.id },
    );
    expect(graphItems.errors).toBeUndefined();
    const graphResults = graphItems.data.run.items.edges
      .map((e: { node: { kind: string; content: any } }) => e.node)
      .filter((n: { kind: string }) => n.kind === 'tool_result');
    expect(graphResults.find((n: { content: any }) => n.content.tool_call_id === 'thread').content.result.content).toBe(
      'hello from the builder\nchecked in the container\n',
    );

    // The environments name every run that worked in them.
    for (const environment of [local, box]) {
      const view = await get(`/api/v1/environments/${environment.id}`);
      expect(view.status).toBe('ready');
      expect([...view.run_ids].sort()).toEqual([waiting.id, done.id, scribeRunId, testerRunId, readDone.id].sort());
    }

    // ── another workspace sees none of it ──
    const threads = [waiting.thread_id, scribeRun.thread_id, testerRun.thread_id];
    const runs = [waiting.id, done.id, scribeRunId, testerRunId, readDone.id];
    const paths: [string, string][] = [
      ...[localProvider.id, dockerProvider.id].map((id): [string, string] => ['GET', `/api/v1/environment-providers/${id}`]),
      ...[localTemplate.id, dockerTemplate.id].map((id): [string, string] => ['GET', `/api/v1/environment-templates/${id}`]),
      ...[local.id, box.id].flatMap((id): [string, string][] => [
        ['GET', `/api/v1/environments/${id}`],
        ['POST', `/api/v1/environments/${id}/stop`],
        ['POST', `/api/v1/environments/${id}/start`],
        ['DELETE', `/api/v1/environments/${id}`],
      ]),
      ['GET', `/api/v1/skills/${skill.id}`],
      ...[builder.id, scribe.id, tester.id, reader.id].map((id): [string, string] => ['GET', `/api/v1/agents/${id}`]),
      ...runs.flatMap((id): [string, string][] => [
        ['GET', `/api/v1/runs/${id}`],
        ['GET', `/api/v1/runs/${id}/items`],
        ['GET', `/api/v1/runs/${id}/lineage`],
      ]),
      ...threads.map((id): [string, string] => ['GET', `/api/v1/threads/${id}`]),
      ['GET', `/api/v1/sessions/${waiting.session_id}`],
    ];
    for (const [method, path] of paths) {
      const response = await t.rest(method, path, { token: otherKey });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const foreignResume = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      token: otherKey,
      headers: { 'idempotency-key': 'foreign' },
      body: { approvals: {} },
    });
    expect(foreignResume.status).toBe(404);
    for (const id of [local.id, box.id, skill.id, ...runs, ...threads]) {
      const node = await t.graphql('query ($id: ID!) { node(id: $id) { id } }', { id }, { token: otherKey });
      expect(node.data.node, id).toBeNull();
    }
    // The other workspace's attempts changed nothing: both environments are still ready and the container runs.
    expect((await get(`/api/v1/environments/${box.id}`)).status).toBe('ready');
    expect(container.running).toBe(true);
  });
});
