// The building blocks the stored documents (agent configuration, run options, output spec) are
// defined with. Each document is defined once, as a TypeBox schema: it is plain JSON Schema (ajv
// validates with it), TypeScript derives the document's type from it (`Static`), and the GraphQL
// types are built from it (src/graphql/document-types.ts, which reads the `x-graphql` hints).
import Type, { type Static, type TObject, type TProperties, type TSchema, type TSchemaOptions, type TUnsafe } from 'typebox';

/** What src/graphql/document-types.ts reads from a schema's `x-graphql` annotation (ajv ignores it). */
export interface GraphqlHints {
  /** Answer this map as a list of entries ordered by key; the entry field that carries the key. */
  entries?: string;
  /** The description of the entry's key field. */
  keyDescription?: string;
  /** For a map whose values are not objects: the entry field that carries the value. */
  value?: string;
  /** The entry's own schema where the map's values do not give it (name, description, members). */
  entry?: TSchema;
  /** Answer this member with another document type made by the converter, by its GraphQL name. */
  type?: string;
}

/** Options of a schema part, with the GraphQL hints typed. */
export type PartOptions = TSchemaOptions & { 'x-graphql'?: GraphqlHints };

/** An object that admits only the members it names (`additionalProperties: false`). */
export const closed = <P extends TProperties>(properties: P, options: PartOptions = {}): TObject<P> =>
  Type.Object(properties, { ...options, additionalProperties: false });

/** A string of at most `max` characters. */
export const strMax = (max: number, options: PartOptions = {}) => Type.String({ ...options, maxLength: max });

/**
 * A free-form object (the spec gives it no members): any JSON object. Written as `{type: "object"}`
 * rather than TypeBox's Record, whose `patternProperties` would change ajv's error paths.
 */
export const freeForm = (options: PartOptions = {}): TUnsafe<Record<string, unknown>> =>
  Type.Unsafe<Record<string, unknown>>({ ...options, type: 'object' });

/** A map from the author's keys to values of one schema (`additionalProperties: value`). */
export const mapOf = <V extends TSchema>(value: V, options: PartOptions = {}): TUnsafe<Record<string, Static<V>>> =>
  Type.Unsafe<Record<string, Static<V>>>({ ...options, type: 'object', additionalProperties: value });

/** One of a fixed set of strings (`enum`). */
export const oneOf = <const V extends readonly string[]>(values: V, options: PartOptions = {}): TUnsafe<V[number]> =>
  Type.Unsafe<V[number]>({ ...options, enum: values });
