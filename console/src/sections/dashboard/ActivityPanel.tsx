// The "Activity" panel the overview and an agent's or a model's page share: the time range to read,
// the refusal, "Loading the statistics…" until the first answer, then the charts of that answer
// (kept on screen while another range is read, the panel marked busy).
import { useId, type ReactNode } from 'react';
import { ErrorNotice, Loading } from '../../components/ui';
import { RangePicker } from './RangePicker';
import type { RangeKey, TimeRange } from './range';

export function ActivityPanel<D>({
  range,
  onChoose,
  onRefresh,
  data,
  error,
  loading,
  children,
}: {
  range: TimeRange;
  onChoose(key: RangeKey): void;
  onRefresh(): void;
  /** The statistics' answer for the range, once read. */
  data: D | undefined;
  error: unknown;
  loading: boolean;
  children(data: D): ReactNode;
}) {
  const headingId = useId();
  return (
    <section className="panel dashboard" aria-labelledby={headingId} aria-busy={loading}>
      <h2 id={headingId}>Activity</h2>
      <RangePicker range={range} onChoose={onChoose} onRefresh={onRefresh} />
      <ErrorNotice error={error} title="Could not read the statistics" />
      {loading && !data ? <Loading label="Loading the statistics…" /> : null}
      {data ? children(data) : null}
    </section>
  );
}
