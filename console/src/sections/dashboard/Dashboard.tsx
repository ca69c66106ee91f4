// The overview's dashboard: over a chosen time range, runs by status, run duration, failures, tokens and
// cost by agent and by model, the busiest agents and webhook delivery health; and the live runs now.
import { useMemo } from 'react';
import { useQuery } from '../../api';
import { ConsoleDashboardDocument } from '../../../generated/graphql';
import { ActivityPanel } from './ActivityPanel';
import { BarTable } from './BarTable';
import { LiveRuns } from './LiveRuns';
import { useTimeRange } from './RangePicker';
import { agentLink, modelLink, percent, RunCharts, UsageBars, whole, milliseconds } from './RunCharts';
import { TimeChart } from './TimeChart';

export function Dashboard() {
  const [range, choose, refresh] = useTimeRange();
  const { data, error, loading } = useQuery(ConsoleDashboardDocument, { from: range.from, to: range.to });
  const names = useMemo(() => new Map(data?.agents.nodes.map((agent) => [agent.id, agent.name]) ?? []), [data]);
  const webhookTimes = useMemo(() => data?.webhookStats.buckets.map((bucket) => Date.parse(bucket.start)) ?? [], [data]);
  const webhookSeries = useMemo(() => {
    const buckets = data?.webhookStats.buckets ?? [];
    return [
      { label: 'succeeded', color: '#067647', values: buckets.map((bucket) => bucket.succeeded) },
      { label: 'failed', color: '#d92d20', values: buckets.map((bucket) => bucket.failed) },
      { label: 'pending', color: '#a15c07', values: buckets.map((bucket) => bucket.pending) },
    ];
  }, [data]);
  return (
    <>
      <LiveRuns />
      <ActivityPanel range={range} onChoose={choose} onRefresh={refresh} data={data} error={error} loading={loading}>
        {(data) => (
          <>
            <RunCharts stats={data.runStats} subject="the workspace" />
            <div className="chart-grid">
              <BarTable
                title="Busiest agents"
                columns={['Agent', 'Runs', 'Failed']}
                rows={data.runStats.busiestAgents.map((agent) => ({
                  key: agent.agentId,
                  label: agentLink(new Map([[agent.agentId, agent.name]]))(agent.agentId),
                  value: agent.runs,
                  cells: [whole(agent.failed)],
                }))}
                format={whole}
                empty="No runs in this range."
              />
              <UsageBars
                title="Tokens and cost by agent"
                items={data.byAgent.items}
                label={agentLink(names)}
                empty="No model requests in this range."
              />
              <UsageBars
                title="Tokens and cost by model"
                items={data.byModel.items}
                label={modelLink}
                empty="No model requests in this range."
              />
              <TimeChart
                title={`Webhook deliveries (failure rate ${percent(data.webhookStats.failureRate)}, last attempt p95 ${
                  data.webhookStats.latencyP95Ms === null ? '—' : milliseconds(data.webhookStats.latencyP95Ms)
                })`}
                times={webhookTimes}
                series={webhookSeries}
                kind="bars"
                format={whole}
                integer
                empty="No webhook deliveries in this range."
              />
            </div>
          </>
        )}
      </ActivityPanel>
    </>
  );
}
