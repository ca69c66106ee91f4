// One LISTEN connection for a process's PostgreSQL notifications (cache invalidation and the like).
// On a lost connection it reconnects with backoff and calls `onReconnect` handlers, because
// notifications sent while it was away are gone: whoever relies on them must resynchronise.
import pg from 'pg';
import type { Logger } from './logger.js';

export class PgListener {
  private client: pg.Client | null = null;
  private readonly handlers = new Map<string, ((payload: string) => void)[]>();
  private readonly reconnectHandlers: (() => void)[] = [];
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
  ) {}

  /** Registers before start (chainable); see `subscribe` for later registrations. */
  on(channel: string, handler: (payload: string) => void, onReconnect?: () => void) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
    this.handlers.set(channel, [...(this.handlers.get(channel) ?? []), handler]);
    if (onReconnect) this.reconnectHandlers.push(onReconnect);
    return this;
  }

  /** Registers at any time (LISTENs at once when connected); resolves to the unsubscribe function. */
  async subscribe(channel: string, handler: (payload: string) => void, onReconnect?: () => void): Promise<() => void> {
    const known = this.handlers.has(channel);
    this.on(channel, handler, onReconnect);
    if (this.client && !known) await this.client.query(`LISTEN ${channel}`);
    return () => {
      this.handlers.set(
        channel,
        (this.handlers.get(channel) ?? []).filter((h) => h !== handler),
      );
      if (onReconnect) this.reconnectHandlers.splice(this.reconnectHandlers.indexOf(onReconnect), 1);
    };
  }

  async start() {
    await this.connect();
  }

  private async connect(attempt = 0): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'notification listener connection lost; reconnecting');
      this.client = null;
      void client.end().catch(() => undefined);
      this.scheduleReconnect(0);
    });
    client.on('notification', (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      this.client = client;
      if (attempt > 0 || this.reconnected) for (const handler of this.reconnectHandlers) handler();
      this.reconnected = true;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt === 0 && !this.reconnected) throw error; // the first start reports its failure
      this.logger.warn({ err: error }, 'notification listener could not reconnect; retrying');
      this.scheduleReconnect(attempt + 1);
    }
  }

  private reconnected = false;

  private scheduleReconnect(attempt: number) {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(
      () => {
        this.retryTimer = null;
        void this.connect(attempt + 1);
      },
      Math.min(5_000, 100 * 2 ** attempt),
    );
    this.retryTimer.unref();
  }

  async stop() {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }
}
