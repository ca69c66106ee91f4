// How the section shows messages: an input or inbox payload is `{content: [parts]}`; text parts are
// shown as text and other parts (images, files) by their kind, so nothing is silently dropped.
import { JsonView } from '../../components/ui';

interface Part {
  type?: string;
  text?: string;
  media_type?: string;
  asset_id?: string;
}

/** The message as plain text: its text parts, then a note for each other part. */
export function messageText(message: unknown): string {
  const content = (message as { content?: Part[] } | null)?.content;
  if (!Array.isArray(content)) return typeof message === 'string' ? message : JSON.stringify(message);
  return content
    .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type ?? 'part'}${part.asset_id ? ` ${part.asset_id}` : ''}]`))
    .join('\n');
}

/** A message payload for the API from what the user typed. */
export function textMessage(text: string) {
  return { content: [{ type: 'text', text }] };
}

/** A run's output: text as text, a structured output (an `output_spec` run) as JSON, none as a dash. */
export function RunOutput({ value, label }: { value: unknown; label: string }) {
  if (value === null || value === undefined) return <span className="muted">—</span>;
  if (typeof value === 'string') return <p className="thread-text">{value}</p>;
  return <JsonView value={value} label={label} />;
}
