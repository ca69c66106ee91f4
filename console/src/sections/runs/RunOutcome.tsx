// What a run came to: its failure, its output and the usage counted when it was sealed: per model
// that answered, and what its subagents used (shown apart: the run's own figures are its own requests).
import { JsonView } from '../../components/ui';
import { CostAmount } from '../../components/Spending';
import type { RunDetail } from './documents';

export function RunOutcome({ run }: { run: RunDetail }) {
  const hasOutput = run.output !== null && run.output !== undefined;
  if (!run.failure && !hasOutput && !run.usageAtSeal) return null;
  return (
    <section className="panel" aria-labelledby="outcome-heading">
      <h2 id="outcome-heading">Outcome</h2>
      {run.failure ? (
        <p className="notice error">
          Failed: <code>{run.failure.code}</code> {run.failure.message}
        </p>
      ) : null}
      {hasOutput ? (
        <>
          <h3>Output</h3>
          {typeof run.output === 'string' ? <p className="run-text">{run.output}</p> : <JsonView value={run.output} label="Output" />}
        </>
      ) : null}
      {run.usageAtSeal ? (
        <>
          <h3>Usage</h3>
          <p>
            {run.usageAtSeal.requests} model request(s), {run.usageAtSeal.inputTokens} input tokens, {run.usageAtSeal.outputTokens} output
            tokens
          </p>
          {run.usageAtSeal.cost ? (
            <p>
              Cost <CostAmount cost={run.usageAtSeal.cost} />
            </p>
          ) : null}
          {run.usageAtSeal.byModel.length ? (
            <ul aria-label="Usage per model">
              {run.usageAtSeal.byModel.map((row) => (
                <li key={row.model}>
                  <code>{row.model}</code>
                  {`: ${row.requests} request(s), ${row.inputTokens} input tokens, ${row.outputTokens} output tokens, cost ${row.cost.amount}` +
                    (row.cost.currency ? ` ${row.cost.currency}` : '') +
                    (row.cost.complete ? '' : ' (not priced)')}
                </li>
              ))}
            </ul>
          ) : null}
          {run.usageAtSeal.subagents ? (
            <p>
              Subagents ({run.usageAtSeal.subagents.runs} run(s), {run.usageAtSeal.subagents.requests} model request(s)): cost{' '}
              <CostAmount cost={run.usageAtSeal.subagents.cost} />
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
