// Two service instances on one database with REDIS_URL: a paired daemon's websocket lives on the
// front instance, while the back instance provisions its environment and runs the run that works in
// it — every device request is relayed through Redis to the instance holding the socket (streamed
// output and aborts too). When the daemon goes away, the back instance answers "not connected".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { redisReachable, redisUrl } from '../helpers/redis.js';
import { insertModel } from '../helpers/fixtures.js';
import { settleRun } from '../helpers/runs.js';
import { pairEnvd, startEnvd, type Daemon } from '../helpers/envd.js';
import { waitFor } from '../helpers/wait.js';
import { callContext, principalActor } from '../../src/services/call-context.js';
import { openEnvironment } from '../../src/features/environments/environments.js';

const available = await redisReachable();
if (!available) console.warn(`Redis not reachable at ${redisUrl}: multi-instance tests skipped (.ci/run provides Redis)`);

let front: TestApp;
let back: TestApp;
let redis: Redis;
let work: string;
let root: string;
let deviceId: string;
let daemon: Daemon;
beforeAll(async () => {
  if (!available) return;
  front = await startTestApp({ runWorkers: 0, redisUrl });
  back = await startTestApp({ runWorkers: 2, redisUrl }, front);
  redis = new Redis(redisUrl);
  await insertModel(front, 'dev');
  work = realpathSync(mkdtempSync(join(tmpdir(), 'wsa-envd-relay-')));
  root = join(work, 'root');
  mkdirSync(root);
  deviceId = await pairEnvd(front, 'relayed-box', join(work, 'device.json'));
  daemon = startEnvd(['serve', '--config', join(work, 'device.json'), '--root', root, '--allow-environments']);
  await daemon.waitFor(/connected to/);
  // The front instance records itself as the device's holder once it listens for relayed requests.
  await waitFor(
    () => redis.get(`wsa:device-holder:${deviceId}`),
    (holder) => holder !== null,
    'the device holder',
    10_000,
  );
});
afterAll(async () => {
  await daemon?.stop();
  redis?.disconnect();
  await back?.stop();
  await front?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!available)('envd environments across instances', () => {
  it('provision, run tools, stream and abort through the instance holding the socket', async () => {
    const provider = await back.rest('POST', '/api/v1/environment-providers', { body: { type: 'envd', name: 'Relayed' } });
    const tpl = await back.rest('POST', '/api/v1/environment-templates', {
      body: { name: 'relayed', provider_id: provider.body.id, config: { device_id: deviceId, root } },
    });
    expect(tpl.status, JSON.stringify(tpl.body)).toBe(201);
    const env = await back.rest('POST', '/api/v1/environments', { body: { template_id: tpl.body.id } });
    expect(env.body, JSON.stringify(env.body)).toMatchObject({
      status: 'ready',
      instance_id: join(root, '.wsa-environments', env.body.id),
    });
    expect(front.app.deps.config.runWorkers).toBe(0); // the run below executes on the back instance

    const agent = await front.rest('POST', '/api/v1/agents', {
      body: {
        name: 'relayed worker',
        config: {
          model: 'dev',
          model_settings: {
            script: [
              [{ tool_call: { id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'relayed\n' } } }],
              [{ tool_call: { id: 'c1', name: 'run_command', arguments: { command: 'cat a.txt; pwd' } } }],
              [{ text: 'Done.' }],
            ],
          },
          platform_tools: { groups: ['shell', 'files'], read_permission: 'allow', write_permission: 'allow' },
        },
      },
    });
    const started = await front.rest('POST', '/api/v1/runs', {
      body: {
        agent_id: agent.body.id,
        input: { content: [{ type: 'text', text: 'go' }] },
        environment_mounts: [{ environment_id: env.body.id }],
      },
    });
    const done = await settleRun(front, started.body.id);
    expect(done.status, JSON.stringify(done.failure)).toBe('completed');
    const items = (await front.rest('GET', `/api/v1/runs/${done.id}/items`)).body.items as any[];
    const results = Object.fromEntries(items.filter((i) => i.kind === 'tool_result').map((i) => [i.content.tool_call_id, i.content]));
    expect(results.w1.result).toEqual({ path: 'a.txt', size_bytes: 8 });
    expect(results.c1.result).toMatchObject({ exit_code: 0, stdout: `relayed\n${env.body.working_directory}\n` });
    expect(readFileSync(join(env.body.working_directory, 'a.txt'), 'utf8')).toBe('relayed\n');

    // Streamed output and an abort cross the relay too.
    const workspace = await openEnvironment(callContext(back.app.deps, principalActor(back.workspaceId, 'key_test'), null), env.body.id);
    const controller = new AbortController();
    const aborted = await workspace.exec({
      command: 'echo started; sleep 60',
      timeoutMs: 60_000,
      maxOutputBytes: 100,
      signal: controller.signal,
      onOutput: (_stream, chunk) => chunk.toString().includes('started') && controller.abort(),
    });
    expect(aborted).toMatchObject({ aborted: true, signal: 'SIGKILL', stdout: 'started\n' });

    // DELETE through the back instance removes the directory on the device.
    const destroyed = await back.rest('DELETE', `/api/v1/environments/${env.body.id}`);
    expect(destroyed.body.status).toBe('destroyed');
    expect(existsSync(env.body.instance_id)).toBe(false);

    // The daemon goes away: its holder record goes with the socket, and the back instance says so.
    const again = (await back.rest('POST', '/api/v1/environments', { body: { template_id: tpl.body.id } })).body;
    expect(again.status).toBe('ready');
    await daemon.stop();
    await waitFor(
      () => redis.get(`wsa:device-holder:${deviceId}`),
      (holder) => holder === null,
      'the holder record removed',
      10_000,
    );
    const offline = await back.rest('POST', `/api/v1/environments/${again.id}/stop`);
    expect([offline.status, offline.body.error.code, offline.body.error.message]).toEqual([
      409,
      'failed_precondition',
      expect.stringMatching(/not connected/),
    ]);
  });
});
