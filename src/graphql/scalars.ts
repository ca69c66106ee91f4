import { GraphQLError, Kind, type ValueNode } from 'graphql';
import { builder } from './builder.js';

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with time zone, e.g. 2026-01-31T12:00:00.000Z',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()),
  parseValue: (value) => {
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('DateTime must be an ISO 8601 timestamp with a time zone, e.g. 2026-01-31T12:00:00Z');
    }
    return new Date(value);
  },
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
