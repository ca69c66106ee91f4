// A write that lost a race for a unique key: two requests checked that a key was free, and the later
// insert hit the unique index. That is the conflict the check answers (409), not an internal error.
import { AppError } from './errors.js';

/** Prisma's code for a unique constraint violation, and PostgreSQL's (a raw statement's). */
const PRISMA_UNIQUE = 'P2002';
const POSTGRES_UNIQUE = '23505';

/** Whether `error` (or an error it wraps) is a unique constraint violation. */
export function isUniqueViolation(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (code === PRISMA_UNIQUE || code === POSTGRES_UNIQUE) return true;
  return isUniqueViolation((error as { cause?: unknown }).cause, depth + 1);
}

/** The 409 answer for a unique key taken by a concurrent write, or null when `error` is not one. */
export function conflictFromError(error: unknown): AppError | null {
  return isUniqueViolation(error)
    ? new AppError('conflict', 'a resource with the same unique key was written concurrently; read it, or retry')
    : null;
}
