// A chart over time (uPlot, drawn on a canvas) with its data as a table for screen readers, and an
// empty state when the range holds nothing. The canvas is hidden from assistive technology; the table
// (visually hidden, named by the chart's title) says the same figures in words. uPlot is part of the
// dashboard's chunk, loaded with the sections that draw charts, never with the console's frame.
import { useEffect, useId, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Empty } from '../../components/ui';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

export interface TimeChartProps {
  title: string;
  /** Bucket starts, in milliseconds since the epoch. */
  times: number[];
  series: ChartSeries[];
  kind?: 'lines' | 'bars';
  /** How a value is written in the table and on the axis. */
  format?: (value: number) => string;
  /** Shown instead of the chart when every value is zero or missing. */
  empty: string;
  /** How a bucket's start is written in the table. */
  bucketLabel?: (time: number) => string;
  /** The values are counts: the axis ticks whole numbers only. */
  integer?: boolean;
}

const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7, 1e8, 1e9];

const plain = (value: number) => String(Math.round(value * 100) / 100);
const utc = (time: number) =>
  new Date(time)
    .toISOString()
    .replace('T', ' ')
    .replace(/:00\.000Z$/, ' UTC');

/** Running sums of the series, bucket by bucket; a bucket whose sum is zero draws nothing (null). */
function stacked(series: ChartSeries[]): (number | null)[][] {
  const sums = series[0]?.values.map(() => 0) ?? [];
  return series.map((line) =>
    line.values.map((value, index) => {
      sums[index]! += value ?? 0;
      return sums[index] === 0 ? null : sums[index]!;
    }),
  );
}

export function TimeChart({
  title,
  times,
  series,
  kind = 'lines',
  format = plain,
  empty,
  bucketLabel = utc,
  integer = false,
}: TimeChartProps) {
  const titleId = useId();
  const holder = useRef<HTMLDivElement>(null);
  const hasData = series.some((line) => line.values.some((value) => value !== null && value !== 0));
  // Rows for the table: the buckets where something happened (a range of 1,440 minutes is mostly empty).
  const rows = times.map((time, index) => ({ time, index })).filter(({ index }) => series.some((line) => (line.values[index] ?? 0) !== 0));

  useEffect(() => {
    const element = holder.current;
    if (!element || !hasData) return;
    const bars = kind === 'bars' ? uPlot.paths.bars!({ size: [0.6, 40], align: 0 }) : undefined;
    // Bars are stacked: each series is drawn as the running sum up to it, the tallest first, so every
    // series' share shows; the legend reads the series' own values.
    const drawn = kind === 'bars' ? stacked(series) : series.map((line) => line.values);
    const order = kind === 'bars' ? series.map((_, index) => series.length - 1 - index) : series.map((_, index) => index);
    const style = getComputedStyle(element);
    const muted = style.getPropertyValue('--muted').trim() || '#5b6170';
    const line = style.getPropertyValue('--line').trim() || '#d8dbe3';
    const options: uPlot.Options = {
      width: Math.max(element.clientWidth, 240),
      height: 220,
      legend: { show: true },
      cursor: { drag: { x: false, y: false } },
      // Counts and durations start at zero, so bars and lines compare by their height.
      scales: { x: { time: true }, y: { range: (_plot, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      // UTC on the axis, as in the table and the buckets.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      // The page's own colours (light or dark) for the axes' text and the grid; uPlot's are black.
      axes: [
        { stroke: muted, grid: { stroke: line }, ticks: { stroke: line } },
        {
          stroke: muted,
          grid: { stroke: line },
          ticks: { stroke: line },
          values: (_plot, ticks) => ticks.map(format),
          size: 60,
          ...(integer ? { incrs: WHOLE_STEPS } : {}),
        },
      ],
      series: [
        {},
        ...order
          .map((index) => series[index]!)
          .map((line) => ({
            label: line.label,
            value: (_plot: uPlot, _value: number | null, _series: number, at: number | null) =>
              at === null || line.values[at] === null || line.values[at] === undefined ? '—' : format(line.values[at]!),
            stroke: line.color,
            fill: kind === 'bars' ? `${line.color}99` : undefined,
            width: kind === 'bars' ? 1 : 2,
            paths: bars,
            spanGaps: false,
            points: { show: kind === 'lines' && times.length <= 60 },
          })),
      ],
    };
    const data: uPlot.AlignedData = [times.map((time) => time / 1000), ...order.map((index) => drawn[index]!)];
    const plot = new uPlot(options, data, element);
    // Follows the page's width (a narrow window, the sidebar folding).
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(element.clientWidth, 240), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, kind, format, hasData, integer]);

  return (
    <figure className="chart" aria-labelledby={titleId}>
      <figcaption id={titleId}>{title}</figcaption>
      {hasData ? (
        <>
          <div ref={holder} className="chart-canvas" aria-hidden="true" data-chart={title} />
          <table className="visually-hidden">
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                {series.map((line) => (
                  <th scope="col" key={line.label}>
                    {line.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map(({ time, index }) => (
                <tr key={time}>
                  <th scope="row">{bucketLabel(time)}</th>
                  {series.map((line) => (
                    <td key={line.label}>{line.values[index] === null ? '—' : format(line.values[index]!)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <Empty>{empty}</Empty>
      )}
    </figure>
  );
}
