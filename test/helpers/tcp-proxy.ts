// A loopback TCP relay in front of a real server (PostgreSQL here), which a test can cut and
// restore: while cut, the port refuses connections and every relayed connection is dropped, as when
// the server behind it stops — without stopping a server other tests use.
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Refuses new connections and drops the open ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** `target`: a TCP address, or the path of a Unix socket (the embedded PostgreSQL's). */
export async function startTcpProxy(target: { host: string; port: number } | { path: string }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  const relay = (client: Socket) => {
    const upstream = createConnection(target);
    open.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  };
  let server: Server | null = null;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const next = createServer(relay);
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => {
        server = next;
        resolve((next.address() as { port: number }).port);
      });
    });
  const stopListening = () =>
    new Promise<void>((resolve) => {
      const current = server;
      server = null;
      for (const socket of open) socket.destroy();
      open.clear();
      if (current) current.close(() => resolve());
      else resolve();
    });
  const port = await listen(0);
  return {
    port,
    cut: stopListening,
    restore: async () => {
      await listen(port);
    },
    close: stopListening,
  };
}
