// The usage ledger: one row per sealed run attempt and model it used (`usage_records`), written by
// the statement that seals the run, so a run's usage is in the ledger exactly when its seal is.
// GET /api/v1/usage sums these rows (usage.ts).
import { Prisma } from '../../generated/prisma/client.js';

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
