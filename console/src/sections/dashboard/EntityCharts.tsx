// The charts of one agent's or one model's page: its runs over time by status, their duration and
// failures (runStats for the agent or model), and its tokens and cost over time (the usage ledger).
import { useMemo } from 'react';
import { useQuery } from '../../api';
import { ConsoleEntityStatsDocument } from '../../../generated/graphql';
import { ActivityPanel } from './ActivityPanel';
import { useTimeRange } from './RangePicker';
import { usageGroup, usageKeyTime, usageTimes } from './range';
import { RunCharts, whole } from './RunCharts';
import { TimeChart } from './TimeChart';

/** A cost amount as the axis and the table write it (small amounts keep their digits). */
const amount = (value: number) => value.toLocaleString('en', { maximumSignificantDigits: 3 });

export function EntityCharts({ agentId, model }: { agentId?: string; model?: string }) {
  const [range, choose, refresh] = useTimeRange();
  const { data, error, loading } = useQuery(ConsoleEntityStatsDocument, {
    from: range.from,
    to: range.to,
    usageGroup: usageGroup(range.key),
    ...(agentId ? { agentId, agent: agentId } : { model }),
  });
  const times = useMemo(() => usageTimes(range), [range]);
  const usage = useMemo(() => {
    const byTime = new Map((data?.usage.items ?? []).map((item) => [usageKeyTime(item.key), item]));
    const currency = data?.usage.items.find((item) => item.cost.currency)?.cost.currency ?? null;
    return {
      currency,
      tokens: [
        { label: 'input tokens', color: '#2f5bea', values: times.map((time) => byTime.get(time)?.inputTokens ?? 0) },
        { label: 'output tokens', color: '#067647', values: times.map((time) => byTime.get(time)?.outputTokens ?? 0) },
      ],
      cost: [
        {
          label: `cost${currency ? ` (${currency})` : ''}`,
          color: '#6941c6',
          values: times.map((time) => {
            const item = byTime.get(time);
            return item && item.cost.currency === currency ? Number(item.cost.amount) : 0;
          }),
        },
      ],
    };
  }, [data, times]);
  const subject = agentId ? 'this agent' : 'this model';
  return (
    <ActivityPanel range={range} onChoose={choose} onRefresh={refresh} data={data} error={error} loading={loading}>
      {(data) => (
        <>
          <RunCharts stats={data.runStats} subject={subject} />
          <div className="chart-grid">
            <TimeChart
              title={`Tokens over time (per ${usageGroup(range.key)})`}
              times={times}
              series={usage.tokens}
              kind="bars"
              format={whole}
              integer
              empty={`No model requests of ${subject} in this range.`}
            />
            <TimeChart
              title={`Cost over time (per ${usageGroup(range.key)})`}
              times={times}
              series={usage.cost}
              kind="bars"
              format={amount}
              empty={`No priced model requests of ${subject} in this range.`}
            />
          </div>
        </>
      )}
    </ActivityPanel>
  );
}
