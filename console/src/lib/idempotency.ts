// Idempotency keys for the forms that start something (a run, a fork, an analysis, a resume). One key
// stands for one request the person means: a form keeps it while it is unchanged, so submitting again
// after a lost answer gets the same result back rather than a second one, and takes a new one when the
// form changes or its request went through.
import { useCallback, useState } from 'react';

/** A fresh key. crypto.getRandomValues works on plain-HTTP deployments too (randomUUID needs a secure context). */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `console-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * A form's key and the way to replace it (after the form changed, or its request went through). A new
 * `scope` (the form now acts on another run) takes a new key too.
 */
export function useIdempotencyKey(scope: unknown = null): [key: string, renew: () => void] {
  const [state, setState] = useState(() => ({ scope, key: newIdempotencyKey() }));
  const renew = useCallback(() => setState((previous) => ({ scope: previous.scope, key: newIdempotencyKey() })), []);
  if (!Object.is(state.scope, scope)) {
    // Adjusting state while rendering (React's pattern for "reset when a prop changes").
    const next = { scope, key: newIdempotencyKey() };
    setState(next);
    return [next.key, renew];
  }
  return [state.key, renew];
}
