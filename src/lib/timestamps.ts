// The one rule for timestamps callers send (filters such as created_after, and any DateTime
// argument): ISO 8601 with a time zone, years 0001 to 9999. PostgreSQL's timestamptz cannot take
// year 0 or negative years (error 22008), and JavaScript's Date accepts far more than ISO 8601.
import { GraphQLError } from 'graphql';

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2}))$/i;

export const TIMESTAMP_RULE = 'an ISO 8601 timestamp with a time zone between 0001-01-01 and 9999-12-31, e.g. 2026-01-31T12:00:00Z';

/** The instant `text` names, or null when it is not a timestamp this service accepts. */
export function parseTimestamp(text: string): Date | null {
  const match = ISO_8601.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match;
  const y = Number(year),
    mo = Number(month),
    d = Number(day);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (y < 1 || daysInMonth === undefined || d < 1 || d > daysInMonth) return null;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return null;
  if (offsetHours !== undefined && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  // Date parses the ISO profile with a colon in the offset; callers may leave it out.
  const date = new Date(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (Number.isNaN(date.getTime())) return null;
  // An offset can carry 0001-01-01T00:00+01:00 into year 0, and 9999-12-31T23:59-01:00 into 10000.
  const utcYear = date.getUTCFullYear();
  if (utcYear < 1 || utcYear > 9999) return null;
  return date;
}

/** parseTimestamp for the GraphQL DateTime scalar: a GraphQLError when the text is refused. */
export function timestampOrThrow(value: unknown): Date {
  const date = typeof value === 'string' ? parseTimestamp(value) : null;
  if (!date) throw new GraphQLError(`DateTime must be ${TIMESTAMP_RULE}`);
  return date;
}
