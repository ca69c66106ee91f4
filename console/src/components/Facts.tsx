// The facts of one thing (its id, state, version, who changed it when) as a description list, the
// same markup on every detail page.
import { Fragment, type ReactNode } from 'react';
import { Time } from './ui';

/** One fact: its term and what it is; `false`/`null` leave a fact out (one that does not apply). */
export type Fact = readonly [term: string, value: ReactNode] | false | null;

export function Facts({ facts }: { facts: Fact[] }) {
  return (
    <dl className="facts">
      {facts.map((fact) =>
        fact ? (
          <Fragment key={fact[0]}>
            <dt>{fact[0]}</dt>
            <dd>{fact[1]}</dd>
          </Fragment>
        ) : null,
      )}
    </dl>
  );
}

/** When and by whom (a principal id): "Created", "Updated". */
export function ChangedBy({ at, by }: { at: string | null; by: string }) {
  return (
    <>
      <Time value={at} /> by <code>{by}</code>
    </>
  );
}
