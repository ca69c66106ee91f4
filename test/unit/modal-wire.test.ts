// The loopback Modal server (test/helpers/modal-server.ts) checked against Modal's official
// JavaScript SDK (the `modal` package, a development dependency only): the SDK, pointed at the
// loopback server, authenticates, gets an app, builds an image, creates a sandbox, runs a command in
// it through the command router (standard input, both outputs, the exit code) and terminates it.
// Both sides encode with their own definitions — the SDK with the ones generated from Modal's protos,
// the server with the service's proto subset — so this proves that the subset (which the driver uses
// too) matches Modal's wire format for every call the driver makes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModalServer, type ModalServer } from '../helpers/modal-server.js';

let modal: ModalServer;
let sdk: typeof import('modal');
const SDK_VARIABLES = ['MODAL_CONFIG_PATH', 'MODAL_SERVER_URL', 'MODAL_SANDBOX_V2'] as const;
const saved = Object.fromEntries(SDK_VARIABLES.map((name) => [name, process.env[name]]));
beforeAll(async () => {
  modal = await startModalServer({ tokens: { 'ak-sdk': 'as-sdk' }, buildable: ['alpine:3.20'] });
  // The SDK reads its server and its sandbox flavour from the environment when a client is made and
  // its profile file when it is imported: this test's process points both at the loopback server.
  process.env.MODAL_CONFIG_PATH = '/nonexistent/modal.toml';
  process.env.MODAL_SERVER_URL = modal.url;
  process.env.MODAL_SANDBOX_V2 = '0';
  sdk = await import('modal');
});
afterAll(async () => {
  // Test files share their worker process: the environment goes back as it was.
  for (const name of SDK_VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  await modal?.close();
});

describe("Modal's own SDK against the loopback server", () => {
  it('makes an app, an image and a sandbox, runs a command in it and terminates it', async () => {
    const client = new sdk.ModalClient({ tokenId: 'ak-sdk', tokenSecret: 'as-sdk', environment: 'dev', logLevel: 'error' });
    const app = await client.apps.fromName('sdk-app', { createIfMissing: true });
    expect(modal.apps.get('dev/sdk-app')).toBe(app.appId);
    const image = client.images.fromRegistry('alpine:3.20');
    const sandbox = await client.sandboxes.create(app, image, { cpu: 0.25, memoryMiB: 256, timeoutMs: 600_000 });
    const created = modal.sandboxes.get(sandbox.sandboxId)!;
    expect(created.definition).toMatchObject({ resources: { milli_cpu: 250, memory_mb: 256 }, timeout_secs: 600 });

    const process = await sandbox.exec(['sh', '-c', 'read line; echo "got $line"; echo err >&2; exit 4']);
    await process.stdin.writeText('hello\n');
    await process.stdin.close();
    const [stdout, stderr, code] = await Promise.all([process.stdout.readText(), process.stderr.readText(), process.wait()]);
    expect([stdout, stderr, code]).toEqual(['got hello\n', 'err\n', 4]);
    expect(modal.lastRequest.get('TaskExecStart')).toMatchObject({
      task_id: created.taskId,
      command_args: ['sh', '-c', expect.stringContaining('read line')],
      stdout_config: 1,
      stderr_config: 1,
    });

    await sandbox.terminate();
    expect(created.running).toBe(false);
    expect(modal.calls).toEqual(
      expect.arrayContaining([
        'AuthTokenGet',
        'AppGetOrCreate',
        'EnvironmentGetOrCreate',
        'ImageGetOrCreate',
        'ImageJoinStreaming',
        'SandboxCreate',
        'SandboxGetTaskId',
        'TaskGetCommandRouterAccess',
        'TaskExecStart',
        'TaskExecStdinWrite',
        'TaskExecStdioRead',
        'SandboxTerminate',
      ]),
    );
  });

  it('is refused with a wrong token, as Modal refuses it', async () => {
    const client = new sdk.ModalClient({ tokenId: 'ak-sdk', tokenSecret: 'as-wrong', logLevel: 'error' });
    await expect(client.apps.fromName('sdk-app', { createIfMissing: true })).rejects.toThrow(/Token ID or secret is invalid/);
  });
});
