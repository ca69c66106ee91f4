// Typed reads of the documents the service itself stores in JSON columns (provider and connection
// configs, finding evidence, span events, …). A column typed `Json` says nothing about its shape, so
// every read used to cast; here the shape is a TypeBox schema, the TypeScript type is derived from it
// (`Static`), and the value read is checked against it. A stored document that does not match is
// corruption or a forgotten migration, never the caller's mistake: the error names the column and is
// answered `internal` (and logged) like any other unexpected failure.
import Type, { type Static, type TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';

/**
 * A JSON object of members this service does not interpret itself: a provider's, connection's or
 * environment's `config`, checked against its provider type's own JSON Schema when it was written.
 */
export const JsonObjectDocument = Type.Record(Type.String(), Type.Unknown());
export type JsonObjectDocument = Static<typeof JsonObjectDocument>;

/** How many of a document's problems an error message lists. */
const MAX_PROBLEMS = 3;

/** A stored JSON document that does not have the shape its column promises. */
export class StoredDocumentError extends Error {
  constructor(
    /** The column read, as `table.column` (e.g. `providers.config`). */
    readonly column: string,
    /** The first problems found, each as `/path message`. */
    readonly problems: string[],
  ) {
    super(`the stored ${column} document does not match its schema: ${problems.join('; ')}`);
    this.name = 'StoredDocumentError';
  }
}

// Compiling a checker costs far more than running it (it generates a function), so each schema is
// compiled once, on its first read. Only the service's own fixed schemas come here (module-level
// constants), so the map never grows with user data; a WeakMap all the same, so a schema built for
// one test does not outlive it.
const checkers = new WeakMap<TSchema, Validator>();

function checkerFor(schema: TSchema): Validator {
  let checker = checkers.get(schema);
  if (!checker) {
    checker = Compile(schema);
    checkers.set(schema, checker);
  }
  return checker;
}

/** Whether a value matches a stored document's schema (for reads that must tell shapes apart). */
export function matchesDocument<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
  return checkerFor(schema).Check(value);
}

/**
 * Reads a JSON column's value as the document `schema` describes, checked by the schema's compiled
 * checker. `column` names the column (`table.column`) in the error thrown when the value does not match.
 */
export function readDocument<T extends TSchema>(schema: T, value: unknown, column: string): Static<T> {
  const checker = checkerFor(schema);
  // The checker's guard is typed with TypeBox's encoded type, which is `Static` for schemas without codecs.
  if (checker.Check(value)) return value as Static<T>;
  const problems = checker
    .Errors(value)
    .slice(0, MAX_PROBLEMS)
    .map((error) => `${error.instancePath || '/'} ${error.message}`);
  throw new StoredDocumentError(column, problems);
}
