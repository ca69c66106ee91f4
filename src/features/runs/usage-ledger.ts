// The usage ledger: one row per sealed run attempt and model it used (`usage_records`), written by
// the statement that seals the run, so a run's usage is in the ledger exactly when its seal is.
// GET /api/v1/usage sums these rows (usage.ts).
import { Prisma } from '../../generated/prisma/client.js';
import type { CallContext } from '../../services/call-context.js';

/** What an attempt's requests to one model consumed; the cost in exact pico-units (src/lib/cost.ts). */
export interface UsageLedgerRow {
  modelKey: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costPicos: string;
  currency: string | null;
  complete: boolean;
}

/**
 * The seal statement's CTE inserting the rows (after its `sealed` CTE, whose run they belong to;
 * nothing is written when the seal writes nothing), or nothing without rows. The rows travel as
 * arrays, so the statement's parameters do not grow with them.
 */
export function ledgerCte(rows: readonly UsageLedgerRow[]): Prisma.Sql {
  if (rows.length === 0) return Prisma.empty;
  const column = <K extends keyof UsageLedgerRow>(key: K) => rows.map((row) => row[key]);
  return Prisma.sql`, usage_rows AS (
      INSERT INTO usage_records (run_id, attempt, model_key, workspace_id, agent_id, principal_id, sealed_at, requests,
        input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_picos, currency, complete)
      SELECT sealed.id, sealed.attempts, u.model_key, sealed.workspace_id, sealed.agent_id, sealed.principal_id, sealed.sealed_at, u.requests,
        u.input_tokens, u.output_tokens, u.cached_input_tokens, u.reasoning_tokens, u.cost_picos, u.currency, u.complete
      FROM sealed, unnest(${column('modelKey')}::text[], ${column('requests')}::int[], ${column('inputTokens')}::bigint[],
        ${column('outputTokens')}::bigint[], ${column('cachedInputTokens')}::bigint[], ${column('reasoningTokens')}::bigint[],
        ${column('costPicos')}::numeric[], ${column('currency')}::text[], ${column('complete')}::boolean[])
        AS u(model_key, requests, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_picos, currency, complete)
      ON CONFLICT DO NOTHING
    )`;
}

/** What a run's ledger rows add up to in one currency (null: tokens no price covered). */
export interface RunLedgerTotal {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costPicos: bigint;
  currency: string | null;
  complete: boolean;
}

/**
 * A sealed run's own usage as the ledger has it, one element per currency in currency order (none
 * before it is sealed): read through the ledger's key, which the run leads. Exact amounts, unlike
 * the rounded ones of its `usage_at_seal`.
 */
export async function runLedgerTotals(call: CallContext, runId: string): Promise<RunLedgerTotal[]> {
  const rows = await call.db.$queryRaw<
    {
      requests: number;
      input_tokens: bigint;
      output_tokens: bigint;
      cached_input_tokens: bigint;
      reasoning_tokens: bigint;
      cost_picos: string;
      currency: string | null;
      complete: boolean;
    }[]
  >`SELECT sum(requests)::int AS requests, sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens,
      sum(cached_input_tokens)::bigint AS cached_input_tokens, sum(reasoning_tokens)::bigint AS reasoning_tokens,
      sum(cost_picos)::text AS cost_picos, currency, bool_and(complete) AS complete
    FROM usage_records WHERE run_id = ${runId} AND workspace_id = ${call.actor.workspaceId}
    GROUP BY currency ORDER BY currency NULLS LAST`;
  return rows.map((row) => ({
    requests: row.requests,
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    cachedInputTokens: Number(row.cached_input_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    // A sum of numeric(38,0) has no fraction: the text is an integer.
    costPicos: BigInt(row.cost_picos),
    currency: row.currency,
    complete: row.complete,
  }));
}
