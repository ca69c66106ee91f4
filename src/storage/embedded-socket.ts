// The embedded PostgreSQL's Unix-domain socket: whether one can be used in DATA_DIR/socket, and the
// connection URLs over it and over TCP. See the header of embedded.ts for why the service prefers it.
import { readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../lib/logger.js';

/** A socket address holds 108 bytes on Linux, 104 on macOS and the BSDs, the terminating NUL included. */
export const SOCKET_PATH_MAX_BYTES = process.platform === 'linux' ? 107 : 103;

/** The file PostgreSQL listens on in `dir` (libpq and pg build the same name from host and port). */
export function socketPath(dir: string, port: number): string {
  return join(dir, `.s.PGSQL.${port}`);
}

export function tcpUrl(password: string, port: number, database = 'workspace'): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/**
 * The directory in the `host` parameter, which libpq and pg read over the host of the authority; that
 * host (localhost) is there only so that the URL parses as a URL (credentials need a host).
 */
export function socketUrl(password: string, dir: string, port: number, database = 'workspace'): string {
  return `postgresql://postgres:${encodeURIComponent(password)}@localhost:${port}/${database}?host=${encodeURIComponent(dir)}`;
}

/**
 * Whether PostgreSQL can listen in `dir` (already created, owned by the server's user) at `port`:
 * the socket's path must fit in a socket address, and the file system must hold a socket (some
 * shared or network mounts cannot), which a throwaway listener proves. Sockets left by a server
 * that was killed are removed: no server runs for this data directory when this is called.
 * Null, with the reason logged, means TCP only.
 */
export async function usableSocketDirectory(dir: string, port: number, logger: Logger): Promise<string | null> {
  if (process.platform === 'win32') return null;
  const path = socketPath(dir, port);
  if (Buffer.byteLength(path) > SOCKET_PATH_MAX_BYTES) {
    logger.info(
      { socket: path },
      `the embedded PostgreSQL's socket path is longer than a socket address holds (${SOCKET_PATH_MAX_BYTES} bytes); the service connects over TCP (a shorter DATA_DIR restores the socket)`,
    );
    return null;
  }
  for (const name of readdirSync(dir)) if (name.startsWith('.s.PGSQL.')) rmSync(join(dir, name), { force: true });
  const probe = join(dir, `.probe-${process.pid}`);
  try {
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.on('error', reject);
      server.listen(probe, () => server.close(() => resolve()));
    });
    return dir;
  } catch (error) {
    logger.warn(
      { err: error, dir },
      'the embedded PostgreSQL cannot listen on a Unix-domain socket in DATA_DIR (its file system does not hold sockets); the service connects over TCP',
    );
    return null;
  } finally {
    rmSync(probe, { force: true });
  }
}
