// The differences between two revisions' configurations, line by line in canonical pretty JSON. Added
// and removed lines are <ins> and <del> (announced as insertions and deletions), carry a + or − sign
// and a hidden word for screen readers, as well as a colour: never colour alone.
import { canonicalJson, lineDiff } from './configDiff';
import type { Revision } from './documents';

export function RevisionDiff({ from, to }: { from: Revision; to: Revision }) {
  const lines = lineDiff(canonicalJson(from.configDocument), canonicalJson(to.configDocument));
  const added = lines.filter((line) => line.kind === 'added').length;
  const removed = lines.filter((line) => line.kind === 'removed').length;
  return (
    <section aria-labelledby="diff-heading">
      <h3 id="diff-heading">
        Changes from revision #{from.number} to revision #{to.number}
      </h3>
      <p role="status">
        {added === 0 && removed === 0 ? 'The configurations are identical.' : `${added} lines added, ${removed} lines removed.`}
      </p>
      <pre className="config-diff" aria-label={`Configuration diff from revision ${from.number} to revision ${to.number}`} tabIndex={0}>
        {lines.map((line, index) => {
          if (line.kind === 'added')
            return (
              <ins key={index} className="diff-line diff-add">
                <span className="diff-sign" aria-hidden="true">
                  +{' '}
                </span>
                <span className="visually-hidden">added: </span>
                {line.text}
              </ins>
            );
          if (line.kind === 'removed')
            return (
              <del key={index} className="diff-line diff-remove">
                <span className="diff-sign" aria-hidden="true">
                  −{' '}
                </span>
                <span className="visually-hidden">removed: </span>
                {line.text}
              </del>
            );
          return (
            <span key={index} className="diff-line">
              <span className="diff-sign" aria-hidden="true">
                {'  '}
              </span>
              {line.text}
            </span>
          );
        })}
      </pre>
    </section>
  );
}
