// Which failures mean "a dependency cannot be reached" (answered 503 `unavailable`, not 500): real
// errors of the real clients — pg, Prisma through its pg adapter, ioredis — against a loopback port
// nothing listens on, and a connection PostgreSQL itself terminates; other failures stay what they are.
import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { Redis } from 'ioredis';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { unavailableFromError, unreachableDependency } from '../../src/lib/unavailable.js';
import { invalidArgument, RETRY_AFTER_SECONDS } from '../../src/lib/errors.js';
import { createTestDatabase } from '../helpers/app.js';
import { freePort } from '../helpers/process.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('unreachable dependencies', () => {
  it('recognises a database nobody answers at, through pg and through Prisma', async () => {
    const url = `postgresql://nobody:secret@127.0.0.1:${await freePort()}/nothing`;
    const client = new pg.Client({ connectionString: url });
    expect(unreachableDependency(await failureOf(() => client.connect()))).toBe('database');

    const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url }) });
    try {
      expect(unreachableDependency(await failureOf(() => prisma.run.findFirst()))).toBe('database');
      expect(unreachableDependency(await failureOf(() => prisma.$queryRaw`SELECT 1`))).toBe('database');
    } finally {
      await prisma.$disconnect();
    }
  });

  it('recognises a database whose Unix-domain socket is gone or refuses, through pg and through Prisma', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wsa-unavailable-'));
    try {
      // No socket file (a stopped server removed it): connect fails with ENOENT.
      const missing = `postgresql://nobody:secret@localhost:5432/nothing?host=${encodeURIComponent(dir)}`;
      expect(unreachableDependency(await failureOf(() => new pg.Client({ connectionString: missing }).connect()))).toBe('database');
      const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: missing }) });
      try {
        expect(unreachableDependency(await failureOf(() => prisma.run.findFirst()))).toBe('database');
      } finally {
        await prisma.$disconnect();
      }
      // A socket file nobody listens on (a killed server left it): ECONNREFUSED.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(join(dir, '.s.PGSQL.5433'), resolve));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      writeFileSync(join(dir, '.s.PGSQL.5433'), ''); // closing removed it; a plain file refuses the same way
      const refused = `postgresql://nobody:secret@localhost:5433/nothing?host=${encodeURIComponent(dir)}`;
      expect(unreachableDependency(await failureOf(() => new pg.Client({ connectionString: refused }).connect()))).toBe('database');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A file that is not there, outside a connection, is not a database outage.
    expect(unreachableDependency(await failureOf(() => readFile(join(tmpdir(), 'wsa-no-such-file'))))).toBeNull();
  });

  it('recognises a connection the server terminates mid-query', async () => {
    const database = await createTestDatabase({ empty: true });
    const victim = new pg.Client({ connectionString: database.url });
    const admin = new pg.Client({ connectionString: database.url });
    victim.on('error', () => undefined); // the terminated connection reports here too
    try {
      await victim.connect();
      await admin.connect();
      const pid = (await victim.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      const sleeping = failureOf(() => victim.query('SELECT pg_sleep(30)'));
      // Terminated once it is running the statement (polled: when the backend shows it active).
      for (let i = 0; i < 500; i++) {
        const active = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'`, [pid]);
        if (active.rowCount) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      const error = (await sleeping) as { code?: string };
      expect(error.code).toBe('57P01');
      expect(unreachableDependency(error)).toBe('database');
    } finally {
      await victim.end().catch(() => undefined);
      await admin.end();
      await database.drop();
    }
  });

  it('recognises a transaction that found no free pool connection in time (the pool is busy)', async () => {
    const database = await createTestDatabase({ empty: true });
    const prisma = new PrismaClient({
      adapter: new PrismaPg(new pg.Pool({ connectionString: database.url, max: 1 }), { disposeExternalPool: true }),
    });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const taken = new Promise<void>((resolve) => (holding = resolve));
    try {
      // The pool's one connection is held by an open transaction until the test lets it go.
      const holder = prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        holding();
        await held;
      });
      await taken;
      const error = await failureOf(() => prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`, { maxWait: 50 }));
      expect((error as { code?: string }).code).toBe('P2028');
      expect(unreachableDependency(error)).toBe('database');
      release();
      await holder;
      // Another transaction API failure is not about reachability.
      const closed = await failureOf(async () => {
        let escaped!: Parameters<Parameters<typeof prisma.$transaction>[0]>[0];
        await prisma.$transaction(async (tx) => void (escaped = tx));
        await escaped.$queryRaw`SELECT 1`;
      });
      expect(unreachableDependency(closed)).toBeNull();
    } finally {
      release();
      await prisma.$disconnect();
      await database.drop();
    }
  });

  it('recognises a Redis command that gave up', async () => {
    const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 1, retryStrategy: () => 10 });
    redis.on('error', () => undefined);
    try {
      expect(unreachableDependency(await failureOf(() => redis.get('anything')))).toBe('redis');
    } finally {
      redis.disconnect();
    }
  });

  it('leaves every other failure alone', async () => {
    const database = await createTestDatabase({ empty: true });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      expect(unreachableDependency(await failureOf(() => client.query('SELECT * FROM no_such_table')))).toBeNull();
      expect(unreachableDependency(await failureOf(() => client.query('SELECT 1/0')))).toBeNull();
    } finally {
      await client.end();
      await database.drop();
    }
    expect(unreachableDependency(new Error('something else broke'))).toBeNull();
    expect(unreachableDependency(invalidArgument('bad', 'field'))).toBeNull();
    expect(unreachableDependency(null)).toBeNull();
  });

  it('answers 503 unavailable naming the dependency, with Retry-After', async () => {
    const client = new pg.Client({ connectionString: `postgresql://nobody:secret@127.0.0.1:${await freePort()}/nothing` });
    const answer = unavailableFromError(await failureOf(() => client.connect()))!;
    expect(answer.code).toBe('unavailable');
    expect(answer.extensions).toMatchObject({
      code: 'unavailable',
      details: { dependency: 'database' },
      http: { status: 503, headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
    });
  });
});
