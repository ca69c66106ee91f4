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
