// The GraphQL limits as pure logic: every trusted REST shim document (and the standard
// introspection query) fits the default limits, the switches in config, and the root-field count.
import { describe, expect, it } from 'vitest';
import { getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { loadConfig } from '../../src/config.js';
import { getSchema } from '../../src/graphql/schema.js';
import { documentLimitRules } from '../../src/graphql/limits.js';
import { rootResponseKeys, withoutSuggestions } from '../../src/graphql/access.js';
import { loadOperations } from '../../rest-shim/router.js';

const schema = getSchema();

describe('default GraphQL limits', () => {
  const config = loadConfig({});
  const rules = [...specifiedRules, ...documentLimitRules(config)];

  it("admit every REST shim operation, so clients may send the shim's documents over GraphQL", () => {
    const operations = loadOperations();
    expect(operations.size).toBeGreaterThan(50);
    for (const [name, operation] of operations) {
      expect(() => parse(operation.text, { maxTokens: config.graphqlLimits.maxTokens }), name).not.toThrow();
      expect(
        validate(schema, operation.document, rules).map((error) => error.message),
        name,
      ).toEqual([]);
    }
  });

  it('admit the standard introspection query (GraphiQL, code generators)', () => {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    expect(() => parse(query, { maxTokens: config.graphqlLimits.maxTokens })).not.toThrow();
    expect(validate(schema, parse(query), rules)).toEqual([]);
  });

  it('refuse introspection for everyone with GRAPHQL_INTROSPECTION=off', () => {
    const off = [...specifiedRules, ...documentLimitRules(loadConfig({ GRAPHQL_INTROSPECTION: 'off' }))];
    expect(
      validate(schema, parse('{ __schema { queryType { name } } }'), off)
        .map((error) => error.message)
        .join(),
    ).toMatch(/introspection/i);
    expect(validate(schema, parse('{ viewer { principalId } }'), off)).toEqual([]);
  });
});

describe('configuration', () => {
  it('is production unless NODE_ENV says development or test: no GraphiQL by default', () => {
    for (const env of [{}, { NODE_ENV: 'production' }, { NODE_ENV: 'staging' }]) {
      expect(loadConfig(env).env).toBe('production');
      expect(loadConfig(env).graphiql).toBe(false);
    }
    expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ env: 'development', graphiql: true });
    expect(loadConfig({ NODE_ENV: 'development', GRAPHIQL: 'false' }).graphiql).toBe(false);
  });

  it('reads the GraphQL limits, introspection and deadline, and refuses nonsense', () => {
    expect(loadConfig({})).toMatchObject({
      graphqlIntrospection: 'authenticated',
      graphqlTimeoutMs: 30_000,
      graphqlLimits: {
        maxTokens: 2000,
        maxAliases: 100,
        maxDepth: 12,
        maxCost: 20_000,
        maxDirectives: 50,
        maxRootFields: 20,
        maxMutationFields: 10,
      },
    });
    const custom = loadConfig({
      GRAPHQL_MAX_ALIASES: '10',
      GRAPHQL_MAX_MUTATION_FIELDS: '1',
      GRAPHQL_TIMEOUT_MS: '0',
      GRAPHQL_INTROSPECTION: 'public',
    });
    expect(custom).toMatchObject({
      graphqlIntrospection: 'public',
      graphqlTimeoutMs: 0,
      graphqlLimits: { maxAliases: 10, maxMutationFields: 1 },
    });
    expect(() => loadConfig({ GRAPHQL_INTROSPECTION: 'everyone' })).toThrow(/GRAPHQL_INTROSPECTION/);
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '1' })).toThrow(/GRAPHQL_MAX_DEPTH/);
    expect(() => loadConfig({ GRAPHQL_TIMEOUT_MS: '-5' })).toThrow(/GRAPHQL_TIMEOUT_MS/);
  });
});

describe('root fields', () => {
  it('count distinct response keys through fragments, without __typename', () => {
    const [query, mutation] = rootResponseKeys(
      parse(`
      query { a: viewer { principalId } viewer { principalId } viewer { workspaceId } __typename ...F ... on Query { b: viewer { principalId } } }
      mutation { x: logout { loggedOut } y: logout { loggedOut } }
      fragment F on Query { c: workspace { id } ...F2 }
      fragment F2 on Query { ...F }
    `),
    );
    expect([...query!.keys.keys()].sort()).toEqual(['a', 'b', 'c', 'viewer']);
    expect(mutation).toMatchObject({ operation: 'mutation' });
    expect(mutation!.keys.size).toBe(2);
  });

  it('suggestions are taken out of copies, never out of the original errors', () => {
    const errors = validate(schema, parse('{ viewer { principalI } }'));
    const stripped = withoutSuggestions(errors);
    expect(stripped[0]!.message).toBe('Cannot query field "principalI" on type "Viewer".');
    expect(errors[0]!.message).toMatch(/Did you mean "principalId"/);
  });
});
