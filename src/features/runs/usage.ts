// GET /api/v1/usage and GraphQL `usage`: the usage ledger (usage-ledger.ts) summed over a time range
// of seals, grouped by agent, model, API key, day or hour, optionally filtered by agent and model.
// The read is bounded: one index range scan of the caller's workspace over at most MAX_RANGE_DAYS,
// and at most one group per hour of it.
import { Prisma } from '../../generated/prisma/client.js';
import { invalidArgument } from '../../lib/errors.js';
import { formatAmount } from '../../lib/cost.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import type { RunCost } from './run-members.js';

export const USAGE_GROUPS = ['agent', 'model', 'api_key', 'day', 'hour'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** The longest range one report covers, and the range without `from`. */
export const MAX_RANGE_DAYS = 93;
/** The end of year 9999 (UTC): the latest instant a usage range reads. */
const LATEST_MS = Date.UTC(10000, 0, 1);
const DEFAULT_RANGE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface UsageItem {
  key: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  cost: RunCost;
}

/** The ledger column or UTC bucket each grouping sums by. */
const KEY_SQL: Record<UsageGroup, Prisma.Sql> = {
  agent: Prisma.sql`agent_id`,
  model: Prisma.sql`model_key`,
  api_key: Prisma.sql`principal_id`,
  day: Prisma.sql`to_char(sealed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  hour: Prisma.sql`to_char(sealed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24":00:00Z"')`,
};

export interface UsageArgs {
  from?: Date | null;
  to?: Date | null;
  groupBy?: string | null;
  agentId?: string | null;
  model?: string | null;
}

interface Row {
  key: string;
  currency: string | null;
  requests: bigint;
  input_tokens: bigint;
  output_tokens: bigint;
  cached_input_tokens: bigint;
  reasoning_tokens: bigint;
  cost_picos: string;
  complete: boolean;
}

export async function usageReport(call: CallContext, args: UsageArgs): Promise<{ items: UsageItem[] }> {
  const { actor } = call;
  requirePermission(actor, 'read');
  const groupBy = (args.groupBy ?? 'day') as UsageGroup;
  if (!USAGE_GROUPS.includes(groupBy)) throw invalidArgument(`group_by must be one of ${USAGE_GROUPS.join(', ')}`, 'group_by');
  const to = args.to ?? new Date();
  const from = args.from ?? new Date(to.getTime() - DEFAULT_RANGE_DAYS * DAY_MS);
  if (from.getTime() >= to.getTime()) throw invalidArgument('from must be before to', 'from');
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * DAY_MS)
    throw invalidArgument(`from and to may be at most ${MAX_RANGE_DAYS} days apart`, 'from');
  // No usage is older than the Unix epoch or later than year 9999, and PostgreSQL refuses some dates
  // JavaScript accepts (year 0): a range reaching past either is read up to it.
  if (to.getTime() <= 0) return { items: [] };
  const [fromBound, toBound] = [new Date(Math.max(from.getTime(), 0)), new Date(Math.min(to.getTime(), LATEST_MS))];
  const key = KEY_SQL[groupBy];
  // Grouped by currency too: a group whose requests were priced in several currencies is told apart below.
  const rows = await call.db.$queryRaw<Row[]>`
    SELECT ${key} AS key, currency, sum(requests)::bigint AS requests, sum(input_tokens)::bigint AS input_tokens,
      sum(output_tokens)::bigint AS output_tokens, sum(cached_input_tokens)::bigint AS cached_input_tokens,
      sum(reasoning_tokens)::bigint AS reasoning_tokens, sum(cost_picos)::text AS cost_picos, bool_and(complete) AS complete
    FROM usage_records
    WHERE workspace_id = ${actor.workspaceId} AND sealed_at >= ${fromBound} AND sealed_at < ${toBound}
      ${args.agentId ? Prisma.sql`AND agent_id = ${args.agentId}` : Prisma.empty}
      ${args.model ? Prisma.sql`AND model_key = ${args.model}` : Prisma.empty}
    GROUP BY 1, 2
    ORDER BY 1, 2 NULLS LAST`;
  return { items: combine(rows) };
}

/**
 * One item per key. Tokens add up across currencies; the cost is the group's first currency's
 * (alphabetically), and incomplete when another currency's requests (or unpriced ones) are left out.
 */
function combine(rows: Row[]): UsageItem[] {
  const items = new Map<string, UsageItem & { picos: bigint }>();
  for (const row of rows) {
    let item = items.get(row.key);
    if (!item) {
      item = {
        key: row.key,
        requests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        picos: 0n,
        cost: { amount: '', currency: null, complete: true },
      };
      items.set(row.key, item);
    }
    item.requests += Number(row.requests);
    item.inputTokens += Number(row.input_tokens);
    item.outputTokens += Number(row.output_tokens);
    item.cachedInputTokens += Number(row.cached_input_tokens);
    item.reasoningTokens += Number(row.reasoning_tokens);
    if (!row.complete) item.cost.complete = false;
    if (row.currency === null) continue;
    if (item.cost.currency === null) {
      item.cost.currency = row.currency;
      item.picos = BigInt(row.cost_picos);
    } else item.cost.complete = false;
  }
  return [...items.values()].map(({ picos, ...item }) => ({ ...item, cost: { ...item.cost, amount: formatAmount(picos) } }));
}
