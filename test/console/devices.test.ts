// The console's devices section in a real browser: the real envd daemon asks to pair, the user looks the
// challenge up by its user code and approves it, the daemon's poll collects its credential; the device
// serves its directories to the device page; it is revoked from there (with a confirmation). A second
// request, made through the public API as a daemon makes it, is rejected and its poll says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot } from '../helpers/browser.js';
import { startEnvd, type Daemon } from '../helpers/envd.js';
import { waitFor } from '../helpers/wait.js';

let app: ConsoleTestApp;
let t: TestApp;
let work: string;
let root: string;
const daemons: Daemon[] = [];

function envd(args: string[]): Daemon {
  const daemon = startEnvd(args);
  daemons.push(daemon);
  return daemon;
}

describe.skipIf(!browserAvailable)('the console: devices', () => {
  beforeAll(async () => {
    app = await startConsoleTestApp();
    ({ t } = app);
    work = realpathSync(mkdtempSync(join(tmpdir(), 'wsa-console-devices-')));
    root = join(work, 'projects');
    for (const dir of [join(root, 'app', 'src'), join(root, 'docs')]) mkdirSync(dir, { recursive: true });
  });
  afterAll(async () => {
    await Promise.all(daemons.map((daemon) => daemon.stop()));
    await app?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('approves a daemon found by its user code, browses its directories and revokes it', async () => {
    const configFile = join(work, 'build-box.json');
    // Unaddressed (no --workspace): only someone who knows the printed code can find it.
    const pairing = envd(['pair', '--server', t.url, '--name', 'build-box', '--config', configFile]);
    const [, , userCode] = await pairing.waitFor(/pairing (pai_\w+) user code ([A-Z0-9-]+)/);

    const page = await app.signedIn('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Devices' }).click();
    await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor();
    await page.getByText('No pairing request is waiting for this workspace.').waitFor();
    await page.getByText('No device is paired with this workspace yet.').waitFor();

    // A malformed code is the service's 422, shown as an alert.
    await page.getByLabel('User code').fill('12-34');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/invalid_argument|user_code|user code/i);

    // Any case works: the user types what the daemon printed.
    await page.getByLabel('User code').fill(userCode!.toLowerCase());
    await page.getByRole('button', { name: 'Look up' }).click();
    const card = page.getByRole('article', { name: 'build-box' });
    await card.waitFor();
    const cardText = await card.textContent();
    expect(cardText).toContain(userCode);
    expect(cardText).toContain(`${process.platform}-${process.arch}`);
    expect(cardText).toMatch(/SHA256:/);
    expect(cardText).toContain('any workspace (found by its code)');
    await screenshot(page, 'devices-pairing');

    await card.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('status').filter({ hasText: 'Approved build-box' }).waitFor();
    // The daemon's next poll collected the credential and it wrote its file.
    expect(await pairing.exited).toBe(0);
    const deviceId = /paired as device (dev_\w+)/.exec(pairing.output())?.[1];
    expect(deviceId).toBeTruthy();
    const table = page.getByRole('table', { name: 'Paired devices' });
    await table.getByRole('row', { name: /build-box/ }).waitFor();
    expect(await table.getByRole('row', { name: /build-box/ }).textContent()).toMatch(/offline.*active/);

    // The daemon serves its directories; the device page browses them while it is online.
    const serve = envd(['serve', '--config', configFile, '--root', root]);
    await serve.waitFor(/connected to/);
    await waitFor(
      () => t.graphql(`query ($id: String!) { device(id: $id) { online } }`, { id: deviceId }),
      (answer) => answer.data?.device?.online === true,
      'the device online',
    );
    await page.getByRole('button', { name: 'Refresh' }).click();
    await table
      .getByRole('row', { name: /build-box/ })
      .filter({ hasText: 'online' })
      .waitFor();
    await screenshot(page, 'devices-list');
    await table.getByRole('link', { name: 'build-box' }).click();
    await page.getByRole('heading', { name: 'build-box', level: 1 }).waitFor();
    const roots = page.getByRole('table', { name: 'Roots' });
    // A root's name is its whole path on the device.
    await roots.getByRole('cell', { name: root, exact: true }).waitFor();
    await roots.getByRole('button', { name: `Open ${root}` }).click();
    const projects = page.getByRole('table', { name: `Subdirectories of ${root}` });
    await projects.getByRole('button', { name: 'Open app' }).click();
    await page
      .getByRole('table', { name: `Subdirectories of ${join(root, 'app')}` })
      .getByRole('button', { name: 'Open src' })
      .waitFor();
    await screenshot(page, 'devices-device');
    await page.getByRole('button', { name: 'Up' }).click();
    await projects.getByRole('button', { name: 'Open docs' }).waitFor();
    // Outside the daemon's roots: the service's refusal, not a blank page.
    await page.getByLabel('Path on the device').fill('/etc');
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/forbidden/);

    // Revoke, after a confirmation that starts on the safe choice and can be cancelled.
    await page.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke build-box?' });
    await dialog.waitFor();
    await expect(dialog.getByRole('button', { name: 'Cancel' }).evaluate((button) => button === document.activeElement)).resolves.toBe(
      true,
    );
    await screenshot(page, 'devices-revoke');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await t.graphql(`query ($id: String!) { device(id: $id) { status } }`, { id: deviceId })).data.device.status).toBe('active');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await dialog.getByRole('button', { name: 'Revoke device' }).click();
    await page.getByRole('status').filter({ hasText: 'Revoked build-box' }).waitFor();
    await page.getByText('This device is revoked: it can no longer connect.').waitFor();
    // The daemon's connection was closed and its credential refused (exit code 4).
    expect(await serve.exited).toBe(4);
    await page.getByRole('link', { name: '← Devices' }).click();
    await table
      .getByRole('row', { name: /build-box/ })
      .filter({ hasText: 'revoked' })
      .waitFor();
    await page.close();
  });

  it('rejects a pairing addressed to the workspace; the device hears it on its next poll', async () => {
    // What a daemon sends (src/envd/cli.ts), through the public, unauthenticated mutation.
    const publicKey = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const requested = await t.graphql(
      `mutation ($input: PairingRequestInput!) { requestDevicePairing(input: $input) { pairingId userCode pollSecret } }`,
      { input: { deviceName: 'unknown-laptop', platform: 'darwin-arm64', publicKey, workspaceId: t.workspaceId } },
      { token: null },
    );
    const { userCode, pollSecret } = requested.data.requestDevicePairing;
    const poll = async () =>
      (
        await t.graphql(
          `mutation ($s: String!) { pollDevicePairing(pollSecret: $s) { status deviceCredential } }`,
          { s: pollSecret },
          { token: null },
        )
      ).data.pollDevicePairing;
    expect(await poll()).toEqual({ status: 'pending', deviceCredential: null });

    const page = await app.signedIn('/');
    await page.goto('/devices');
    // Addressed to this workspace: listed without its code.
    const card = page.getByRole('article', { name: 'unknown-laptop' });
    await card.waitFor();
    expect(await card.textContent()).toContain(userCode);
    expect(await card.textContent()).toContain('this workspace');
    await card.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('status').filter({ hasText: 'Rejected the pairing of unknown-laptop' }).waitFor();
    await card.waitFor({ state: 'detached' });
    expect(await poll()).toEqual({ status: 'rejected', deviceCredential: null });
    // A device that never paired is not listed.
    expect(
      await page
        .getByRole('table', { name: 'Paired devices' })
        .getByRole('row', { name: /unknown-laptop/ })
        .count(),
    ).toBe(0);
    // A device that does not exist (or is another workspace's): the service's answer, not a blank page.
    await page.goto('/devices/dev_00000000000000000000000000');
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/not_found/);
    await page.close();
  });
});
