// What the service worker tells open pages: each push it shows ({type: 'push', payload}) and a changed
// subscription ({type: 'pushsubscriptionchange'}), so the page can list pushes and re-register.
import { useEffect, useRef } from 'react';

export interface WorkerMessage {
  type: string;
  payload?: unknown;
}

export function useServiceWorkerMessages(onMessage: (message: WorkerMessage) => void): void {
  const handler = useRef(onMessage);
  handler.current = onMessage;
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    const container = navigator.serviceWorker;
    const listener = (event: MessageEvent) => {
      const data = event.data as unknown;
      if (data && typeof data === 'object' && typeof (data as WorkerMessage).type === 'string') handler.current(data as WorkerMessage);
    };
    container.addEventListener('message', listener);
    // Messages wait in a queue until the page says it listens (addEventListener alone does not).
    container.startMessages();
    return () => container.removeEventListener('message', listener);
  }, []);
}
