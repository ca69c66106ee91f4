// One run item, shown by its kind: what the person reading the transcript needs of it (the text, the
// tool and its arguments, the result, the verdict), with the raw content one click away.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Badge, JsonView } from '../../components/ui';
import type { RunItem } from './documents';

const KIND_TITLES: Record<string, string> = {
  user_message: 'User message',
  text_message: 'Assistant',
  reasoning: 'Reasoning',
  tool_call: 'Tool call',
  tool_result: 'Tool result',
  approval_request: 'Approval request',
  client_call: 'Client call',
  question: 'Question',
  error: 'Error',
  subagent_run: 'Subagent run',
  memory_recall: 'Memory recall',
  media_description: 'Media description',
  context_compaction: 'Context compaction',
  provider_wait: 'Provider wait',
  review: 'Review',
  output: 'Output',
};

export const kindTitle = (kind: string) => KIND_TITLES[kind] ?? kind.replace(/_/g, ' ');

/** The text and media parts of a message (`{content: [...]}` parts). */
function MessageParts({ parts }: { parts: unknown }) {
  if (!Array.isArray(parts)) return <JsonView value={parts} />;
  return (
    <>
      {parts.map((part: Record<string, any>, index) =>
        part?.type === 'text' ? (
          <p key={index} className="run-text">
            {String(part.text ?? '')}
          </p>
        ) : (
          <p key={index} className="muted">
            [{part?.type ?? 'part'}
            {part?.media_type ? ` ${part.media_type}` : ''}
            {part?.asset_id ? ` asset ${part.asset_id}` : ''}]
          </p>
        ),
      )}
    </>
  );
}

function ToolName({ content }: { content: Record<string, any> }) {
  return (
    <p>
      <code>{String(content.tool_name ?? '')}</code>
      {content.tool_call_id ? <span className="muted"> · call {String(content.tool_call_id)}</span> : null}
    </p>
  );
}

function Arguments({ value }: { value: unknown }) {
  if (value === undefined) return null;
  return <JsonView value={value} label="Arguments" />;
}

function body(item: RunItem): ReactNode {
  // The content is the item's JSON object; which members it has depends on the kind.
  const content = (item.content ?? {}) as Record<string, any>;
  switch (item.kind) {
    case 'user_message':
      return (
        <>
          {content.steered ? <p className="muted">Steered into the running run</p> : null}
          <MessageParts parts={content.content} />
        </>
      );
    case 'text_message':
      return <p className="run-text">{String(content.text ?? '')}</p>;
    case 'reasoning':
      return (
        <details>
          <summary>Show reasoning</summary>
          <p className="run-text">{String(content.text ?? '')}</p>
        </details>
      );
    case 'tool_call':
      return (
        <>
          <ToolName content={content} />
          {content.server ? <p className="muted">Runs on the service</p> : null}
          <Arguments value={content.arguments} />
          {content.error ? <p className="run-error">{String(content.error)}</p> : null}
        </>
      );
    case 'tool_result':
      return (
        <>
          <ToolName content={content} />
          {content.denied ? <p className="run-error">Denied by {String(content.denied_by ?? 'someone')}</p> : null}
          {content.error ? <p className="run-error">{String(content.error)}</p> : null}
          {'result' in content ? <JsonView value={content.result} label="Result" /> : null}
        </>
      );
    case 'approval_request':
    case 'client_call':
      return (
        <>
          <ToolName content={content} />
          <Arguments value={content.arguments} />
          {content.review ? <JsonView value={content.review} label="Reviewer's verdict" /> : null}
        </>
      );
    case 'question':
      return (
        <>
          <p className="run-text">{String(content.question ?? '')}</p>
          {Array.isArray(content.choices) && content.choices.length ? (
            <p className="muted">Choices: {content.choices.map(String).join(', ')}</p>
          ) : null}
        </>
      );
    case 'error':
      return (
        <p className="run-error">
          <code>{String(content.code ?? 'error')}</code> {String(content.message ?? '')}
          {content.retrying ? <span className="muted"> (retrying)</span> : null}
        </p>
      );
    case 'subagent_run':
      return (
        <p>
          Subagent <strong>{String(content.name ?? '')}</strong> ({String(content.mode ?? 'run')}){' '}
          {content.run_id ? <Link to={`/runs/${String(content.run_id)}`}>open its run {String(content.run_id)}</Link> : null}{' '}
          {content.status ? <Badge value={String(content.status)} /> : null}
        </p>
      );
    case 'memory_recall':
      return (
        <>
          <p>
            From memory <strong>{String(content.memory ?? content.memory_id ?? '')}</strong>:{' '}
            {Array.isArray(content.records) ? `${content.records.length} record(s)` : null}
          </p>
          <JsonView value={content.records} label="Recalled records" />
        </>
      );
    case 'media_description':
      return (
        <>
          <p className="muted">
            {String(content.media_kind ?? 'media')} {String(content.media_type ?? '')}
          </p>
          {typeof content.description === 'string' || typeof content.text === 'string' ? (
            <p className="run-text">{String(content.description ?? content.text)}</p>
          ) : (
            <JsonView value={content} />
          )}
        </>
      );
    case 'context_compaction':
      return (
        <>
          <p className="muted">
            {String(content.messages_summarised ?? 0)} message(s) summarised by {String(content.model ?? 'the model')} (
            {String(content.reason ?? 'threshold')}): {String(content.tokens_before ?? '?')} → {String(content.tokens_after ?? '?')} tokens
          </p>
          {typeof content.summary === 'string' ? <p className="run-text">{content.summary}</p> : null}
          {typeof content.error === 'string' ? <p className="error">{content.error}</p> : null}
        </>
      );
    case 'provider_wait':
      return (
        <p className="muted">
          {content.until
            ? `${String(content.model)} refused (${String(content.status)} ${String(content.reason)}); asked again at ${new Date(String(content.until)).toLocaleTimeString()}`
            : content.answered_by
              ? `Answered by ${String(content.answered_by)} after ${String(content.waits ?? 0)} wait(s)`
              : `Gave up on ${String(content.model)} after ${String(content.waits ?? 0)} wait(s)`}
        </p>
      );
    case 'review':
      return (
        <>
          <ToolName content={content} />
          <p>
            {content.risk ? <>Risk {String(content.risk)} </> : 'Reviewing… '}
            {content.action ? <Badge value={String(content.action)} /> : null}
          </p>
          {content.reason ? <p className="run-text">{String(content.reason)}</p> : null}
        </>
      );
    case 'output':
      return typeof content.value === 'string' ? (
        <p className="run-text">{content.value}</p>
      ) : (
        <JsonView value={content.value} label="Output" />
      );
    default:
      return <JsonView value={content} />;
  }
}

export function RunItemView({ item }: { item: RunItem }) {
  const headingId = `run-item-${item.ordinal}`;
  return (
    <article className={`run-item run-item-${item.kind}`} aria-labelledby={headingId} data-state={item.state}>
      <header className="run-item-header">
        <h3 id={headingId}>
          {item.ordinal}. {kindTitle(item.kind)}
        </h3>
        <Badge value={item.state} />
      </header>
      {body(item)}
      {item.contentRefList.length ? (
        <ul className="muted">
          {item.contentRefList.map((ref) => (
            <li key={ref.id}>
              {ref.name} ({ref.mediaType}, {ref.sizeBytes} bytes{ref.truncated ? ', preview' : ''}): {ref.preview}
            </li>
          ))}
        </ul>
      ) : null}
    </article>
  );
}
