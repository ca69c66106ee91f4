// SQL helpers the seed's statements call: time-sortable, kind-prefixed ids built inside PostgreSQL (the
// shape of src/lib/ids.ts: `<prefix>_<ULID>`, Crockford base32), and the timestamp of the i-th run.
// They live in pg_temp (the seed's own session), so the seeded database keeps no trace of them.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** One Crockford character of `value`: its 5 bits at `shift`. */
const char = (value: string, shift: number) => `substr('${CROCKFORD}', (((${value}) >> ${shift}) & 31)::int + 1, 1)`;

/**
 * `pg_temp.ulid(ms, n)`: 10 characters of the millisecond time, then "SEED" and 12 characters of `n`
 * (60 bits). Ids made at increasing times with increasing `n` sort in creation order, as the service's own
 * ULIDs do, and "SEED" tells a seeded id from one the service generated. A plain SQL function: PostgreSQL
 * inlines it into the INSERT … SELECT that calls it.
 */
function ulidFunction(): string {
  const time = Array.from({ length: 10 }, (_, k) => char('ms', 5 * (9 - k))).join(' || ');
  const counter = Array.from({ length: 12 }, (_, k) => char('n', 5 * (11 - k))).join(' || ');
  return `CREATE FUNCTION pg_temp.ulid(ms bigint, n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT ${time} || 'SEED' || ${counter} $$`;
}

/**
 * The session's helpers for a seed of `runs` runs spread evenly over the `days` days before `end`:
 * `pg_temp.at(i)` the creation time of the i-th run, `pg_temp.ms(i)` the same in epoch milliseconds,
 * `pg_temp.sid(prefix, i, n)` an id of that time.
 */
export function helperStatements(runs: number, days: number, end: Date): string[] {
  const endMs = end.getTime();
  const startMs = endMs - days * 86_400_000;
  const stepMs = (days * 86_400_000) / runs;
  return [
    ulidFunction(),
    `CREATE FUNCTION pg_temp.ms(i bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT (${startMs}::bigint + floor(i * ${stepMs}::float8))::bigint $$`,
    `CREATE FUNCTION pg_temp.at(i bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$ SELECT to_timestamp(pg_temp.ms(i) / 1000.0) $$`,
    `CREATE FUNCTION pg_temp.sid(prefix text, i bigint, n bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT prefix || '_' || pg_temp.ulid(pg_temp.ms(i), n) $$`,
  ];
}
