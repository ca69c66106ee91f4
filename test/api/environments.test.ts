// Environment templates and environments of the `local` type through the public API: the template
// lifecycle (ETags, no-ops, validation against the type's environment schema, disabling), the
// environment lifecycle (a real directory under DATA_DIR, stop, DELETE destroys it), maintenance
// under a disabled provider, the provider-type description, tenancy, permissions and audit — and a
// deployment without ALLOW_LOCAL_ENVIRONMENTS, which neither offers nor accepts the type.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, TEST_OUTBOUND_POLICY } from '../helpers/app.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { createApiKey, createWorkspace } from '../../src/features/access/admin.js';
import { localEnvironmentDriver } from '../../src/providers/environments/local.js';
import { RunEnvironments } from '../../src/engine/environment-mounts.js';
import { runCallContext } from '../../src/engine/run-context.js';
import { providerType } from '../../src/providers/index.js';

let t: TestApp;
let otherKey: string;
let otherWorkspaceId: string;
let readOnly: string;
let providerId: string;
beforeAll(async () => {
  t = await startTestApp({ allowLocalEnvironments: true });
  const other = await createWorkspace(t.app.deps, { name: 'B' });
  otherKey = other.apiKey.token;
  otherWorkspaceId = other.workspace.id;
  readOnly = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read' })).token;
  const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'This machine' } });
  expect(provider.status, JSON.stringify(provider.body)).toBe(201);
  providerId = provider.body.id;
});
afterAll(async () => {
  await t?.stop();
});

async function template(body: Record<string, unknown> = {}) {
  const response = await t.rest('POST', '/api/v1/environment-templates', {
    body: { name: 'Scratch', description: 'a scratch directory', provider_id: providerId, labels: { team: 'ops' }, ...body },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response;
}

async function environment(templateId: string) {
  const response = await t.rest('POST', '/api/v1/environments', { body: { template_id: templateId } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body;
}

async function auditOf(resourceId: string) {
  return (await t.rest('GET', `/api/v1/audit-events?resource_id=${resourceId}`)).body.items as { action: string; version: number }[];
}

describe('environment provider types', () => {
  it('describe the local type with its environment schema and capabilities', async () => {
    const types = await t.rest('GET', '/api/v1/provider-types/environment');
    const local = types.body.items.find((d: { type: string }) => d.type === 'local');
    expect(local).toMatchObject({
      kind: 'environment',
      supports_managed_instances: true,
      supports_stop: true,
      supports_start: true,
      supports_destroy: true,
      environment_schema: { type: 'object', properties: { working_directory: { type: 'string' }, env: { type: 'object' } } },
    });
    const graphql = await t.graphql(
      '{ providerTypes(kind: "environment") { type ... on EnvironmentProviderType { supportsStop supportsStart supportsDestroy supportsManagedInstances environmentSchema } } }',
    );
    expect(graphql.data.providerTypes.find((d: { type: string }) => d.type === 'local')).toMatchObject({
      supportsStop: true,
      supportsStart: true,
      supportsDestroy: true,
    });
  });
});

describe('environment templates', () => {
  it('are live resources: create, read with ETag, list with filters, PATCH with If-Match, no-op', async () => {
    const created = await template({ config: { working_directory: 'work', env: { GREETING: 'hello' } } });
    const id = created.body.id;
    expect(id).toMatch(/^ent_/);
    expect(created.body).toMatchObject({
      name: 'Scratch',
      provider_id: providerId,
      labels: { team: 'ops' },
      config: { working_directory: 'work', env: { GREETING: 'hello' } },
      enabled: true,
      version: 1,
    });
    expect(created.headers.get('etag')).toBe(`"${id}:1"`);
    const read = await t.rest('GET', `/api/v1/environment-templates/${id}`);
    expect(read.headers.get('etag')).toBe(`"${id}:1"`);

    expect((await t.rest('PATCH', `/api/v1/environment-templates/${id}`, { body: { name: 'x' } })).status).toBe(428);
    const patched = await t.rest('PATCH', `/api/v1/environment-templates/${id}`, {
      headers: { 'if-match': `"${id}:1"` },
      body: { name: 'Build box', config: { working_directory: 'src' } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Build box', config: { working_directory: 'src' }, version: 2 });
    const stale = await t.rest('PATCH', `/api/v1/environment-templates/${id}`, {
      headers: { 'if-match': `"${id}:1"` },
      body: { name: 'y' },
    });
    expect(stale.status).toBe(412);
    const noop = await t.rest('PATCH', `/api/v1/environment-templates/${id}`, {
      headers: { 'if-match': `"${id}:2"` },
      body: { name: 'Build box' },
    });
    expect(noop.body.version).toBe(2);
    expect((await auditOf(id)).map((e) => e.action).sort()).toEqual(['create', 'update']);

    const byQ = await t.rest('GET', '/api/v1/environment-templates?q=build');
    expect(byQ.body.items.map((x: { id: string }) => x.id)).toEqual([id]);
    expect((await t.rest('GET', '/api/v1/environment-templates?label=team:ops')).body.items.map((x: { id: string }) => x.id)).toContain(id);
    expect((await t.rest('GET', '/api/v1/environment-templates?label=team:dev')).body.items).toEqual([]);
    expect((await t.rest('GET', '/api/v1/environment-templates?enabled=false')).body.items).toEqual([]);
    const page = await t.rest('GET', '/api/v1/environment-templates?limit=1');
    expect(page.body.items).toHaveLength(1);
  });

  it('validate the provider, the config against the environment schema, and labels (at most 32)', async () => {
    const bad = async (body: Record<string, unknown>) =>
      t.rest('POST', '/api/v1/environment-templates', { body: { name: 'T', provider_id: providerId, ...body } });
    const unknownMember = await bad({ config: { image: 'node:20' } });
    expect(unknownMember.status).toBe(400);
    expect(unknownMember.body.error.details.field).toBe('config.image');
    expect((await bad({ config: { working_directory: 7 } })).body.error.details.field).toBe('config.working_directory');
    expect((await bad({ provider_id: 'prv_01J00000000000000000000000' })).status).toBe(404);
    const model = await t.rest('POST', '/api/v1/model-providers', { body: { type: 'development', name: 'not an environment provider' } });
    expect((await bad({ provider_id: model.body.id })).status).toBe(404);
    expect((await bad({ provider_id: undefined })).body.error.details.field).toBe('provider_id');
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect((await bad({ labels: labels(32) })).status).toBe(201);
    expect((await bad({ labels: labels(33) })).status).toBe(400);
  });

  it('when disabled refuse new environments with `disabled`', async () => {
    const created = await template();
    const disabled = await t.rest('PATCH', `/api/v1/environment-templates/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { enabled: false },
    });
    expect(disabled.body.enabled).toBe(false);
    const refused = await t.rest('POST', '/api/v1/environments', { body: { template_id: created.body.id } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('disabled');
  });
});

describe('environments', () => {
  it('are provisioned as a real directory, run real commands, stop, and are destroyed by DELETE (audited)', async () => {
    const tpl = (await template({ config: { working_directory: 'work', env: { GREETING: 'hello' } } })).body;
    const env = await environment(tpl.id);
    expect(env.id).toMatch(/^env_/);
    expect(env).toMatchObject({
      template_id: tpl.id,
      provider_id: providerId,
      name: 'Scratch',
      status: 'ready',
      instance_id: env.id,
      run_ids: [],
    });
    const root = join(t.app.deps.config.dataDir, 'environments', env.id);
    expect(env.working_directory).toBe(join(root, 'work'));
    expect(existsSync(env.working_directory)).toBe(true);

    // The driver other parts (run mounts, platform tools) work through: real subprocesses in the directory.
    const driverContext = {
      providerConfig: {},
      credential: null,
      environmentConfig: env.config,
      dataDir: t.app.deps.config.dataDir,
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    const result = await localEnvironmentDriver.exec(driverContext, instance, {
      command: 'echo "$GREETING" > greeting.txt && pwd && cat greeting.txt',
      timeoutMs: 10_000,
      maxOutputBytes: 1000,
    });
    expect(result).toMatchObject({ exitCode: 0, stdout: `${env.working_directory}\nhello\n`, timedOut: false });
    expect(readdirSync(env.working_directory)).toEqual(['greeting.txt']);

    const one = await t.rest('GET', `/api/v1/environments/${env.id}`);
    expect(one.headers.get('etag')).toBe(`"${env.id}:${env.version}"`);
    expect((await t.rest('GET', '/api/v1/environments?status=ready')).body.items.map((e: { id: string }) => e.id)).toContain(env.id);
    expect((await t.rest('GET', `/api/v1/environments?template_id=${tpl.id}`)).body.items.map((e: { id: string }) => e.id)).toEqual([
      env.id,
    ]);
    expect((await t.rest('GET', '/api/v1/environments?status=sleeping')).status).toBe(400);

    const stopped = await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect(existsSync(join(env.working_directory, 'greeting.txt'))).toBe(true);

    const destroyed = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(destroyed.status).toBe(200);
    expect(destroyed.body).toMatchObject({ status: 'destroyed', destroyed_at: expect.any(String) });
    expect(existsSync(root)).toBe(false);
    const again = await t.rest('DELETE', `/api/v1/environments/${env.id}`);
    expect(again.body.version).toBe(destroyed.body.version);
    expect((await auditOf(env.id)).map((e) => e.action).sort()).toEqual(['create', 'delete', 'stop']);
  });

  it('of a disabled provider are still maintained (stop, destroy), but no new one is made', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'To disable' } });
    const tpl = (await template({ provider_id: provider.body.id })).body;
    const first = await environment(tpl.id);
    const second = await environment(tpl.id);
    await t.rest('PATCH', `/api/v1/environment-providers/${provider.body.id}`, {
      headers: { 'if-match': provider.headers.get('etag')! },
      body: { enabled: false },
    });
    const refused = await t.rest('POST', '/api/v1/environments', { body: { template_id: tpl.id } });
    expect(refused.body.error.code).toBe('disabled');
    expect((await t.rest('POST', `/api/v1/environments/${first.id}/stop`)).body.status).toBe('stopped');
    expect((await t.rest('DELETE', `/api/v1/environments/${second.id}`)).body.status).toBe('destroyed');
    expect(existsSync(second.working_directory)).toBe(false);
  });

  it('answer 404 to another workspace, and refuse writes without `write`', async () => {
    const tpl = (await template()).body;
    const env = await environment(tpl.id);
    for (const [method, path] of [
      ['GET', `/api/v1/environment-templates/${tpl.id}`],
      ['PATCH', `/api/v1/environment-templates/${tpl.id}`],
      ['GET', `/api/v1/environments/${env.id}`],
      ['POST', `/api/v1/environments/${env.id}/stop`],
      ['POST', `/api/v1/environments/${env.id}/start`],
      ['DELETE', `/api/v1/environments/${env.id}`],
    ] as const) {
      const response = await t.rest(method, path, {
        token: otherKey,
        headers: { 'if-match': `"${tpl.id}:1"` },
        ...(method === 'PATCH' ? { body: { name: 'mine' } } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    const foreignUse = await t.rest('POST', '/api/v1/environments', { token: otherKey, body: { template_id: tpl.id } });
    expect(foreignUse.status).toBe(404);
    expect(foreignUse.body.error.details.field).toBe('template_id');
    const foreignTemplate = await t.rest('POST', '/api/v1/environment-templates', {
      token: otherKey,
      body: { name: 'T', provider_id: providerId },
    });
    expect(foreignTemplate.status).toBe(404);
    expect((await t.rest('GET', '/api/v1/environments', { token: otherKey })).body.items).toEqual([]);
    expect((await t.rest('GET', '/api/v1/environment-templates', { token: otherKey })).body.items).toEqual([]);
    expect((await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id: env.id }, { token: otherKey })).data.node).toBeNull();
    expect((await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id: env.id })).data.node).toEqual({ id: env.id });

    for (const [method, path, body] of [
      ['POST', '/api/v1/environment-templates', { name: 'T', provider_id: providerId }],
      ['PATCH', `/api/v1/environment-templates/${tpl.id}`, { name: 'T' }],
      ['POST', '/api/v1/environments', { template_id: tpl.id }],
      ['POST', `/api/v1/environments/${env.id}/stop`, undefined],
      ['POST', `/api/v1/environments/${env.id}/start`, undefined],
      ['DELETE', `/api/v1/environments/${env.id}`, undefined],
    ] as const) {
      const response = await t.rest(method, path, { token: readOnly, headers: { 'if-match': `"${tpl.id}:1"` }, body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.error.code).toBe('permission_denied');
    }
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`, { token: readOnly })).status).toBe(200);
  });
});

describe('starting a stopped environment', () => {
  it('brings it back ready with its files (audited `start`); a ready one is answered unchanged', async () => {
    const tpl = (await template({ config: { working_directory: 'work' } })).body;
    const env = await environment(tpl.id);
    const ctx = {
      providerConfig: {},
      credential: null,
      environmentConfig: env.config,
      dataDir: t.app.deps.config.dataDir,
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    await localEnvironmentDriver.writeFile(ctx, instance, 'kept.txt', 'still here');
    const stopped = (await t.rest('POST', `/api/v1/environments/${env.id}/stop`)).body;
    expect(stopped.status).toBe('stopped');

    const started = await t.rest('POST', `/api/v1/environments/${env.id}/start`);
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ status: 'ready', version: stopped.version + 1, working_directory: env.working_directory });
    expect(started.headers.get('etag')).toBe(`"${env.id}:${stopped.version + 1}"`);
    expect((await localEnvironmentDriver.readFile(ctx, instance, 'kept.txt', { maxBytes: 100 })).content.toString()).toBe('still here');
    // Ready again means runs can mount it.
    await insertModel(t, 'restart-model');
    const agent = await t.rest('POST', '/api/v1/agents', { body: { name: 'restarted', config: { model: 'restart-model' } } });
    const run = await t.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: agent.body.id,
        input: { content: [{ type: 'text', text: 'hi' }] },
        environment_mounts: [{ environment_id: env.id }],
      },
    });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    await settleRun(t, run.body.id);

    const again = await t.rest('POST', `/api/v1/environments/${env.id}/start`);
    expect([again.status, again.body.version]).toEqual([200, started.body.version]);
    const audit = await auditOf(env.id);
    expect(audit.map((e) => e.action).sort()).toEqual(['create', 'start', 'stop']);
    expect(audit.find((e) => e.action === 'start')).toMatchObject({ version: started.body.version });

    // GraphQL: the same operation.
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    const graphql = await t.graphql('mutation($id: ID!) { startEnvironment(id: $id) { environment { id status } } }', { id: env.id });
    expect(graphql.data.startEnvironment.environment).toEqual({ id: env.id, status: 'ready' });
  });

  it('refuses destroyed and failed environments, and a directory removed outside the service, with failed_precondition', async () => {
    const tpl = (await template()).body;
    const destroyed = await environment(tpl.id);
    await t.rest('DELETE', `/api/v1/environments/${destroyed.id}`);
    const refused = await t.rest('POST', `/api/v1/environments/${destroyed.id}/start`);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'failed_precondition']);
    expect(refused.body.error.message).toContain('is destroyed: only a stopped environment can be started');

    const failed = await environment(tpl.id);
    await t.app.deps.db.environment.update({ where: { id: failed.id }, data: { status: 'failed', failureMessage: 'no room' } });
    const notStopped = await t.rest('POST', `/api/v1/environments/${failed.id}/start`);
    expect([notStopped.status, notStopped.body.error.code]).toEqual([409, 'failed_precondition']);

    const gone = await environment(tpl.id);
    await t.rest('POST', `/api/v1/environments/${gone.id}/stop`);
    rmSync(join(t.app.deps.config.dataDir, 'environments', gone.id), { recursive: true });
    const missing = await t.rest('POST', `/api/v1/environments/${gone.id}/start`);
    expect([missing.status, missing.body.error.code]).toEqual([409, 'failed_precondition']);
    expect(missing.body.error.message).toContain('directory is gone');
    expect((await t.rest('GET', `/api/v1/environments/${gone.id}`)).body.status).toBe('stopped');
  });

  it('works while the provider and the template are disabled (maintenance)', async () => {
    const provider = await t.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'Paused machine' } });
    const created = await template({ provider_id: provider.body.id });
    const env = await environment(created.body.id);
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    await t.rest('PATCH', `/api/v1/environment-providers/${provider.body.id}`, {
      headers: { 'if-match': provider.headers.get('etag')! },
      body: { enabled: false },
    });
    await t.rest('PATCH', `/api/v1/environment-templates/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { enabled: false },
    });
    expect((await t.rest('POST', `/api/v1/environments/${env.id}/start`)).body.status).toBe('ready');
  });

  it('is refused for a type whose driver cannot start instances, and described as such', async () => {
    // The local type as a type whose driver has no `start` would be (hosted sandboxes that cannot
    // resume a stopped instance). Test files share their modules: the type is restored afterwards.
    const local = providerType('environment', 'local')!;
    const kept = local.environment!;
    const env = await environment((await template()).body.id);
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    const { start: _start, ...withoutStart } = localEnvironmentDriver;
    local.environment = { ...kept, driver: withoutStart };
    try {
      const types = await t.rest('GET', '/api/v1/provider-types/environment');
      expect(types.body.items.find((d: { type: string }) => d.type === 'local')).toMatchObject({
        supports_start: false,
        supports_stop: true,
      });
      const refused = await t.rest('POST', `/api/v1/environments/${env.id}/start`);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'failed_precondition']);
      expect(refused.body.error.message).toContain('the environment type local cannot start a stopped environment again');
    } finally {
      local.environment = kept;
    }
    expect((await t.rest('POST', `/api/v1/environments/${env.id}/start`)).body.status).toBe('ready');
  });
});

describe('a deployment without ALLOW_LOCAL_ENVIRONMENTS', () => {
  let plain: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('neither offers the local type nor makes local environments', async () => {
    const types = await plain.rest('GET', '/api/v1/provider-types/environment');
    expect(types.body.items.map((d: { type: string }) => d.type)).not.toContain('local');
    const refused = await plain.rest('POST', '/api/v1/environment-providers', { body: { type: 'local', name: 'nope' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('ALLOW_LOCAL_ENVIRONMENTS');
  });

  it('refuses new use of local templates made while it was allowed, and still destroys their environments', async () => {
    const tpl = (await template()).body;
    const env = await environment(tpl.id);
    // A second instance on the same database whose deployment does not allow local environments.
    const strict = await startTestApp({}, t);
    try {
      const refused = await strict.rest('POST', '/api/v1/environments', { body: { template_id: tpl.id } });
      expect([refused.status, refused.body.error.code]).toEqual([409, 'failed_precondition']);
      expect(refused.body.error.message).toContain('ALLOW_LOCAL_ENVIRONMENTS');
      // Starting a stopped one opens it to new work again: refused where the type is not offered.
      await strict.rest('POST', `/api/v1/environments/${env.id}/stop`);
      const notStarted = await strict.rest('POST', `/api/v1/environments/${env.id}/start`);
      expect([notStarted.status, notStarted.body.error.code]).toEqual([409, 'failed_precondition']);
      expect(notStarted.body.error.message).toContain('ALLOW_LOCAL_ENVIRONMENTS');
      const destroyed = await strict.rest('DELETE', `/api/v1/environments/${env.id}`);
      expect(destroyed.body.status).toBe('destroyed');
      expect(existsSync(env.working_directory)).toBe(false);
    } finally {
      await strict.stop();
    }
  });
});

describe('runs with environments', () => {
  let modelReady: Promise<unknown> | null = null;
  async function agentWith(config: Record<string, unknown>) {
    modelReady ??= insertModel(t, 'dev');
    await modelReady;
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'builder', config: { model: 'dev', model_settings: { script: [[{ text: 'Done.' }]] }, ...config } },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    return agent.body.id as string;
  }
  async function run(agentId: string) {
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'Build it.' }] } },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    return settleRun(t, started.body.id);
  }

  it('mount the default template’s environment at run start: the mount is in the run view, the environment ready', async () => {
    const tpl = (await template({ config: { working_directory: 'repo' } })).body;
    const done = await run(await agentWith({ default_environment_template_id: tpl.id }));
    expect(done.status).toBe('completed');
    expect(done.environment_mounts).toEqual([
      { environment_id: expect.stringMatching(/^env_/), name: 'default', working_directory: expect.any(String) },
    ]);
    const mount = done.environment_mounts[0];
    const env = (await t.rest('GET', `/api/v1/environments/${mount.environment_id}`)).body;
    expect(env).toMatchObject({ status: 'ready', template_id: tpl.id, working_directory: mount.working_directory, run_ids: [done.id] });
    expect(existsSync(mount.working_directory)).toBe(true);
    const graphql = await t.graphql('query($id: ID!) { run(id: $id) { environmentMounts { environmentId name workingDirectory } } }', {
      id: done.id,
    });
    expect(graphql.data.run.environmentMounts).toEqual([
      { environmentId: env.id, name: 'default', workingDirectory: env.working_directory },
    ]);
    const related = await t.graphql(
      'query($id: ID!) { environment(id: $id) { status template { id enabled } provider { type } runs { id status } } }',
      { id: env.id },
    );
    expect(related.data.environment).toEqual({
      status: 'ready',
      template: { id: tpl.id, enabled: true },
      provider: { type: 'local' },
      runs: [{ id: done.id, status: 'completed' }],
    });
  });

  it('with lazy_environment provision nothing until something needs the environment', async () => {
    const tpl = (await template()).body;
    const done = await run(await agentWith({ default_environment_template_id: tpl.id, lazy_environment: true }));
    expect(done.status).toBe('completed');
    expect(done.environment_mounts).toEqual([]);
    expect((await t.rest('GET', `/api/v1/environments?template_id=${tpl.id}`)).body.items).toEqual([]);
  });

  it('mount environments the caller names at the start (`environment_mounts`), checked for workspace and status', async () => {
    const tpl = (await template()).body;
    const env = await environment(tpl.id);
    const agentId = await agentWith({});
    const start = (environmentMounts: unknown, token?: string) =>
      t.rest('POST', '/api/v1/runs', {
        token,
        body: { agent_id: agentId, input: { content: [{ type: 'text', text: 'Build it.' }] }, environment_mounts: environmentMounts },
      });
    const started = await start([{ environment_id: env.id, working_directory: 'repo' }]);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    const done = await settleRun(t, started.body.id);
    expect(done.environment_mounts).toEqual([
      { environment_id: env.id, name: 'default', working_directory: `${env.working_directory}/repo` },
    ]);
    expect((await t.rest('GET', `/api/v1/environments/${env.id}`)).body.run_ids).toEqual([done.id]);

    const twice = await start([{ environment_id: env.id }, { environment_id: env.id, name: 'default' }]);
    expect([twice.status, twice.body.error.details.field]).toEqual([400, 'environment_mounts[1].name']);
    const escaping = await start([{ environment_id: env.id, working_directory: '../other' }]);
    expect([escaping.status, escaping.body.error.details.field]).toEqual([400, 'environment_mounts[0].working_directory']);
    const unknownMember = await start([{ environment_id: env.id, path: 'x' }]);
    expect(unknownMember.body.error.details.field).toBe('environment_mounts[0].path');
    const foreign = await start([{ environment_id: 'env_01J00000000000000000000000' }]);
    expect([foreign.status, foreign.body.error.details.field]).toEqual([404, 'environment_mounts[0].environment_id']);
    await t.rest('POST', `/api/v1/environments/${env.id}/stop`);
    const stopped = await start([{ environment_id: env.id }]);
    expect([stopped.status, stopped.body.error.code]).toEqual([409, 'failed_precondition']);
    // Another workspace cannot mount it.
    await insertModel(t, 'dev', { workspaceId: otherWorkspaceId });
    const otherAgent = await t.rest('POST', '/api/v1/agents', { token: otherKey, body: { name: 'other', config: { model: 'dev' } } });
    const fromOther = await t.rest('POST', '/api/v1/runs', {
      token: otherKey,
      body: {
        agent_id: otherAgent.body.id,
        input: { content: [{ type: 'text', text: 'hi' }] },
        environment_mounts: [{ environment_id: env.id }],
      },
    });
    expect([fromOther.status, fromOther.body.error.details.field]).toEqual([404, 'environment_mounts[0].environment_id']);
  });

  it('keep working in the parent’s environment after a resume', async () => {
    const tpl = (await template()).body;
    const agentId = await agentWith({
      default_environment_template_id: tpl.id,
      model_settings: { script: [[{ tool_call: { id: 'call_1', name: 'confirm', arguments: {} } }], [{ text: 'Done.' }]] },
      client_tools: [{ name: 'confirm', description: 'Asks the user', parameters_json_schema: { type: 'object', properties: {} } }],
    });
    const waiting = await run(agentId);
    expect(waiting).toMatchObject({ status: 'waiting', wait_reason: 'client_tool' });
    expect(waiting.environment_mounts).toHaveLength(1);
    const resumed = await t.rest('POST', `/api/v1/runs/${waiting.id}/resume`, {
      headers: { 'idempotency-key': `resume-${waiting.id}` },
      body: { calls: { call_1: { status: 'returned', value: { ok: true } } } },
    });
    expect(resumed.status, JSON.stringify(resumed.body)).toBeLessThan(300);
    const done = await settleRun(t, resumed.body.id);
    expect(done.status).toBe('completed');
    expect(done.environment_mounts).toEqual(waiting.environment_mounts);
    // One environment for both runs.
    expect((await t.rest('GET', `/api/v1/environments?template_id=${tpl.id}`)).body.items).toHaveLength(1);
    const env = (await t.rest('GET', `/api/v1/environments/${waiting.environment_mounts[0].environment_id}`)).body;
    expect(env.run_ids).toEqual([done.id, waiting.id]);
  });

  it('fail with `disabled` when the default template is disabled', async () => {
    const created = await template();
    const agentId = await agentWith({ default_environment_template_id: created.body.id });
    await t.rest('PATCH', `/api/v1/environment-templates/${created.body.id}`, {
      headers: { 'if-match': created.headers.get('etag')! },
      body: { enabled: false },
    });
    const done = await run(agentId);
    expect(done).toMatchObject({ status: 'failed', failure: { code: 'disabled' }, environment_mounts: [] });
  });
});

describe('the local driver (what the platform tools will call)', () => {
  async function opened() {
    const tpl = (await template()).body;
    const env = await environment(tpl.id);
    const ctx = {
      providerConfig: {},
      credential: null,
      environmentConfig: env.config,
      dataDir: t.app.deps.config.dataDir,
      fetch,
      outbound: TEST_OUTBOUND_POLICY,
    };
    const instance = { instanceId: env.instance_id, workingDirectory: env.working_directory };
    return { env, ctx, instance };
  }

  it('writes, reads and lists files, and keeps every path inside the environment', async () => {
    const { env, ctx, instance } = await opened();
    await localEnvironmentDriver.writeFile(ctx, instance, 'src/main.txt', 'hello world');
    const read = await localEnvironmentDriver.readFile(ctx, instance, 'src/main.txt', { maxBytes: 5 });
    expect({ text: read.content.toString(), size: read.sizeBytes, truncated: read.truncated }).toEqual({
      text: 'hello',
      size: 11,
      truncated: true,
    });
    const listed = await localEnvironmentDriver.listFiles(ctx, instance, '.', { depth: 3, limit: 10 });
    expect(listed.entries.map((e) => [e.path, e.kind])).toEqual([
      ['src', 'directory'],
      ['src/main.txt', 'file'],
    ]);
    for (const path of ['../outside.txt', '/etc/passwd', join(env.working_directory, '..', '..', 'x')])
      await expect(localEnvironmentDriver.readFile(ctx, instance, path, { maxBytes: 10 })).rejects.toMatchObject({
        reason: 'invalid_path',
      });
    // A symbolic link that leads out is refused too.
    await localEnvironmentDriver.exec(ctx, instance, { command: ['ln', '-s', '/etc', 'etc-link'], timeoutMs: 10_000, maxOutputBytes: 100 });
    await expect(localEnvironmentDriver.readFile(ctx, instance, 'etc-link/hostname', { maxBytes: 10 })).rejects.toMatchObject({
      reason: 'invalid_path',
    });
    await expect(localEnvironmentDriver.writeFile(ctx, instance, 'etc-link/x', 'no')).rejects.toMatchObject({ reason: 'invalid_path' });
    await expect(localEnvironmentDriver.readFile(ctx, instance, 'missing.txt', { maxBytes: 10 })).rejects.toMatchObject({
      reason: 'not_found',
    });
  });

  it('runs commands with exit codes, output limits, timeouts and an abort signal; a stop kills what runs', async () => {
    const { ctx, instance } = await opened();
    const failed = await localEnvironmentDriver.exec(ctx, instance, {
      command: 'echo oops >&2; exit 3',
      timeoutMs: 10_000,
      maxOutputBytes: 100,
    });
    expect(failed).toMatchObject({ exitCode: 3, stderr: 'oops\n', timedOut: false, truncated: false });
    const big = await localEnvironmentDriver.exec(ctx, instance, {
      command: 'head -c 5000 /dev/zero | tr "\\0" a',
      timeoutMs: 10_000,
      maxOutputBytes: 10,
    });
    expect(big).toMatchObject({ exitCode: 0, stdout: 'aaaaaaaaaa', stdoutBytes: 5000, truncated: true });
    const stdin = await localEnvironmentDriver.exec(ctx, instance, {
      command: ['cat'],
      stdin: 'piped',
      timeoutMs: 10_000,
      maxOutputBytes: 100,
    });
    expect(stdin.stdout).toBe('piped');
    const missing = await localEnvironmentDriver.exec(ctx, instance, {
      command: ['no-such-program-here'],
      timeoutMs: 10_000,
      maxOutputBytes: 100,
    });
    expect(missing.exitCode).toBe(127);
    // The service's own environment stays out of commands.
    const env = await localEnvironmentDriver.exec(ctx, instance, { command: 'env', timeoutMs: 10_000, maxOutputBytes: 100_000 });
    expect(env.stdout).not.toContain('DATABASE_URL');
    expect(env.stdout).toContain(`HOME=${join(t.app.deps.config.dataDir, 'environments', instance.instanceId)}`);

    const timedOut = await localEnvironmentDriver.exec(ctx, instance, { command: 'sleep 30', timeoutMs: 50, maxOutputBytes: 100 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null, signal: 'SIGKILL' });
    // Abort and stop reach a command that is running: each waits for the command's first output.
    const started = () => {
      let resolve!: () => void;
      const seen = new Promise<void>((done) => (resolve = done));
      return { seen, onOutput: () => resolve() };
    };
    const controller = new AbortController();
    const first = started();
    const aborted = localEnvironmentDriver.exec(ctx, instance, {
      command: 'echo started; sleep 30',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      signal: controller.signal,
      onOutput: first.onOutput,
    });
    await first.seen;
    controller.abort();
    expect(await aborted).toMatchObject({ aborted: true, exitCode: null, stdout: 'started\n' });
    const second = started();
    const running = localEnvironmentDriver.exec(ctx, instance, {
      command: 'echo started; sleep 30',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      onOutput: second.onOutput,
    });
    await second.seen;
    await localEnvironmentDriver.stop(ctx, instance);
    expect(await running).toMatchObject({ signal: 'SIGKILL', timedOut: false, aborted: false });
  });

  it('provisions a lazy run’s environment on first need and records the mount', async () => {
    const tpl = (await template()).body;
    await insertModel(t, 'lazy-model');
    const agent = await t.rest('POST', '/api/v1/agents', {
      body: { name: 'lazy', config: { model: 'lazy-model', default_environment_template_id: tpl.id, lazy_environment: true } },
    });
    const started = await t.rest('POST', '/api/v1/runs', {
      body: { agent_id: agent.body.id, input: { content: [{ type: 'text', text: 'hi' }] } },
    });
    const done = await settleRun(t, started.body.id);
    expect(done.environment_mounts).toEqual([]);
    // The first need, as a tool would have it: the run's environments open the default one.
    const row = await t.app.deps.db.run.findUniqueOrThrow({ where: { id: done.id } });
    const environments = new RunEnvironments({ deps: t.app.deps, call: runCallContext(t.app.deps, row), run: row }, tpl.id, []);
    const [first, second] = await Promise.all([environments.open(), environments.open()]);
    expect(first.environment.id).toBe(second.environment.id);
    const result = await first.exec({ command: 'pwd', timeoutMs: 10_000, maxOutputBytes: 1000 });
    expect(result.stdout.trim()).toBe(first.mount.working_directory);
    const after = (await t.rest('GET', `/api/v1/runs/${done.id}`)).body;
    expect(after.environment_mounts).toEqual([
      { environment_id: first.environment.id, name: 'default', working_directory: first.mount.working_directory },
    ]);
    expect((await t.rest('GET', `/api/v1/environments/${first.environment.id}`)).body).toMatchObject({
      status: 'ready',
      run_ids: [done.id],
    });
    await expect(first.readFile('../../x', { maxBytes: 10 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
