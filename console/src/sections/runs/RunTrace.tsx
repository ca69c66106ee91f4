// A run's trace as a waterfall: its spans on one time axis — attempts, model requests (tokens, time
// to first token), tool calls (permission path, outcome), the reviewer, compaction — nested by parent,
// with retries and pauses marked where they happened. A subagent's spans sit beneath the call that
// delegated to it (its child run shares the trace) and link to that run; a resumed or forked run's
// attempts link to the span of the run they follow from (another trace), and a resumed run points on
// to its successor's trace. Choosing a span shows its attributes; the choice is kept in the address
// (`?span=`), so a finding can open the span it cites. Plain DOM, no charting library: bars are
// positioned in percent of the trace's length. Rows are buttons (Up/Down/Home/End move between
// them), and the same spans read as a table for screen readers.
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ColumnHeads, Empty, ErrorNotice, JsonView, Loading } from '../../components/ui';
import { SETTLED, type RunDetail } from './documents';
import { buildWaterfall, formatMs, type WaterfallRow } from './trace-model';
import { useRunTrace } from './useRunTrace';

const ROLE_NAMES: Record<WaterfallRow['role'], string> = {
  attempt: 'attempt',
  model: 'model request',
  review: 'reviewer request',
  compaction: 'compaction',
  tool: 'tool call',
  other: 'span',
};

/** The span's place in time, for screen readers (the bar says it visually). */
const timing = (row: WaterfallRow) =>
  `${ROLE_NAMES[row.role]}, starts at ${formatMs(row.start)}, ${row.inProgress ? 'still running' : `lasts ${formatMs(row.duration)}`}`;

const factsOf = (row: WaterfallRow) => [...row.facts, ...row.marks.map((mark) => `${mark.label} at ${formatMs(mark.at)}`)];

export function RunTrace({ run }: { run: RunDetail }) {
  // Followed live only when the page opened on a run that could still move: the subscription then
  // ends once the run is sealed or waiting, with every span it heard.
  const [follow] = useState(() => !SETTLED.includes(run.status));
  const trace = useRunTrace(run.id, follow);
  const { rows, total } = useMemo(() => buildWaterfall(trace.spans.values()), [trace.spans]);
  const [params, setParams] = useSearchParams();
  const selectedId = params.get('span');
  const selected = rows.find((row) => row.span.spanId === selectedId) ?? null;
  const [view, setView] = useState<'waterfall' | 'table'>('waterfall');
  const buttons = useRef(new Map<string, HTMLButtonElement>());

  const select = useCallback(
    (spanId: string | null) =>
      setParams(
        (previous) => {
          const next = new URLSearchParams(previous);
          if (spanId) next.set('span', spanId);
          else next.delete('span');
          return next;
        },
        { replace: true },
      ),
    [setParams],
  );

  // A span named in the address (a finding's evidence) is brought into view once it is there.
  const shown = useRef<string | null>(null);
  useEffect(() => {
    if (!selectedId || shown.current === selectedId || !selected) return;
    shown.current = selectedId;
    const button = buttons.current.get(selectedId);
    button?.scrollIntoView({ block: 'center' });
    button?.focus({ preventScroll: true });
  }, [selectedId, selected]);

  const onKeyDown = (event: KeyboardEvent<HTMLOListElement>) => {
    const order = rows.map((row) => row.span.spanId);
    const current = order.indexOf((event.target as HTMLElement).dataset.spanId ?? '');
    if (current < 0) return;
    const target =
      event.key === 'ArrowDown'
        ? Math.min(order.length - 1, current + 1)
        : event.key === 'ArrowUp'
          ? Math.max(0, current - 1)
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? order.length - 1
              : null;
    if (target === null) return;
    event.preventDefault();
    buttons.current.get(order[target]!)?.focus();
  };

  const followsFrom = rows.find((row) => row.role === 'attempt' && row.span.runId === run.id && row.span.links.length > 0);
  const percent = (ms: number) => (total > 0 ? (ms / total) * 100 : 0);

  return (
    <section className="panel run-trace" aria-labelledby="trace-heading">
      <h2 id="trace-heading">Trace</h2>
      <p className="muted">
        {run.traceId ? (
          <>
            Trace <code>{run.traceId}</code>
          </>
        ) : (
          'No trace yet: it starts when a worker takes the run.'
        )}
        {total > 0 ? <> · {formatMs(total)} from the first span to the last</> : null}
      </p>
      <p role="status" className="muted">
        {trace.live ? 'Following the trace live.' : null}
      </p>
      {run.parentRunId && (run.lineage === 'resume' || run.lineage === 'fork') ? (
        <p>
          This run {run.lineage === 'resume' ? 'resumes' : 'was forked from'} run{' '}
          <Link to={`/runs/${run.parentRunId}${followsFrom ? `?span=${followsFrom.span.links[0]!.spanId}` : ''}`}>{run.parentRunId}</Link>
          {followsFrom ? ': its attempts follow from that run’s last attempt (a linked trace).' : '.'}
        </p>
      ) : null}
      {run.resumedById ? (
        <p>
          It continues in run <Link to={`/runs/${run.resumedById}`}>{run.resumedById}</Link>, which has a trace of its own linked to this
          one.
        </p>
      ) : null}
      <ErrorNotice error={trace.error} title="Reading the trace" />
      {trace.loading && rows.length === 0 ? <Loading label="Loading the trace…" /> : null}
      {!trace.loading && rows.length === 0 && !trace.error ? (
        <Empty>
          {trace.live ? 'No spans yet: they appear as the run works.' : 'No spans recorded (or they are past the trace retention).'}
        </Empty>
      ) : null}
      {rows.length > 0 ? (
        <>
          <div role="group" aria-label="Show the trace as" className="trace-views">
            <button type="button" className="secondary" aria-pressed={view === 'waterfall'} onClick={() => setView('waterfall')}>
              Waterfall
            </button>
            <button type="button" className="secondary" aria-pressed={view === 'table'} onClick={() => setView('table')}>
              Table
            </button>
          </div>
          {view === 'waterfall' ? (
            <ol className="waterfall" aria-label="Spans in start order, nested by parent" onKeyDown={onKeyDown}>
              {rows.map((row) => (
                <li
                  key={row.span.spanId}
                  className={`wf-row wf-${row.role}${row.error ? ' wf-error' : ''}${row.inProgress ? ' wf-open' : ''}`}
                  data-span-id={row.span.spanId}
                >
                  <div className="wf-label" style={{ paddingLeft: `${row.depth * 1.1}rem` }}>
                    <button
                      type="button"
                      className="wf-name"
                      aria-pressed={row.span.spanId === selectedId}
                      data-span-id={row.span.spanId}
                      ref={(element) => {
                        if (element) buttons.current.set(row.span.spanId, element);
                        else buttons.current.delete(row.span.spanId);
                      }}
                      onClick={() => select(row.span.spanId === selectedId ? null : row.span.spanId)}
                    >
                      {row.title}
                      <span className="visually-hidden">, {timing(row)}</span>
                    </button>
                    {row.span.runId !== run.id ? (
                      <Link className="wf-run" to={`/runs/${row.span.runId}`}>
                        run {row.span.runId}
                      </Link>
                    ) : null}
                    <span className="wf-facts">{factsOf(row).join(' · ')}</span>
                  </div>
                  <div className="wf-track" aria-hidden="true">
                    <div
                      className="wf-bar"
                      style={{ left: `${percent(row.start)}%`, width: `max(3px, ${percent(row.duration)}%)` }}
                      title={`${row.title}: ${formatMs(row.duration)}`}
                    />
                    {row.marks.map((mark, index) => (
                      <span
                        key={index}
                        className={`wf-mark wf-mark-${mark.kind}`}
                        style={{ left: `${percent(mark.at)}%` }}
                        title={mark.label}
                      />
                    ))}
                  </div>
                  <span className="wf-duration" aria-hidden="true">
                    {row.inProgress ? 'running' : formatMs(row.duration)}
                  </span>
                </li>
              ))}
            </ol>
          ) : (
            <TraceTable rows={rows} runId={run.id} selectedId={selectedId} onSelect={select} />
          )}
        </>
      ) : null}
      {selected ? <SpanDetails row={selected} runId={run.id} onClose={() => select(null)} /> : null}
      {selectedId && !selected && !trace.loading && !trace.live ? (
        <p className="notice">
          Span <code>{selectedId}</code> is not in this run’s trace (it may be past the trace retention).
        </p>
      ) : null}
    </section>
  );
}

function TraceTable({
  rows,
  runId,
  selectedId,
  onSelect,
}: {
  rows: WaterfallRow[];
  runId: string;
  selectedId: string | null;
  onSelect(spanId: string): void;
}) {
  return (
    <table aria-label="Spans">
      <ColumnHeads names={['Span', 'Kind', 'Run, attempt', 'Starts at', 'Duration', 'Status', 'Details']} />
      <tbody>
        {rows.map((row) => (
          <tr key={row.span.spanId} aria-selected={row.span.spanId === selectedId}>
            <td style={{ paddingLeft: `${row.depth * 1.1 + 0.3}rem` }}>
              <button type="button" className="link-button" onClick={() => onSelect(row.span.spanId)}>
                {row.title}
              </button>{' '}
              <span className="muted">(level {row.depth + 1})</span>
            </td>
            <td>{ROLE_NAMES[row.role]}</td>
            <td>
              {row.span.runId === runId ? 'this run' : <Link to={`/runs/${row.span.runId}`}>{row.span.runId}</Link>}, {row.span.attempt}
            </td>
            <td>{formatMs(row.start)}</td>
            <td>{row.inProgress ? 'running' : formatMs(row.duration)}</td>
            <td>{row.span.status.code}</td>
            <td>{factsOf(row).join(' · ')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const isoOf = (unixNano: string) => new Date(Number(BigInt(unixNano) / 1_000_000n)).toISOString();

function SpanDetails({ row, runId, onClose }: { row: WaterfallRow; runId: string; onClose(): void }) {
  const { span } = row;
  const attributes = Object.entries((span.attributes ?? {}) as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  const parentRunId = (span.attributes as Record<string, unknown> | null)?.['wsa.run.parent_run_id'];
  return (
    <section className="span-details" aria-labelledby="span-details-heading">
      <h3 id="span-details-heading">
        {row.title} <span className="muted">({span.name})</span>
      </h3>
      <button type="button" onClick={onClose}>
        Close details
      </button>
      <dl className="facts">
        <dt>Span</dt>
        <dd>
          <code>{span.spanId}</code> ({span.kind})
          {span.parentSpanId ? (
            <>
              {' '}
              beneath <code>{span.parentSpanId}</code>
            </>
          ) : (
            ' (a root span)'
          )}
        </dd>
        <dt>Run</dt>
        <dd>
          {span.runId === runId ? 'this run' : <Link to={`/runs/${span.runId}`}>{span.runId}</Link>}, attempt {span.attempt}
        </dd>
        <dt>Status</dt>
        <dd>
          {span.status.code}
          {span.status.message ? `: ${span.status.message}` : ''}
        </dd>
        <dt>Started</dt>
        <dd>
          {isoOf(span.startTimeUnixNano)} ({formatMs(row.start)} into the trace)
        </dd>
        <dt>Duration</dt>
        <dd>{row.inProgress ? 'still running' : formatMs(span.durationMs)}</dd>
      </dl>
      <h4>Attributes</h4>
      {attributes.length ? (
        <table aria-label="Span attributes" className="span-attributes">
          <ColumnHeads names={['Attribute', 'Value']} />
          <tbody>
            {attributes.map(([name, value]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>{typeof value === 'string' ? value : JSON.stringify(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <Empty>No attributes.</Empty>
      )}
      {span.events.length ? (
        <>
          <h4>Events</h4>
          <ul>
            {span.events.map((event, index) => (
              <li key={index}>
                <code>{event.name}</code> at {isoOf(event.timeUnixNano)}{' '}
                <JsonView value={event.attributes} label={`${event.name} attributes`} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {span.links.length ? (
        <>
          <h4>Links</h4>
          <ul>
            {span.links.map((link) => (
              <li key={`${link.traceId}:${link.spanId}`}>
                Follows from span <code>{link.spanId}</code> of trace <code>{link.traceId}</code>
                {typeof parentRunId === 'string' ? (
                  <>
                    {' '}
                    — <Link to={`/runs/${parentRunId}?span=${link.spanId}`}>open it in run {parentRunId}</Link>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
