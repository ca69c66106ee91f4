// The HTTP server's port, listened on through several sockets so that a burst of new connections is
// accepted while the event loop is busy.
//
// libuv (since 1.45, Node 20) accepts one connection per listening socket per event-loop iteration.
// Idle, an iteration takes microseconds and that is invisible; streaming hundreds of runs, an
// iteration handles every ready socket and takes 50–100 ms, so one listening socket admits 10–20
// connections a second. 500 clients connecting at once then wait up to half a minute in the kernel's
// accept queue, with nothing read, nothing answered and no error — a websocket opened in that burst
// delivers every event of its subscriptions in one late batch when it is finally accepted
// (docs/benchmarks.md, "New connections under load"). With `count` sockets bound to the port
// (SO_REUSEPORT: the kernel spreads new connections over them), each iteration accepts up to `count`.
//
// The first socket is the HTTP server's own; each other one is a plain TCP server that hands its
// connections to the HTTP server (`emit('connection')`, as Node's own HTTPS and HTTP/2 servers do), so
// every connection gets the same parser, timeouts, upgrade handling and shutdown. Where the platform
// has no SO_REUSEPORT load balancing (it is Linux's), or Node refuses it, the server keeps one socket.
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { Server as HttpServer } from 'node:http';

export interface AcceptSockets {
  /** How many sockets listen on the port (1 where SO_REUSEPORT is not available). */
  count: number;
  /**
   * Stops accepting on the extra sockets; resolves when the connections they accepted have closed
   * (close the HTTP server's own socket, and its connections, beside it).
   */
  close(): Promise<void>;
}

const listen = (server: TcpServer, options: { port: number; host: string; reusePort: boolean }) =>
  new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(options, () => {
      server.off('error', failed);
      resolve();
    });
  });

/**
 * Listens `server` on host:port through `count` sockets (at least one). Resolves once every socket
 * listens; rejects when the port is taken (by anything, another instance of this service too) or
 * the host is unknown.
 */
export async function listenWithAcceptSockets(
  server: HttpServer,
  options: { host: string; port: number; count: number },
  onFallback: (reason: string) => void,
): Promise<AcceptSockets> {
  const wanted = Math.max(1, Math.floor(options.count));
  const reusePort = wanted > 1 && process.platform === 'linux';
  if (wanted > 1 && !reusePort) onFallback(`SO_REUSEPORT load balancing is Linux's; this is ${process.platform}`);
  // SO_REUSEPORT would let this process join the listening sockets of another service of the same
  // user already on the port, and the two would split its clients. A plain socket bound first keeps
  // the old answer to a taken port, EADDRINUSE at start (and picks the port when PORT is 0).
  let port = options.port;
  if (reusePort) {
    const probe = createTcpServer();
    await listen(probe, { host: options.host, port, reusePort: false });
    port = (probe.address() as { port: number }).port;
    await closeServer(probe);
  }
  await listen(server, { host: options.host, port, reusePort });
  const extra: TcpServer[] = [];
  if (reusePort) {
    try {
      for (let i = 1; i < wanted; i += 1) {
        const acceptor = createTcpServer(acceptedAs(server), (socket) => server.emit('connection', socket));
        await listen(acceptor, { host: options.host, port, reusePort: true });
        extra.push(acceptor);
      }
    } catch (error) {
      onFallback(`an extra listening socket failed: ${(error as Error).message}`);
      await Promise.all(extra.splice(0).map(closeServer));
    }
  }
  return {
    count: 1 + extra.length,
    close: () => Promise.all(extra.splice(0).map(closeServer)).then(() => undefined),
  };
}

/**
 * The HTTP server's own options for the sockets it accepts, which a plain TCP server does not share:
 * Nagle's algorithm off (`noDelay`; left on, an answer written in two pieces can wait for the client's
 * delayed ACK) and half-open sockets allowed (HTTP's handling of a client that ends its side first).
 */
function acceptedAs(server: HttpServer) {
  const own = server as HttpServer & {
    noDelay?: boolean;
    allowHalfOpen?: boolean;
    keepAlive?: boolean;
    keepAliveInitialDelay?: number;
    highWaterMark?: number;
  };
  return {
    noDelay: own.noDelay ?? true,
    allowHalfOpen: own.allowHalfOpen ?? true,
    keepAlive: own.keepAlive ?? false,
    // Kept in seconds on the server, given in milliseconds.
    keepAliveInitialDelay: (own.keepAliveInitialDelay ?? 0) * 1000,
    ...(own.highWaterMark ? { highWaterMark: own.highWaterMark } : {}),
  };
}

const closeServer = (server: TcpServer) =>
  new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
