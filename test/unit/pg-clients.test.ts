// Choosing a PostgreSQL client program for a server: the oldest whose major is at least the server's.
import { describe, expect, it } from 'vitest';
import { chooseClient, parseClientMajor } from '../../src/storage/pg-clients.js';

describe('PostgreSQL client choice', () => {
  it('reads the major version from --version output', () => {
    expect(parseClientMajor('pg_dump (PostgreSQL) 15.14 (Debian 15.14-0+deb12u1)\n')).toBe(15);
    expect(parseClientMajor('psql (PostgreSQL) 18.1\n')).toBe(18);
    expect(parseClientMajor('something else')).toBeNull();
  });

  it('picks the oldest client that can talk to the server', () => {
    const candidates = [
      { path: '/usr/bin/pg_dump', major: 17 },
      { path: '/usr/lib/postgresql/14/bin/pg_dump', major: 14 },
      { path: '/usr/lib/postgresql/15/bin/pg_dump', major: 15 },
    ];
    expect(chooseClient('pg_dump', candidates, 15).path).toBe('/usr/lib/postgresql/15/bin/pg_dump');
    expect(chooseClient('pg_dump', candidates, 16).major).toBe(17);
  });

  it('says what to install when no client fits', () => {
    expect(() => chooseClient('pg_dump', [], 15)).toThrow(/^pg_dump is not installed .*apt-get install postgresql-client/);
    expect(() => chooseClient('pg_dump', [{ path: '/usr/bin/pg_dump', major: 14 }], 15)).toThrow(
      'the server is PostgreSQL 15 but the only pg_dump found is version 14 (/usr/bin/pg_dump), which cannot talk to it: install the PostgreSQL client tools, version 15 or newer (Debian/Ubuntu: apt-get install postgresql-client; macOS: brew install libpq)',
    );
  });
});
