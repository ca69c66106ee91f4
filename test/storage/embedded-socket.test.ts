// The embedded PostgreSQL's Unix-domain socket: the service's URL goes through it (the server sees no
// client address), TCP on 127.0.0.1 stays for tools, a borrower finds the same socket, and a DATA_DIR
// too long for a socket address, or EMBEDDED_PG_SOCKET=false, falls back to TCP. The database tool's
// environment names a socket directory the ways libpq reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/storage/embedded.js';
import { SOCKET_PATH_MAX_BYTES } from '../../src/storage/embedded-socket.js';
import { connectionEnvironment } from '../../src/storage/pg-environment.js';
import { createLogger } from '../../src/lib/logger.js';

const logger = createLogger('silent');

/** How the server sees the connection of `url`: 'socket' when it has no client address. */
async function transportOf(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ addr: string | null }>('SELECT host(inet_client_addr()) AS addr');
    return rows[0]!.addr ?? 'socket';
  } finally {
    await client.end();
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wsa-socket-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the embedded PostgreSQL socket', () => {
  it('connects through a socket in DATA_DIR/socket, private to the server; TCP stays; a borrower finds the socket', async () => {
    const root = join(dir, 'short');
    const database = await startEmbeddedPostgres(root, logger, { fastUnsafe: true });
    try {
      expect(new URL(database.url).searchParams.get('host')).toBe(join(root, 'socket'));
      expect(await transportOf(database.url)).toBe('socket');
      expect(await transportOf(database.tcpUrl)).toBe('127.0.0.1');
      expect(statSync(join(root, 'socket')).mode & 0o777).toBe(0o700);
      const borrowed = await startEmbeddedPostgres(root, logger, { adopt: false });
      expect(borrowed.url).toBe(database.url);
      await borrowed.stop(); // a borrower leaves the server running
      expect(await transportOf(database.url)).toBe('socket');
    } finally {
      await database.stop();
    }
  });

  it('falls back to TCP when the socket path would not fit in a socket address, or when turned off', async () => {
    const long = join(dir, 'l'.repeat(SOCKET_PATH_MAX_BYTES));
    mkdirSync(long);
    const tooLong = await startEmbeddedPostgres(long, logger, { fastUnsafe: true });
    try {
      expect(new URL(tooLong.url).searchParams.get('host')).toBeNull();
      expect(tooLong.url).toBe(tooLong.tcpUrl);
      expect(await transportOf(tooLong.url)).toBe('127.0.0.1');
    } finally {
      await tooLong.stop();
    }
    const off = await startEmbeddedPostgres(join(dir, 'off'), logger, { fastUnsafe: true, socket: false });
    try {
      expect(off.url).toBe(off.tcpUrl);
      expect(await transportOf(off.url)).toBe('127.0.0.1');
    } finally {
      await off.stop();
    }
  });
});

describe("npm run db's connection environment", () => {
  it('names a socket directory given as the host parameter or as an encoded host, and a TCP host as before', () => {
    expect(connectionEnvironment('postgresql://app:s%40cret@/wsa?host=/var/run/postgresql&port=5433')).toMatchObject({
      PGHOST: '/var/run/postgresql',
      PGPORT: '5433',
      PGUSER: 'app',
      PGPASSWORD: 's@cret',
      PGDATABASE: 'wsa',
    });
    expect(connectionEnvironment('postgresql://app@%2Fvar%2Frun%2Fpostgresql/wsa')).toMatchObject({
      PGHOST: '/var/run/postgresql',
      PGPORT: '5432',
    });
    expect(connectionEnvironment('postgresql://app@db.internal:6543/wsa')).toMatchObject({ PGHOST: 'db.internal', PGPORT: '6543' });
  });
});
