import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.js';
import { documentScalar, jsonLiteral } from './document-scalars.js';
import { timestampOrThrow } from '../lib/timestamps.js';
import { LABELS_DESCRIPTION, LabelsSchema, validateLabels } from '../lib/labels.js';

builder.scalarType('DateTime', {
  description: 'An ISO 8601 timestamp with time zone, years 0001 to 9999, e.g. 2026-01-31T12:00:00.000Z',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()),
  parseValue: timestampOrThrow,
  parseLiteral: (node) => timestampOrThrow(node.kind === Kind.STRING ? node.value : null),
});

builder.scalarType('JSON', {
  description: 'Any JSON value. Documents keep their canonical snake_case shape.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node) => jsonLiteral(node),
});

// A label map, in and out (the services' label check, so a bad map is refused with the same
// invalid_argument and field, `labels.<key>`).
documentScalar('Labels', {
  description: `Labels: ${LABELS_DESCRIPTION}.`,
  jsonSchema: LabelsSchema,
  check: validateLabels,
  field: 'labels',
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
