// What the service's reads cost in PostgreSQL: the statements an in-process service sends (recorded at
// the `pg` driver, with their parameters, while a read runs) and their executed plans (EXPLAIN ANALYZE
// of the same text and values), judged against the size of the tables they touch.
import pg from 'pg';

export interface Statement {
  text: string;
  values: unknown[];
  /** Sent on a connection inside a transaction (after its BEGIN, before its COMMIT or ROLLBACK). */
  inTransaction: boolean;
}

/**
 * Records every statement the process's `pg` clients send while `work` runs (BEGIN, COMMIT and
 * ROLLBACK mark the statements between them, and are not recorded); `work` may look at the list as it
 * grows. The driver's query method is wrapped, not replaced: each statement still runs as the service sent it.
 */
export async function recordStatements<T>(
  work: (statements: readonly Statement[]) => Promise<T>,
): Promise<{ result: T; statements: Statement[] }> {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const statements: Statement[] = [];
  const inTransaction = new WeakSet<object>();
  prototype.query = function (this: object, ...args: unknown[]) {
    const [config, values] = args as [unknown, unknown];
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    const params = typeof config === 'string' ? values : (config as { values?: unknown }).values;
    if (typeof text === 'string') {
      if (/^\s*BEGIN/i.test(text)) inTransaction.add(this);
      else if (/^\s*(COMMIT|ROLLBACK)/i.test(text)) inTransaction.delete(this);
      else statements.push({ text, values: Array.isArray(params) ? params : [], inTransaction: inTransaction.has(this) });
    }
    return original.apply(this, args);
  };
  try {
    return { result: await work(statements), statements };
  } finally {
    prototype.query = original;
  }
}

/** A read-only statement worth a plan: a SELECT (or WITH … SELECT) that locks and writes nothing. */
export function isPlannableRead(text: string): boolean {
  const sql = text.trim().toUpperCase();
  if (!/^(SELECT|WITH)\b/.test(sql)) return false;
  return !/\b(INSERT|UPDATE|DELETE|FOR UPDATE|FOR SHARE|FOR NO KEY UPDATE|NEXTVAL|PG_ADVISORY|SET_CONFIG|PG_NOTIFY)\b/.test(sql);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

export interface PlanProblem {
  node: string;
  relation: string;
  rowsRead: number;
  tableRows: number;
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/**
 * Rows a scan node read in one of its loops: those it returned and those it threw away (EXPLAIN gives
 * both per loop). Per loop, because an inner scan repeated for each outer row (a lateral lookup per
 * query word) is as large as one of its runs, not as all of them.
 */
const rowsRead = (node: PlanNode) =>
  (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);

/**
 * The parts of an executed plan that grow with a whole table rather than with the page asked for:
 * a sequential scan of a large table, any scan that read more than `share` of its table, and a sort
 * of more than `share` of a table below it.
 */
export function planProblems(plan: PlanNode, tableRows: Map<string, number>, share = 0.2): PlanProblem[] {
  const problems: PlanProblem[] = [];
  const large = (relation: string | undefined) => relation !== undefined && (tableRows.get(relation) ?? 0) >= 1000;
  for (const node of nodes(plan)) {
    const relation = node['Relation Name'];
    if (large(relation)) {
      const read = rowsRead(node);
      const rows = tableRows.get(relation!)!;
      if (node['Node Type'] === 'Seq Scan' || read > share * rows)
        problems.push({ node: node['Node Type'], relation: relation!, rowsRead: read, tableRows: rows });
    }
    if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') {
      const input = (node.Plans ?? []).reduce((sum, child) => sum + (child['Actual Rows'] ?? 0), 0);
      for (const below of nodes(node).filter((n) => large(n['Relation Name']))) {
        const rows = tableRows.get(below['Relation Name']!)!;
        if (input > share * rows)
          problems.push({ node: `Sort over ${below['Node Type']}`, relation: below['Relation Name']!, rowsRead: input, tableRows: rows });
      }
    }
  }
  return problems;
}

/** Every relation a plan reads through an index, as `relation:index`. */
export function indexesUsed(plan: PlanNode): string[] {
  return nodes(plan)
    .filter((node) => node['Index Name'])
    .map((node) => `${node['Relation Name'] ?? '?'}:${node['Index Name']}`);
}

/** The executed plan of `statement` on `client` (inside a transaction rolled back, under `settings`). */
export async function executedPlan(client: pg.Client, statement: Statement, settings: Record<string, string> = {}): Promise<PlanNode> {
  await client.query('BEGIN READ ONLY');
  try {
    for (const [name, value] of Object.entries(settings)) await client.query(`SET LOCAL ${name} = ${value}`);
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, statement.values);
    return rows[0]['QUERY PLAN'][0].Plan as PlanNode;
  } finally {
    await client.query('ROLLBACK');
  }
}

/** Row counts of the workspace's tables (pg_class estimates, exact after ANALYZE). */
export async function tableRowCounts(client: pg.Client): Promise<Map<string, number>> {
  const { rows } = await client.query(
    "SELECT relname, reltuples::bigint AS rows FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace",
  );
  return new Map(rows.map((row) => [row.relname as string, Number(row.rows)]));
}
