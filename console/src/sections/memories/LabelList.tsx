// A row's labels as a list of `key=value` chips.
import type { LabelPair } from '../../lib/labels';

export function LabelList({ labels }: { labels: LabelPair[] }) {
  if (labels.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="label-list">
      {labels.map((label) => (
        <li key={label.key}>
          <code>
            {label.key}={label.value}
          </code>
        </li>
      ))}
    </ul>
  );
}
