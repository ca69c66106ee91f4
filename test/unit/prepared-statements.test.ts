import { describe, expect, it } from 'vitest';
import { preparedStatementNames } from '../../src/storage/prepared-statements.js';

describe('preparedStatementNames', () => {
  it('names a statement from its third run on, the same name for the same text', () => {
    const name = preparedStatementNames();
    const claim = { sql: 'UPDATE runs SET status = $1 WHERE id = $2' };
    expect(name(claim)).toBe('');
    expect(name(claim)).toBe('');
    const named = name(claim);
    expect(named).toMatch(/^wsa_\d+$/);
    expect(name({ sql: claim.sql })).toBe(named);
    expect(name({ sql: 'SELECT 1' })).toBe('');
  });

  it('gives different texts different names and stops naming at the limit', () => {
    const name = preparedStatementNames({ limit: 2, hotAfter: 1 });
    const a = name({ sql: 'SELECT 1' });
    const b = name({ sql: 'SELECT 2' });
    expect(a).not.toBe('');
    expect(b).not.toBe('');
    expect(a).not.toBe(b);
    expect(name({ sql: 'SELECT 3' })).toBe('');
    expect(name({ sql: 'SELECT 1' })).toBe(a);
  });

  it('forgets the counts of texts that never repeat instead of growing without bound', () => {
    const name = preparedStatementNames({ limit: 4, hotAfter: 2 });
    for (let i = 0; i < 1000; i++) expect(name({ sql: `SELECT ${i}` })).toBe('');
    // Still names a statement that repeats.
    expect(name({ sql: 'SELECT x' })).toBe('');
    expect(name({ sql: 'SELECT x' })).toMatch(/^wsa_/);
  });

  it('names with its own prefix, so two generators on the same connections never give one name two texts', () => {
    const prisma = preparedStatementNames({ hotAfter: 1 });
    const direct = preparedStatementNames({ hotAfter: 1, prefix: 'wsa_direct_' });
    const a = prisma({ sql: 'SELECT 1' });
    const b = direct({ sql: 'SELECT 2' });
    expect(a).toBe('wsa_1');
    expect(b).toBe('wsa_direct_1');
  });
});
