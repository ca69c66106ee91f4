// `Prefer: wait=N` (RFC 7240 §4.3): how long a client is willing to wait for a run to be sealed or
// waiting. Shared by the REST shim (which reads the header) and the services (which check the
// GraphQL `wait` argument against the same maximum).

/** The longest wait a request may ask for, in seconds; REST cuts a longer preference to this. */
export const MAX_WAIT_SECONDS = 60;

/**
 * The `wait` preference of a Prefer header value (several headers joined by commas), cut to
 * MAX_WAIT_SECONDS; null when there is none or it is not a number of seconds — RFC 7240 has a
 * server ignore a preference it cannot understand, so a bad value is not an error. Only the first
 * `wait` counts (§2: a preference given twice is read once, the first time).
 */
export function parsePreferWait(header: string | null | undefined): number | null {
  if (!header) return null;
  for (const preference of header.split(',')) {
    // token [BWS "=" BWS word] *(OWS ";" [OWS parameter]); the parameters do not matter for wait.
    const [head = ''] = preference.split(';');
    const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*(.*?))?\s*$/.exec(head);
    if (!match || match[1]!.toLowerCase() !== 'wait') continue;
    const raw = match[2]?.startsWith('"') && match[2].endsWith('"') && match[2].length >= 2 ? match[2].slice(1, -1) : match[2];
    if (raw === undefined || !/^\d{1,12}$/.test(raw)) return null;
    return Math.min(Number(raw), MAX_WAIT_SECONDS);
  }
  return null;
}
