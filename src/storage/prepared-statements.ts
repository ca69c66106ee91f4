// Prepared statements for the statements the service runs again and again. Without a name, every
// query is parsed, analysed and planned by PostgreSQL each time (the run path's multi-CTE insert,
// claim and seal spend more time in planning than in executing). The driver adapter asks for a
// name per query (`statementNameGenerator`); a name makes `pg` parse the statement once per
// connection and PostgreSQL keep its plan (a generic plan once it is as good as a custom one).
//
// Only statements seen a few times get a name, and at most `limit` of them, because every
// connection keeps every named statement it ran until it closes: statements whose text varies
// (IN lists, multi-row VALUES of different lengths) are mostly run once and stay unnamed, so the
// memory each backend spends on plans is bounded.

export interface PreparedStatementOptions {
  /** How many distinct statements may be named (per process; each connection prepares those it runs). */
  limit?: number;
  /** A statement is named from its `hotAfter`-th run on. */
  hotAfter?: number;
  /**
   * What names begin with (`wsa_`). Two generators feeding the same connections need different
   * prefixes: a name already prepared on a connection must always stand for the same text.
   */
  prefix?: string;
}

/**
 * A `statementNameGenerator` for @prisma/adapter-pg: the same name for the same text, or '' (an
 * unnamed statement: `pg` parses it anew, as without a generator).
 */
export function preparedStatementNames(options: PreparedStatementOptions = {}): (query: { sql: string }) => string {
  const limit = options.limit ?? 128;
  const hotAfter = options.hotAfter ?? 3;
  const prefix = options.prefix ?? 'wsa_';
  const names = new Map<string, string>();
  const runs = new Map<string, number>();
  return ({ sql }) => {
    const name = names.get(sql);
    if (name !== undefined) return name;
    if (names.size >= limit) return '';
    const count = (runs.get(sql) ?? 0) + 1;
    if (count < hotAfter) {
      // Counting is bounded too: texts that never repeat are forgotten in bulk.
      if (runs.size >= 10 * limit) runs.clear();
      runs.set(sql, count);
      return '';
    }
    runs.delete(sql);
    const named = `${prefix}${names.size + 1}`;
    names.set(sql, named);
    return named;
  };
}
