// The console's service worker: shows the service's web-push notifications (a run waiting for an
// approval, an answer or a client tool result; a run that failed or completed after a wait) and opens
// the run when one is clicked. It caches nothing: the console always talks to the live service.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
  let payload;
  try {
    payload = event.data ? event.data.json() : {};
  } catch {
    payload = { title: event.data ? event.data.text() : 'Notification' };
  }
  const title = typeof payload.title === 'string' && payload.title ? payload.title : 'Workspace agent service';
  const options = {
    body: typeof payload.body === 'string' ? payload.body : '',
    tag: typeof payload.tag === 'string' ? payload.tag : undefined,
    data: payload,
    icon: '/favicon.svg',
  };
  event.waitUntil(
    Promise.allSettled([
      self.registration.showNotification(title, options),
      // Open console pages hear of it too (the notifications page lists it), even when the browser
      // cannot show the notification itself.
      tellPages({ type: 'push', payload }),
    ]),
  );
});

// The browser replaced the subscription (expiry, key rotation): an open console page registers the new
// one with the service (the worker has no credential of its own to do it).
self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(tellPages({ type: 'pushsubscriptionchange' }));
});

async function tellPages(message) {
  const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const page of pages) page.postMessage(message);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = event.notification.data && typeof event.notification.data.url === 'string' ? event.notification.data.url : '/';
  // Only this origin's pages: a payload cannot send the user elsewhere.
  const target = new URL(url, self.location.origin);
  if (target.origin !== self.location.origin) return;
  event.waitUntil(
    (async () => {
      const pages = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      for (const page of pages) {
        if ('focus' in page) {
          await page.focus();
          if ('navigate' in page) await page.navigate(target.href);
          return;
        }
      }
      await self.clients.openWindow(target.href);
    })(),
  );
});
