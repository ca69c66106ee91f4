// The charts of a set of runs (the workspace's, one agent's or one model's) over a time range, from
// runStats: runs over time by status, duration p50 and p95, the failure rate and the top failure codes.
import { useMemo } from 'react';
import { Link } from 'react-router';
import type { DashboardRunStatsFragment, UsageRowFragment } from '../../../generated/graphql';
import { BarTable } from './BarTable';
import { TimeChart } from './TimeChart';

export const STATUS_COLORS: Record<string, string> = {
  accepted: '#8e8e9e',
  running: '#2f5bea',
  waiting: '#a15c07',
  completed: '#067647',
  failed: '#d92d20',
  cancelled: '#6941c6',
};

const STATUSES = Object.keys(STATUS_COLORS);

export const milliseconds = (value: number) =>
  value >= 10_000 ? `${(value / 1000).toFixed(0)} s` : value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
export const percent = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)} %`;
export const whole = (value: number) => Math.round(value).toLocaleString('en');

export function RunCharts({ stats, subject }: { stats: DashboardRunStatsFragment; subject: string }) {
  const times = useMemo(() => stats.buckets.map((bucket) => Date.parse(bucket.start)), [stats]);
  const byStatus = useMemo(
    () =>
      STATUSES.filter((status) => stats.statuses.some((entry) => entry.status === status)).map((status) => ({
        label: status,
        color: STATUS_COLORS[status]!,
        values: stats.buckets.map((bucket) => bucket.statuses.find((entry) => entry.status === status)?.runs ?? 0),
      })),
    [stats],
  );
  const durations = useMemo(
    () => [
      { label: 'p50', color: '#2f5bea', values: stats.buckets.map((bucket) => bucket.durationP50Ms) },
      { label: 'p95', color: '#d92d20', values: stats.buckets.map((bucket) => bucket.durationP95Ms) },
    ],
    [stats],
  );
  return (
    <>
      <dl className="facts stats-summary">
        <dt>Runs</dt>
        <dd>{whole(stats.runs)}</dd>
        <dt>Failure rate</dt>
        <dd>{percent(stats.failureRate)}</dd>
        <dt>Duration p50</dt>
        <dd>{stats.durationP50Ms === null ? '—' : milliseconds(stats.durationP50Ms)}</dd>
        <dt>Duration p95</dt>
        <dd>{stats.durationP95Ms === null ? '—' : milliseconds(stats.durationP95Ms)}</dd>
      </dl>
      <div className="chart-grid">
        <TimeChart
          title={`Runs over time by status (per ${stats.bucket})`}
          times={times}
          series={byStatus}
          kind="bars"
          format={whole}
          integer
          empty={`No runs of ${subject} in this range.`}
        />
        <TimeChart
          title="Run duration, p50 and p95"
          times={times}
          series={durations}
          format={milliseconds}
          empty={`No sealed runs of ${subject} in this range.`}
        />
        <BarTable
          title={`Top failure codes (failure rate ${percent(stats.failureRate)})`}
          columns={['Code', 'Failed runs']}
          rows={stats.failureCodes.map((entry) => ({ key: entry.code, label: <code>{entry.code}</code>, value: entry.runs }))}
          format={whole}
          empty={`No failed runs of ${subject} in this range.`}
        />
      </div>
    </>
  );
}

/** Tokens and cost of usage items (by agent or by model), ranked by tokens. */
export function UsageBars({
  title,
  items,
  label,
  empty,
}: {
  title: string;
  items: UsageRowFragment[];
  label: (key: string) => React.ReactNode;
  empty: string;
}) {
  const rows = [...items]
    .sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens))
    .slice(0, 10)
    .map((item) => ({
      key: item.key,
      label: label(item.key),
      value: item.inputTokens + item.outputTokens,
      cells: [
        whole(item.requests),
        item.cost.currency ? `${item.cost.amount} ${item.cost.currency}${item.cost.complete ? '' : ' (partly unpriced)'}` : 'not priced',
      ],
    }));
  return (
    <BarTable
      title={title}
      columns={['Name', 'Tokens (input + output)', 'Model requests', 'Cost']}
      rows={rows}
      format={whole}
      empty={empty}
    />
  );
}

export const agentLink = (names: Map<string, string>) => (id: string) => <Link to={`/agents/${id}`}>{names.get(id) ?? id}</Link>;
export const modelLink = (key: string) => <Link to={`/models/${encodeURIComponent(key)}`}>{key}</Link>;
