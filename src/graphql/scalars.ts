import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { builder } from './builder.js';
import { timestampOrThrow } from '../lib/timestamps.js';

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with time zone, years 0001 to 9999, e.g. 2026-01-31T12:00:00.000Z',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()),
  parseValue: timestampOrThrow,
  parseLiteral: (node) => timestampOrThrow(node.kind === Kind.STRING ? node.value : null),
});

function literal(node: ValueNode): unknown {
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
      return node.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literal(field.value)]));
    default:
      throw new GraphQLError('JSON literals cannot contain variables');
  }
}

builder.scalarType('JSON', {
  description: 'Any JSON value. Documents keep their canonical snake_case shape.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node) => literal(node),
});

// Uploads (the GraphQL multipart request specification, which Yoga implements): the value of a
// `File` variable is the uploaded file. The REST shim passes its spooled uploads the same way.
builder.scalarType('File', {
  description: 'A file upload (GraphQL multipart request); input only',
  serialize: () => {
    throw new GraphQLError('File is an input type');
  },
  parseValue: (value) => {
    if (value === null || typeof value !== 'object' || typeof (value as Blob).stream !== 'function')
      throw new GraphQLError('File must be a file of a multipart request');
    return value as File;
  },
  parseLiteral: () => {
    throw new GraphQLError('File must be a file of a multipart request, not a literal');
  },
});
