// The webhooks pages in a real browser against a loopback receiver: create a subscription (its secret
// shown once, and it signs what arrives), send a test event and watch its delivery settle live (the
// page follows webhookDeliveryUpdated; nothing is read again), read the
// delivery's request and answers, redeliver it (the same webhook-id arrives again), rotate the secret,
// edit, see a failing receiver's delivery under the "failed" filter, and delete behind a confirmation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { browserAvailable, screenshot, signInWithApiKey, type ConsoleBrowser } from '../helpers/browser.js';
import { createApiKey } from '../../src/features/access/admin.js';
import { startWebhookReceiver, verifyHook, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { dueDeliveryFollowers } from '../../src/features/webhooks/webhook-delivery-watch.js';

let app: ConsoleTestApp;
let t: TestApp;
let browser: ConsoleBrowser;
let receiver: WebhookReceiver;

describe.skipIf(!browserAvailable)('the webhooks pages', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    app = await startConsoleTestApp({
      allowPlainHttpEndpoints: ['127.0.0.1'],
      // The receiver is on loopback: allowed by name, as a deployment would allow its own receivers.
      outboundAllowPrivate: ['127.0.0.1'],
      // Short retries, so a failing receiver's delivery runs out of attempts within the test.
      webhookRetryDelaysMs: [20, 20],
      webhookTimeoutMs: 2_000,
    });
    ({ t, browser } = app);
  });
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it('creates a subscription, tests it, reads and redelivers the delivery, rotates, edits and deletes', async () => {
    const page = await app.signedIn('/');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();

    // No event kind: the service refuses, and the form says why.
    const form = page.getByRole('form', { name: 'New subscription' });
    await form.getByLabel('Target URL').fill(receiver.url);
    await form.getByRole('button', { name: 'Create subscription' }).click();
    await expect(form.getByRole('alert').textContent()).resolves.toMatch(/Could not create the subscription: .*\(invalid_argument\)/);

    await form.getByRole('group', { name: 'Event kinds' }).getByLabel('connection.changed').check();
    // The kinds offered are the service's list (GET /api/v1/webhook-event-kinds), each described by it.
    const kinds = (await t.rest('GET', '/api/v1/webhook-event-kinds')).body.items as { kind: string; description: string }[];
    const group = form.getByRole('group', { name: 'Event kinds' });
    expect(await group.getByRole('checkbox').count()).toBe(kinds.length);
    const describedBy = await group.getByLabel('connection.changed').getAttribute('aria-describedby');
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.toBe(
      kinds.find((kind) => kind.kind === 'connection.changed')!.description,
    );
    await form.getByLabel('Description').fill('ops receiver');
    await form.getByRole('button', { name: 'Create subscription' }).click();
    const secretNotice = page.getByRole('status').filter({ hasText: 'Signing secret' });
    const secret = /whsec_\S+/.exec((await secretNotice.textContent()) ?? '')?.[0];
    expect(secret).toBeTruthy();
    await page.getByRole('table', { name: 'Webhook subscriptions' }).getByRole('link', { name: receiver.url }).waitFor();
    await screenshot(page, 'webhooks-created');

    await page.getByRole('link', { name: 'Open the new subscription' }).click();
    await page.getByRole('heading', { name: 'Webhook subscription', level: 1 }).waitFor();
    // The secret is never shown again.
    expect(await page.content()).not.toContain(secret!);

    // The page follows the subscription's deliveries (webhookDeliveryUpdated) from the moment it opens.
    const subscriptionId = /\/webhooks\/(whs_\w+)/.exec(page.url())![1]!;
    await waitFor(
      async () => dueDeliveryFollowers(t.app.deps, subscriptionId),
      (count) => count >= 1,
      'the page to follow the deliveries',
    );
    // Every delivery read the page makes from now on.
    const reads: string[] = [];
    page.on('request', (request) => {
      const operation = /"operationName":"(ConsoleWebhookDeliver(?:y|ies))"/.exec(request.postData() ?? '')?.[1];
      if (operation) reads.push(operation);
    });

    // A test event arrives at the receiver, signed with the secret shown at creation; the receiver
    // holds its answer until the page has shown the delivery pending.
    let answer!: (plan: { status: number }) => void;
    receiver.plan.push({ gate: new Promise((resolve) => (answer = resolve)) });
    // The button reads the list again once (the delivery it queued); wait for that read to be answered.
    const listRead = page.waitForResponse((response) =>
      /"operationName":"ConsoleWebhookDeliveries"/.test(response.request().postData() ?? ''),
    );
    await page.getByRole('button', { name: 'Send test event' }).click();
    await listRead;
    const ping = await receiver.waitFor((hook) => hook.json.type === 'webhook.ping', 'the ping');
    expect(() => verifyHook(secret!, ping)).not.toThrow();
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const pingRow = deliveries.getByRole('row').filter({ hasText: 'webhook.ping' });
    await pingRow.filter({ hasText: 'pending' }).waitFor();
    // The status changes on screen live: no reload, no read of the deliveries after the one the test
    // event's button asked for.
    const readsBefore = reads.length;
    answer({ status: 204 });
    await pingRow.filter({ hasText: 'succeeded' }).waitFor();
    expect(reads.slice(readsBefore)).toEqual([]);
    await pingRow.getByRole('button', { name: /Details/ }).click();
    const details = page.getByRole('region', { name: /^Delivery whd_/ });
    await details.getByRole('status').filter({ hasText: 'succeeded' }).waitFor();
    await details.getByText(ping.headers['webhook-id']!).waitFor();
    await expect.poll(() => details.getByRole('table', { name: 'Attempts' }).getByRole('row').count(), { timeout: 20_000 }).toBe(2);
    await screenshot(page, 'webhooks-delivery');

    // Redeliver: the same event (same webhook-id) arrives again, and the delivery settles again.
    await details.getByRole('button', { name: 'Redeliver' }).click();
    await details.getByRole('status').filter({ hasText: 'Redelivery queued' }).waitFor();
    const again = await receiver.waitForCount((hook) => hook.headers['webhook-id'] === ping.headers['webhook-id'], 2, 'the redelivery');
    expect(again[1]!.body).toBe(ping.body);
    await expect.poll(() => details.getByRole('table', { name: 'Attempts' }).getByRole('row').count(), { timeout: 20_000 }).toBe(3);
    await details.getByRole('status').filter({ hasText: 'succeeded' }).waitFor();
    await details.getByRole('button', { name: 'Close details' }).click();

    // Rotate the secret: the new one is shown once, and the next test event is signed with it.
    await page.getByLabel('Overlap (seconds)').fill('0');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate' }).click();
    const rotated = /whsec_\S+/.exec((await page.getByRole('status').filter({ hasText: 'A new signing secret' }).textContent()) ?? '')?.[0];
    expect(rotated).toBeTruthy();
    expect(rotated).not.toBe(secret);

    // Edit: another kind and a new description.
    const edit = page.getByRole('form', { name: 'Edit subscription' });
    await edit.getByRole('group', { name: 'Event kinds' }).getByLabel('environment.changed').check();
    await edit.getByLabel('Description').fill('ops receiver, environments too');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByText('connection.changed, environment.changed').waitFor();

    // A receiver that fails: the delivery runs out of attempts and shows under "failed".
    receiver.fallback = { status: 500, body: 'receiver down' };
    await page.getByRole('button', { name: 'Send test event' }).click();
    const second = await receiver.waitForCount(
      (hook) => hook.json.type === 'webhook.ping' && hook.headers['webhook-id'] !== ping.headers['webhook-id'],
      3,
      'the failing ping',
    );
    expect(() => verifyHook(rotated!, second[0]!)).not.toThrow();
    // The delivery's attempts arrive live until it fails for good.
    await deliveries.getByRole('row').filter({ hasText: 'failed' }).waitFor();
    await page.getByLabel('Delivery status').selectOption('failed');
    await page.waitForURL(/status=failed/);
    await deliveries.getByRole('row').filter({ hasText: 'failed' }).waitFor();
    await expect.poll(() => deliveries.getByRole('row').count(), { timeout: 20_000 }).toBe(2);
    await deliveries.getByRole('button', { name: /Details/ }).click();
    await details.getByText('receiver down').first().waitFor();
    await screenshot(page, 'webhooks-subscription');
    receiver.fallback = { status: 204 };

    // Delete, behind a confirmation.
    await page.getByRole('button', { name: 'Delete subscription' }).click();
    await page.getByRole('dialog', { name: 'Delete this subscription?' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No subscriptions match.').waitFor();
    expect((await t.rest('GET', '/api/v1/webhook-subscriptions')).body.items).toEqual([]);
    await page.close();
  });

  it('shows the service’s refusal to a key without admin', async () => {
    const writer = (await createApiKey(t.app.deps, { workspaceId: t.workspaceId, permissions: 'read,write' })).token;
    const page = await browser.open('/webhooks');
    await signInWithApiKey(page, writer);
    await expect(page.getByRole('alert').first().textContent()).resolves.toMatch(/permission_denied/);
    await page.close();
  });
});
