// What one agent or one model spent over the last 30 days, from the usage ledger (`usage` query):
// model requests, tokens and cost, as the agent and model pages show it.
import { ConsoleSpendingDocument, type CostFieldsFragment } from '../../generated/graphql';
import { useQuery } from '../api';
import { ErrorNotice, Loading } from './ui';

export function Spending({ agentId, model }: { agentId?: string; model?: string }) {
  const { data, error, loading } = useQuery(ConsoleSpendingDocument, agentId ? { groupBy: 'agent', agentId } : { groupBy: 'model', model });
  const item = data?.usage.items[0];
  return (
    <section className="panel" aria-labelledby="spending-heading">
      <h2 id="spending-heading">Spending, last 30 days</h2>
      {error ? <ErrorNotice error={error} title="Could not read the usage" /> : null}
      {loading && !data ? <Loading label="Loading the usage…" /> : null}
      {data && !item ? <p>No model requests in the last 30 days.</p> : null}
      {item ? (
        <p>
          Cost <CostAmount cost={item.cost} /> — {item.requests} model request(s), {item.inputTokens} input tokens, {item.outputTokens}{' '}
          output tokens
        </p>
      ) : null}
    </section>
  );
}

/** An amount as the ledger reports it, in bold, saying so when some of its requests were not priced. */
export function CostAmount({ cost }: { cost: CostFieldsFragment }) {
  return (
    <>
      <strong>
        {cost.amount} {cost.currency ?? ''}
      </strong>
      {cost.complete ? '' : ' (some requests were not priced)'}
    </>
  );
}
