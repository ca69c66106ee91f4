// The webhook deliverer of one process (the service's, or a worker process's): sends due deliveries,
// at most `concurrency` at once. It wakes on the NOTIFY that every outbox write sends at commit
// (any process's), when one of its attempts ends, and by one timer set for the next due retry — it
// never polls fast. Several processes share the work through the claims (webhook-delivery.ts).
import type { PgListener } from '../lib/pg-listener.js';
import type { Deps } from '../services/deps.js';
import { attemptDelivery, claimDueDeliveries, nextDueAt } from '../features/webhooks/webhook-delivery.js';
import { WEBHOOK_CHANNEL } from '../features/webhooks/webhook-events.js';
import { countWebhookAttempt } from '../lib/service-metrics.js';

/** Even with nothing due, look again after this long (a safety net for a missed notification). */
const IDLE_CHECK_MS = 60_000;

export class WebhookDeliverer {
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopped = false;
  private looping = false;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly deps: Deps,
    private readonly options: { listener: PgListener; concurrency: number },
  ) {}

  async start() {
    // After a lost listener connection notifications may have been missed: look at once.
    this.unsubscribe = await this.options.listener.subscribe(
      WEBHOOK_CHANNEL,
      () => this.wake(),
      () => this.wake(),
    );
    this.wake();
  }

  /** Claims and sends what is due; coalesces concurrent wake-ups. */
  wake() {
    if (this.stopped) return;
    if (this.looping) {
      this.again = true;
      return;
    }
    this.looping = true;
    void this.loop().finally(() => {
      this.looping = false;
    });
  }

  private async loop() {
    try {
      do {
        this.again = false;
        while (!this.stopped && this.inFlight.size < this.options.concurrency) {
          const claimed = await claimDueDeliveries(this.deps, this.options.concurrency - this.inFlight.size);
          if (!claimed.length) break;
          for (const delivery of claimed) {
            const attempt: Promise<unknown> = attemptDelivery(this.deps, delivery)
              // Counted once recorded (null: the claim was lost or the delivery deleted: no attempt of ours).
              .then((recorded) => recorded && countWebhookAttempt(recorded.status))
              .catch((error) => this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery attempt failed'))
              .finally(() => {
                this.inFlight.delete(attempt);
                this.wake();
              });
            this.inFlight.add(attempt);
          }
        }
      } while (this.again && !this.stopped);
      await this.scheduleNext();
    } catch (error) {
      this.deps.logger.error({ err: error }, 'claiming webhook deliveries failed');
      this.schedule(5_000);
    }
  }

  /** One timer for the next due delivery; with every slot busy, the attempts that end wake the loop instead. */
  private async scheduleNext() {
    if (this.stopped || this.inFlight.size >= this.options.concurrency) return;
    const due = await nextDueAt(this.deps);
    this.schedule(due ? Math.min(IDLE_CHECK_MS, Math.max(10, due.getTime() - Date.now() + 5)) : IDLE_CHECK_MS);
  }

  private schedule(ms: number) {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.wake();
    }, ms);
    this.timer.unref();
  }

  /** Stops claiming and waits for the attempts under way (each bounded by its time-out). */
  async stop() {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe?.();
    await Promise.allSettled([...this.inFlight]);
  }
}
