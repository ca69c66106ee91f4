// How a deprecated REST route says so on every answer (docs/api/compatibility.md): `Deprecation`
// (RFC 9745: `@` and the Unix time it was deprecated), `Sunset` (RFC 8594: the HTTP date after which it
// may be removed) and, when there is one, a `Link` to its successor (`rel="successor-version"`).

export interface RouteDeprecation {
  /** The day it was deprecated, `YYYY-MM-DD` (UTC). */
  since: string;
  /** The earliest day it may be removed, `YYYY-MM-DD` (UTC); at least the policy's notice after `since`. */
  sunset: string;
  /** The route that replaces it, e.g. `/api/v1/things/{thing_id}`. */
  successor?: string;
}

/** The minimum time between deprecating something and removing it. */
export const MINIMUM_NOTICE_DAYS = 180;

const day = (value: string, what: string): Date => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)))
    throw new Error(`deprecation ${what} must be a YYYY-MM-DD date, not ${JSON.stringify(value)}`);
  return new Date(`${value}T00:00:00Z`);
};

/** Checks a deprecation against the policy (well-formed days, the minimum notice) and gives its headers. */
export function deprecationHeaders(deprecation: RouteDeprecation): Record<string, string> {
  const since = day(deprecation.since, 'since');
  const sunset = day(deprecation.sunset, 'sunset');
  if (sunset.getTime() - since.getTime() < MINIMUM_NOTICE_DAYS * 86_400_000)
    throw new Error(
      `a sunset must come at least ${MINIMUM_NOTICE_DAYS} days after the deprecation (${deprecation.since} → ${deprecation.sunset})`,
    );
  return {
    Deprecation: `@${Math.floor(since.getTime() / 1000)}`,
    Sunset: sunset.toUTCString(),
    ...(deprecation.successor ? { Link: `<${deprecation.successor}>; rel="successor-version"` } : {}),
  };
}
