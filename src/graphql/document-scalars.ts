// Scalars for JSON documents of a fixed shape that keep their canonical snake_case members on the
// wire (labels, run options, message content, header maps): the value a client sends is the one it
// sent as `JSON` before, and the REST shim passes its bodies through unchanged, but the schema now
// names the document, and a value is checked while the variables are coerced — by the very check the
// services apply, so the refusal (code, message, field) is the services' own. The services keep
// their checks for callers that are not GraphQL (the engine, subagents).
import type { InputShape } from '@pothos/core';
import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { isAppError } from '../lib/errors.js';
import { builder } from './builder.js';
import type { Types } from './modules/common.js';
import { DocumentRefusal } from './document-refusal.js';

export function jsonLiteral(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(jsonLiteral);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, jsonLiteral(field.value)]));
    default:
      throw new GraphQLError('JSON literals cannot contain variables');
  }
}

export interface DocumentScalarOptions<T> {
  description: string;
  /** The document's JSON Schema, carried in the scalar's extensions (and printed in its description). */
  jsonSchema?: object;
  /** The services' check: the document, or an AppError naming `field` (the input field's snake_case name). */
  check: (value: unknown, field: string) => T;
  /** The field named when the input field is not known (a literal): the one the services use. */
  field: string;
}

/** Adds a document scalar; its output is the stored document, answered as it is. */
export function documentScalar<Name extends keyof Types['Scalars'] & string>(
  name: Name,
  options: DocumentScalarOptions<InputShape<Types, Name>>,
) {
  const parse = (value: unknown) => {
    try {
      return options.check(value, options.field);
    } catch (error) {
      // Not a GraphQLError (an AppError is one): graphql-js then keeps it as the originalError of
      // the refusal it reports, which the error masker turns back into the services' error.
      if (isAppError(error)) throw new DocumentRefusal(error, (field) => options.check(value, field));
      throw error;
    }
  };
  const schemaText = options.jsonSchema ? ` JSON Schema: ${JSON.stringify(options.jsonSchema)}` : '';
  return builder.scalarType(name, {
    description: `${options.description}${schemaText}`,
    // `document` marks it for the variable rule that lets v1's `$x: JSON` stand here (json-variables.ts).
    extensions: { document: true, ...(options.jsonSchema ? { jsonSchema: options.jsonSchema } : {}) },
    serialize: (value) => value,
    parseValue: parse,
    parseLiteral: (node) => parse(jsonLiteral(node)),
  });
}
