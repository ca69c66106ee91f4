// Following a thread: the threadUpdated subscription. The services announce every committed change
// of a thread's row or inbox on the event bus (`threadChanged`, through Redis with REDIS_URL, so a
// change made by another instance or worker is heard too); a follower reads the thread once when it
// starts and once more after each burst of announcements — never on a timer.
import type { Thread } from '../../generated/prisma/client.js';
import { onReconnected, subscriptionsActive } from '../../lib/events.js';
import { closableStream, onClose } from '../../lib/closable-stream.js';
import { listenTo } from '../../services/event-topics.js';
import type { CallContext } from '../../services/call-context.js';
import { getThread } from './threads.js';
import { Wakeup } from '../../lib/wakeup.js';

/**
 * Emits the thread as it is now, then as it is after each announced change, until the client
 * leaves. Listens before the first read, so nothing committed after that read is missed;
 * announcements heard while a read is under way are answered by one more read, not one each.
 * Another workspace's thread is not found, as `thread(id)` answers it.
 */
export function watchThread(call: CallContext, threadId: string): AsyncGenerator<Thread, void, undefined> {
  return closableStream(async function* (closed) {
    let pending = false;
    const wakeup = new Wakeup();
    const { wake } = wakeup;
    const announced = () => {
      pending = true;
      wake();
    };
    // Back after a Redis outage: announcements made meanwhile may be lost, so the thread is read again.
    const stops = [listenTo(call.deps.events, 'threadChanged', threadId, announced), onReconnected(call.deps.events, announced)];
    const stop = () => stops.forEach((unlisten) => unlisten());
    const stopClose = onClose(closed, wake);
    try {
      await subscriptionsActive(call.deps.events);
      yield await getThread(call, threadId);
      while (!closed.aborted) {
        if (!pending) {
          await wakeup.wait();
          continue;
        }
        pending = false;
        yield await getThread(call, threadId);
      }
    } finally {
      stopClose();
      stop();
    }
  });
}
