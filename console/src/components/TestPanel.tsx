// The "Test" panel of a thing the service can probe (a model provider, a connection): one button that
// asks the service to try it now, the refusal if any, and the outcome announced politely. The outcome
// is forgotten when the page moves to another thing.
import { useEffect, useState, type ReactNode } from 'react';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { useMutation } from '../api';
import { Badge, ErrorNotice } from './ui';

export function TestPanel<R, V, T extends { status: string }>({
  document,
  variables,
  outcomeOf,
  buttonLabel,
  className = 'panel',
  explanation,
  describe,
}: {
  /** The test mutation. */
  document: TypedDocumentNode<R, V>;
  /** Its variables (the thing's id); a change of them forgets the last outcome. */
  variables: V;
  /** The outcome in the mutation's answer. */
  outcomeOf(data: R): T;
  buttonLabel: string;
  className?: string;
  explanation: ReactNode;
  /** The outcome in words, after its status badge. */
  describe(outcome: T): ReactNode;
}) {
  const [test, state] = useMutation(document);
  const [outcome, setOutcome] = useState<T | null>(null);
  const key = JSON.stringify(variables);
  useEffect(() => setOutcome(null), [key]);
  return (
    <section aria-labelledby="test-heading" className={className}>
      <h2 id="test-heading">Test</h2>
      <p className="muted">{explanation}</p>
      <button
        type="button"
        disabled={state.loading}
        onClick={async () => {
          setOutcome(null);
          const data = await test(variables);
          if (data) setOutcome(outcomeOf(data));
        }}
      >
        {state.loading ? 'Testing…' : buttonLabel}
      </button>
      <ErrorNotice error={state.error} title="Could not test" />
      <div role="status" aria-live="polite" className="notice" hidden={!outcome}>
        {outcome ? (
          <>
            <Badge value={outcome.status} /> {describe(outcome)}
          </>
        ) : null}
      </div>
    </section>
  );
}
