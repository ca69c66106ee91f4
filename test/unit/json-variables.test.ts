// The service's variable-position rule (src/graphql/json-variables.ts) against graphql-js's own: the
// same answer for every document, except that a variable declared JSON may stand where a document
// scalar is expected, with the same wrappers judged as graphql-js judges them.
import { describe, expect, it } from 'vitest';
import { GraphQLScalarType, buildSchema, parse, specifiedRules, validate } from 'graphql';
import { v1ValidationRules } from '../../src/graphql/json-variables.js';

const schema = buildSchema(`
  scalar JSON
  scalar Labels
  scalar Plain
  input In { labels: Labels, list: [Labels!], plain: Plain }
  input Required { labels: Labels! }
  type Query {
    q(labels: Labels, withDefault: Labels! = {}, list: [Labels!], plain: Plain, json: JSON, input: In): Int
    r(required: Labels!, input: Required): Int
  }
`);
// What documentScalar sets on a document scalar; `Plain` is a scalar that is not one.
(schema.getType('Labels') as GraphQLScalarType).extensions = { document: true };

const messages = (query: string, rules: typeof specifiedRules) => validate(schema, parse(query), rules).map((error) => error.message);

describe('the JSON-variables rule', () => {
  it('answers as graphql-js does wherever no JSON variable meets a document scalar', () => {
    for (const query of [
      'query($l: Labels) { q(labels: $l) }',
      'query($l: Labels) { r(required: $l) }',
      'query($l: Labels = {}) { r(required: $l) }',
      'query($l: String) { q(labels: $l) }',
      'query($l: Plain) { q(labels: $l) }',
      'query($l: JSON) { q(plain: $l) }',
      'query($l: Labels) { q(json: $l) }',
      'query($l: [Labels]) { q(list: $l) }',
      'query($l: Labels) { q(input: {labels: $l}) r(required: $l, input: {labels: $l}) }',
      'query($l: Labels) { q(withDefault: $l) }',
    ]) {
      expect(messages(query, v1ValidationRules), query).toEqual(messages(query, specifiedRules));
    }
  });

  it('lets a JSON variable stand for a document scalar, with the same wrappers', () => {
    for (const query of [
      'query($l: JSON) { q(labels: $l) }',
      'query($l: JSON!) { q(labels: $l) }',
      'query($l: JSON!) { r(required: $l) }',
      'query($l: JSON = {}) { r(required: $l) }',
      'query($l: JSON) { q(withDefault: $l) }',
      'query($l: [JSON!]) { q(list: $l) }',
      'query($l: JSON, $r: JSON!) { q(input: {labels: $l}) r(required: $r, input: {labels: $r}) }',
    ]) {
      expect(messages(query, specifiedRules), query).not.toEqual([]);
      expect(messages(query, v1ValidationRules), query).toEqual([]);
    }
  });

  it('still refuses a JSON variable whose wrappers do not fit, with graphql-js message', () => {
    expect(messages('query($l: JSON) { r(required: $l) }', v1ValidationRules)).toEqual([
      'Variable "$l" of type "JSON" used in position expecting type "Labels!".',
    ]);
    expect(messages('query($l: [JSON]) { q(list: $l) }', v1ValidationRules)).toEqual([
      'Variable "$l" of type "[JSON]" used in position expecting type "[Labels!]".',
    ]);
    expect(messages('query($l: JSON) { q(list: $l) }', v1ValidationRules)).toEqual([
      'Variable "$l" of type "JSON" used in position expecting type "[Labels!]".',
    ]);
    expect(messages('query($l: JSON) { q(plain: $l) }', v1ValidationRules)).toEqual([
      'Variable "$l" of type "JSON" used in position expecting type "Plain".',
    ]);
  });
});
