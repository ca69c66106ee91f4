// The browser's side of web push: the console's service worker (/sw.js), notification permission and
// the PushManager subscription, turned into the input the service stores.
import type { PushSubscriptionInput } from './queries';

/** Why this browser cannot receive pushes, or null when it can. */
export function unsupportedReason(): string | null {
  if (!window.isSecureContext) return 'Web push needs a secure page (HTTPS or localhost).';
  if (!('serviceWorker' in navigator)) return 'This browser has no service workers.';
  if (!('PushManager' in window)) return 'This browser has no web push.';
  if (!('Notification' in window)) return 'This browser cannot show notifications.';
  return null;
}

/** Registers the console's service worker (idempotent) and waits until it is active. */
export async function serviceWorkerRegistration(): Promise<ServiceWorkerRegistration> {
  await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  return navigator.serviceWorker.ready;
}

export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(value.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

function sameBytes(a: ArrayBuffer | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  const left = new Uint8Array(a);
  return left.every((byte, index) => byte === b[index]);
}

/**
 * Asks for permission and subscribes with the service's VAPID key. A subscription made for another key
 * (the service's key changed) is dropped first: pushes signed with the new key would be refused for it.
 */
export async function subscribeBrowser(publicKey: string): Promise<PushSubscription> {
  const permission = await Notification.requestPermission();
  if (permission !== 'granted')
    throw new Error(
      permission === 'denied'
        ? 'Notifications are blocked for this site in the browser settings.'
        : 'Notification permission was not given.',
    );
  const registration = await serviceWorkerRegistration();
  const applicationServerKey = base64UrlToBytes(publicKey);
  const existing = await registration.pushManager.getSubscription();
  if (existing) {
    if (sameBytes(existing.options.applicationServerKey, applicationServerKey)) return existing;
    await existing.unsubscribe();
  }
  return registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey });
}

/** The browser's current subscription, if it has one (without asking for anything). */
export async function currentBrowserSubscription(): Promise<PushSubscription | null> {
  const registration = await navigator.serviceWorker.getRegistration('/');
  return registration ? registration.pushManager.getSubscription() : null;
}

/** `PushSubscription.toJSON()` as the service takes it. */
export function subscriptionInput(subscription: PushSubscription): PushSubscriptionInput {
  const json = subscription.toJSON();
  const p256dh = json.keys?.p256dh;
  const auth = json.keys?.auth;
  if (!json.endpoint || !p256dh || !auth) throw new Error('The browser gave a push subscription without its keys.');
  return { endpoint: json.endpoint, expirationTime: json.expirationTime ?? null, keys: { p256dh, auth } };
}
