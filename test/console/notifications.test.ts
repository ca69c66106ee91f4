// The console's notifications section in a real browser: web-push opt-in through the real service worker
// and the real service. Headless Chromium cannot reach a browser push service (FCM) on this closed
// network, so the test stands in for that boundary only: PushManager.subscribe answers a subscription of
// the loopback push service (an RFC 8030/8291/8292 peer that verifies VAPID and decrypts), after checking
// the page passed the service's VAPID key; and the push service's "delivery to the browser" is done by
// the Chrome DevTools Protocol (ServiceWorker.deliverPushMessage) into the console's real service worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { TestApp } from '../helpers/app.js';
import { browserAvailable, screenshot, signInWithApiKey, type ConsoleBrowser } from '../helpers/browser.js';
import { startConsoleTestApp, type ConsoleTestApp } from '../helpers/console.js';
import { startPushService, type PushService } from '../helpers/push-service.js';
import { waitFor } from '../helpers/wait.js';

let app: ConsoleTestApp;
let t: TestApp;
let push: PushService;
let browser: ConsoleBrowser;

/**
 * Runs in the page before the console: PushManager's subscribe/getSubscription answer the loopback push
 * service's subscription (kept in sessionStorage, as the browser keeps its own across reloads).
 */
function standInPushManager() {
  const STORE = 'loopback-push-subscription';
  const toBase64Url = (bytes: Uint8Array) =>
    btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
  const fromBase64Url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)).buffer;
  interface Stored {
    endpoint: string;
    keys: { p256dh: string; auth: string };
    applicationServerKey: string;
  }
  const make = (stored: Stored) => ({
    endpoint: stored.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true, applicationServerKey: fromBase64Url(stored.applicationServerKey) },
    getKey: (name: 'p256dh' | 'auth') => fromBase64Url(stored.keys[name]),
    toJSON: () => ({ endpoint: stored.endpoint, expirationTime: null, keys: stored.keys }),
    async unsubscribe() {
      sessionStorage.removeItem(STORE);
      await (window as any).loopbackPushUnsubscribed(stored.endpoint);
      return true;
    },
  });
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    const key = options?.applicationServerKey;
    if (!options?.userVisibleOnly || !key)
      throw new DOMException('userVisibleOnly and applicationServerKey are required', 'NotAllowedError');
    const bytes =
      typeof key === 'string'
        ? new Uint8Array(fromBase64Url(key))
        : key instanceof ArrayBuffer
          ? new Uint8Array(key)
          : new Uint8Array(key.buffer, key.byteOffset, key.byteLength);
    const applicationServerKey = toBase64Url(bytes);
    const answer = (await (window as any).loopbackPushSubscribe(applicationServerKey)) as Omit<Stored, 'applicationServerKey'>;
    const stored = { ...answer, applicationServerKey };
    sessionStorage.setItem(STORE, JSON.stringify(stored));
    return make(stored) as unknown as PushSubscription;
  };
  PushManager.prototype.getSubscription = async function () {
    const stored = sessionStorage.getItem(STORE);
    return stored ? (make(JSON.parse(stored) as Stored) as unknown as PushSubscription) : null;
  };
}

/** Delivers pushes to the console's service worker as a browser's push service would, through the DevTools protocol. */
async function pushThroughDevtools(page: Page): Promise<{ send(data: unknown): Promise<void> }> {
  const session = await browser.context.newCDPSession(page);
  const scope = `${t.url}/`;
  const registrationId = new Promise<string>((resolve) =>
    session.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const found = registrations.find((registration) => registration.scopeURL === scope && !registration.isDeleted);
      if (found) resolve(found.registrationId);
    }),
  );
  await session.send('ServiceWorker.enable');
  const id = await registrationId;
  return {
    async send(data) {
      await session.send('ServiceWorker.deliverPushMessage', { origin: t.url, registrationId: id, data: JSON.stringify(data) });
    },
  };
}

/**
 * A new tab with the stand-in PushManager, signed in at `/`: each subscription the page makes is one of
 * the loopback push service's (told to `onSubscribe` with the VAPID key the page passed), each
 * unsubscribe told to `onUnsubscribe`.
 */
async function pageWithLoopbackPush(
  onSubscribe: (applicationServerKey: string, subscription: ReturnType<PushService['subscribe']>) => void = () => undefined,
  onUnsubscribe: (endpoint: string) => void = () => undefined,
): Promise<Page> {
  const page = await browser.context.newPage();
  await page.exposeFunction('loopbackPushSubscribe', (applicationServerKey: string) => {
    const subscription = push.subscribe();
    onSubscribe(applicationServerKey, subscription);
    return { endpoint: subscription.endpoint, keys: subscription.keys };
  });
  await page.exposeFunction('loopbackPushUnsubscribed', (endpoint: string) => void onUnsubscribe(endpoint));
  await page.addInitScript(standInPushManager);
  await page.goto('/');
  await signInWithApiKey(page, t.apiKey);
  return page;
}

describe.skipIf(!browserAvailable)('the console: notifications', () => {
  beforeAll(async () => {
    push = await startPushService();
    // The service trusts the loopback push service's throw-away CA (PUSH_CA_FILE).
    app = await startConsoleTestApp({ pushCaFile: push.caFile });
    ({ t, browser } = app);
  });
  afterAll(async () => {
    await app?.stop();
    await push?.stop();
  });

  it('opts in, sends a test the push service decrypts, lists pushes the service worker gets, and opts out', async () => {
    const vapidKey = (await t.graphql(`{ pushConfiguration { publicKey } }`)).data.pushConfiguration.publicKey as string;
    const keysPassed: string[] = [];
    const unsubscribed: string[] = [];
    let browserSubscription: { endpoint: string; keys: { p256dh: string; auth: string } } | undefined;
    const page = await pageWithLoopbackPush(
      (applicationServerKey, { endpoint, keys }) => {
        keysPassed.push(applicationServerKey);
        browserSubscription = { endpoint, keys };
      },
      (endpoint) => void unsubscribed.push(endpoint),
    );
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notifications' }).click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Notifications are off in this browser.' }).waitFor();
    expect(await page.getByText('run.waiting, run.failed, run.completed_after_wait, test').count()).toBe(1);

    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications are on in this browser.' }).waitFor();
    // The page subscribed with the service's VAPID key, and the service stored the subscription.
    expect(keysPassed).toEqual([vapidKey]);
    const thisBrowser = page.getByRole('region', { name: 'This browser' });
    const subscriptionId = (await thisBrowser.getByText(/^psb_/).textContent())!;
    expect(await thisBrowser.getByText(new URL(push.url).host).count()).toBe(1);
    await screenshot(page, 'notifications-on');
    // The page records the user's activity (the service holds back run notifications meanwhile). The
    // same principal's upsert of the same subscription is a no-op that shows it.
    await waitFor(
      () =>
        t.graphql(
          `mutation ($input: PushSubscriptionInput!) { upsertPushSubscription(input: $input) { subscription { id lastActiveAt } } }`,
          { input: { ...browserSubscription, expirationTime: null } },
        ),
      (answer) => answer.data?.upsertPushSubscription.subscription.lastActiveAt !== null,
      'the activity heartbeat',
    ).then((answer) => expect(answer.data.upsertPushSubscription.subscription.id).toBe(subscriptionId));

    // A reload finds the browser's subscription and registers it again: the same one, no duplicate.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Notifications are on in this browser.' }).waitFor();
    expect(await thisBrowser.getByText(subscriptionId).count()).toBe(1);
    // The service's list has it once too, marked as this browser's.
    const listed = page.getByRole('table', { name: 'Your push subscriptions' });
    await listed
      .getByRole('row')
      .filter({ hasText: `${subscriptionId} (this browser)` })
      .waitFor();
    expect(await listed.getByRole('row').count()).toBe(2); // the header and this browser's
    expect(keysPassed).toHaveLength(1);

    // "Send a test": the service signs and encrypts it; the loopback push service verifies and decrypts.
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page.getByRole('status').filter({ hasText: 'Test sent: the push service accepted it (HTTP 201).' }).waitFor();
    const [received] = await push.waitFor(1);
    expect(push.failures).toEqual([]);
    expect(received!.vapidKey).toBe(vapidKey);
    expect(received!.payload).toMatchObject({ kind: 'test', workspace_id: t.workspaceId });

    // The push service hands the decrypted message to the browser: the console's service worker shows
    // it and tells the open page, which lists it.
    const devtools = await pushThroughDevtools(page);
    await devtools.send(received!.payload);
    const list = page.getByRole('status', { name: 'Received notifications' });
    await list.getByText(received!.payload.title).waitFor();
    await devtools.send({
      kind: 'run.waiting',
      title: 'Helper is waiting for an approval',
      body: 'Open the run to answer.',
      url: '/runs/run_123',
      tag: 'run-run_123',
    });
    await list.getByText('Helper is waiting for an approval').waitFor();
    expect(await list.getByRole('link', { name: 'Open Helper is waiting for an approval' }).getAttribute('href')).toBe('/runs/run_123');
    await screenshot(page, 'notifications-received');

    // Opting out deletes the service's subscription and the browser's.
    await page.getByRole('button', { name: 'Turn off notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications are off in this browser.' }).waitFor();
    expect(unsubscribed).toEqual([`${push.url}/push/${received!.token}`]);
    const gone = await t.graphql(`mutation ($id: String!) { testPushSubscription(id: $id) { delivered } }`, { id: subscriptionId });
    expect(gone.errors?.[0]?.extensions?.code).toBe('not_found');
    await page.close();
  });

  it('shows the service\u2019s refusal when the push service no longer knows the subscription', async () => {
    let token = '';
    const page = await pageWithLoopbackPush((_key, subscription) => (token = subscription.token));
    await page.goto('/notifications');
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications are on in this browser.' }).waitFor();
    push.answer(token, 410);
    await page.getByRole('button', { name: 'Send a test' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/HTTP 410.*subscription is gone/);
    await page.getByRole('status').filter({ hasText: 'Notifications are off in this browser.' }).waitFor();
    await page.close();
  });

  it('lists every subscription the service keeps for the user and removes a stale one and this browser\u2019s', async () => {
    // A browser the user no longer uses: its subscription is still on the service.
    const stale = push.subscribe();
    const staleRow = await t.rest('PUT', '/api/push/subscription', { body: { endpoint: stale.endpoint, keys: stale.keys } });
    expect(staleRow.status).toBe(200);
    const page = await pageWithLoopbackPush();
    await page.goto('/notifications');
    const listed = page.getByRole('table', { name: 'Your push subscriptions' });
    await listed.getByRole('row').filter({ hasText: staleRow.body.id }).waitFor();
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications are on in this browser.' }).waitFor();
    const mine = (await page.getByRole('region', { name: 'This browser' }).getByText(/^psb_/).textContent())!;
    await listed
      .getByRole('row')
      .filter({ hasText: `${mine} (this browser)` })
      .waitFor();
    await screenshot(page, 'notifications-subscriptions');

    // The stale one goes from the service and the list; this browser stays subscribed.
    await listed.getByRole('button', { name: `Remove subscription ${staleRow.body.id}` }).click();
    await listed.getByRole('row').filter({ hasText: staleRow.body.id }).waitFor({ state: 'detached' });
    const left = await t.rest('GET', '/api/push/subscriptions');
    expect(left.body.items.map((item: { id: string }) => item.id)).toEqual([mine]);
    expect(await page.getByRole('status').filter({ hasText: 'Notifications are on in this browser.' }).count()).toBe(1);

    // Removing this browser's turns notifications off here too.
    await listed.getByRole('button', { name: `Remove subscription ${mine}` }).click();
    await page.getByRole('status').filter({ hasText: 'Notifications are off in this browser.' }).waitFor();
    await page.getByText('The service keeps no subscription for you.').waitFor();
    expect((await t.rest('GET', '/api/push/subscriptions')).body.items).toEqual([]);
    await page.close();
  });
});
