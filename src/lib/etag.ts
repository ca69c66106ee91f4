// ETags are `"{id}:{version}"` (`"{key}:{version}"` for models), strong, double quotes included.
import { AppError } from './errors.js';

export function formatEtag(id: string, version: number): string {
  return `"${id}:${version}"`;
}

/**
 * Checks an If-Match value against the current state of a row.
 * `required`: a missing header is refused with 428; a stale or foreign one with 412.
 * Accepts `*` (any current representation) and weak-prefixed values, as RFC 9110 allows.
 */
export function checkIfMatch(ifMatch: string | null | undefined, id: string, version: number, required = true): void {
  if (ifMatch === undefined || ifMatch === null || ifMatch.trim() === '') {
    if (required) throw new AppError('precondition_required', 'this change needs an If-Match header naming the current ETag');
    return;
  }
  const current = formatEtag(id, version);
  const candidates = ifMatch.split(',').map((value) => value.trim().replace(/^W\//, ''));
  if (candidates.includes('*') || candidates.includes(current)) return;
  throw new AppError('precondition_failed', `If-Match does not name the current ETag ${current}`, { current_etag: current });
}

/** Extracts the version an If-Match names for `id`, for compare-and-set updates. */
export function versionFromIfMatch(ifMatch: string, id: string): number | null {
  for (const raw of ifMatch.split(',')) {
    const value = raw.trim().replace(/^W\//, '');
    const match = /^"(.+):(\d+)"$/.exec(value);
    if (match && match[1] === id) return Number(match[2]);
  }
  return null;
}
