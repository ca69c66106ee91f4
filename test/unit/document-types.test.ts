// The converter from a document's schema to GraphQL types (src/graphql/document-types.ts): a schema in,
// the printed types out; and an input of the derived input type turned back into the document and
// validated with the same schema.
import { describe, expect, it } from 'vitest';
import SchemaBuilder from '@pothos/core';
import Type from 'typebox';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { graphql, lexicographicSortSchema, printType, type GraphQLSchema } from 'graphql';
import { DocumentTypes } from '../../src/graphql/document-types.js';
import { closed, freeForm, mapOf, oneOf } from '../../src/features/agents/documents/schema-parts.js';

const rule = closed({ level: Type.Optional(oneOf(['low', 'high'], { title: 'Level' })) }, { title: 'Rule', description: 'One rule.' });
const widgetSchema = closed(
  {
    name: Type.String({ description: 'the name' }),
    size: Type.Optional(Type.Integer({ minimum: 1 })),
    ratio: Type.Optional(Type.Number()),
    kind: Type.Optional(oneOf(['a', 'b'])),
    enabled: Type.Optional(Type.Boolean({ default: false })),
    tags: Type.Optional(Type.Array(Type.String())),
    settings: Type.Optional(freeForm({ description: 'free-form' })),
    part_list: Type.Optional(Type.Array(closed({ part_id: Type.String() }))),
    rules: Type.Optional(mapOf(rule, { description: 'the map `rules`, ordered by key', 'x-graphql': { entries: 'key' } })),
    flags: Type.Optional(
      mapOf(Type.Boolean(), { 'x-graphql': { entries: 'flag', value: 'on', entry: Type.Object({}, { title: 'Flag' }) } }),
    ),
    labels: Type.Optional(mapOf(Type.String())),
  },
  { title: 'Widget', description: 'A widget.' },
);

function widgetBuilder() {
  // A builder of its own, without plugins (the plugins' option types are declared for every builder,
  // hence the cast).
  const builder = new SchemaBuilder<{ Scalars: { JSON: { Input: unknown; Output: unknown } }; DefaultFieldNullability: false }>({
    defaultFieldNullability: false,
  } as never);
  builder.scalarType('JSON', { serialize: (value) => value, parseValue: (value) => value });
  const types = new DocumentTypes(builder);
  const WidgetRef = types.objectType<Record<string, unknown>>(widgetSchema);
  const WidgetOverridesRef = types.objectType<Record<string, unknown>>(widgetSchema, {
    name: 'WidgetOverrides',
    partial: 'null when not overridden',
  });
  const WidgetInput = types.inputType(widgetSchema);
  const stored = { name: 'w', rules: { zeta: { level: 'high' }, alpha: {} }, flags: { on: true }, part_list: [{ part_id: 'p1' }] };
  builder.queryType({
    fields: (t) => ({
      widget: t.field({ type: WidgetRef, resolve: () => stored }),
      overrides: t.field({ type: WidgetOverridesRef, resolve: () => ({ size: 2 }) }),
    }),
  });
  builder.mutationType({
    fields: (t) => ({
      // Answers the document the input stands for, as a service would receive it.
      saveWidget: t.field({
        type: 'JSON',
        args: { input: t.arg({ type: WidgetInput, required: true }) },
        resolve: (_root, args) => types.documentFromInput(widgetSchema, args.input),
      }),
    }),
  });
  return builder.toSchema();
}

/** One type of the schema as SDL. */
const printed = (schema: GraphQLSchema, name: string) => printType(schema.getType(name)!);

describe('document types', () => {
  const schema = widgetBuilder();
  const sorted = lexicographicSortSchema(schema);

  it('prints one field per member: scalars, enums by title, lists, nested types, entries and JSON', () => {
    expect(printed(sorted, 'Widget')).toBe(`"""A widget."""
type Widget {
  """false when unset"""
  enabled: Boolean!
  flags: [Flag!]
  kind: String
  labels: JSON

  """the name"""
  name: String!
  partList: [WidgetPartList!]
  ratio: Float

  """the map \`rules\`, ordered by key"""
  rules: [Rule!]

  """free-form"""
  settings: JSON
  size: Int
  tags: [String!]
}`);
    expect(printed(sorted, 'Rule')).toBe('"""One rule."""\ntype Rule {\n  key: String!\n  level: Level\n}');
    expect(printed(sorted, 'Flag')).toBe('type Flag {\n  flag: String!\n  on: Boolean!\n}');
    expect(printed(sorted, 'WidgetPartList')).toBe('type WidgetPartList {\n  partId: String!\n}');
    expect(printed(sorted, 'Level')).toBe('enum Level {\n  high\n  low\n}');
  });

  it('makes every member of a partial type nullable, without defaults', () => {
    const overrides = printed(sorted, 'WidgetOverrides')!;
    expect(overrides).toContain('enabled: Boolean\n');
    expect(overrides).toContain('"""the name; null when not overridden"""\n  name: String\n');
  });

  it('answers stored members, defaults, and maps as entries ordered by key', async () => {
    const result = await graphql({
      schema,
      source: '{ widget { name enabled size rules { key level } flags { flag on } partList { partId } } overrides { name size enabled } }',
    });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      widget: {
        name: 'w',
        enabled: false,
        size: null,
        rules: [
          { key: 'alpha', level: null },
          { key: 'zeta', level: 'high' },
        ],
        flags: [{ flag: 'on', on: true }],
        partList: [{ partId: 'p1' }],
      },
      overrides: { name: null, size: 2, enabled: null },
    });
  });

  it('derives the input type and turns an input back into the document the schema validates', async () => {
    expect(printed(sorted, 'WidgetInput')).toContain('rules: [RuleInput!]');
    expect(printed(sorted, 'RuleInput')).toBe('"""One rule."""\ninput RuleInput {\n  key: String!\n  level: Level\n}');
    const result = await graphql({
      schema,
      source: `mutation { saveWidget(input: {
        name: "w", size: 3, kind: "a", partList: [{partId: "p"}], rules: [{key: "r", level: high}],
        flags: [{flag: "x", on: false}], settings: {any: [1]}, labels: {team: "core"}, ratio: null
      }) }`,
    });
    expect(result.errors).toBeUndefined();
    const document = result.data!.saveWidget;
    expect(document).toEqual({
      name: 'w',
      size: 3,
      kind: 'a',
      part_list: [{ part_id: 'p' }],
      rules: { r: { level: 'high' } },
      flags: { x: false },
      settings: { any: [1] },
      labels: { team: 'core' },
    });
    const validate = new Ajv2020({ strict: false }).compile(widgetSchema);
    expect(validate(document)).toBe(true);
    // The schema, not the GraphQL type, decides what is valid: a size of 0 passes GraphQL, not ajv.
    expect(validate({ ...(document as object), size: 0 })).toBe(false);
  });
});
