// GraphQL types built from the JSON Schema of a stored document (a TypeBox schema: src/agents/
// schema-parts.ts), so a document's shape is written once and the GraphQL types cannot drift from
// what its validation admits. The rules, member by member:
//
// - a member becomes a field named in camelCase (`model_settings` → `modelSettings`), answering the
//   stored member, or null when the document does not set it;
// - it is non-null when the schema requires it, or has a `default` (then answered when unset, and
//   described as "<default> when unset"); in a `partial` type (overrides: any subset) nothing is;
// - `string`, `integer`, `number`, `boolean` → String, Int, Float, Boolean; arrays → lists of their
//   items' type (items non-null); an enum with a `title` → the GraphQL enum of that name (given, or
//   made here), without one → String;
// - an object with members → an object type named by its `title` (or by its path: parent type name +
//   member name), described by the schema's description; an object without members (free-form, a
//   JSON Schema document, a map of plain values) → JSON;
// - `x-graphql.entries`: a map (or a closed object of named members) → a list of entries ordered by
//   key, each carrying its key in that field (GraphQL cannot name keys it does not know);
// - `x-graphql.type`: the member is answered with another type made here, by its name (a subagent's
//   overrides are configuration overrides).
//
// Everywhere else a schema's `description` describes the field. Input types follow the same rules
// (nested inputs named `<title>Input`); `documentFromInput` turns an input's value back into the
// document (snake_case members, entries back into maps), which is then validated with the schema.
import type { SchemaTypes } from '@pothos/core';
import type { TSchema } from 'typebox';
import type { GraphqlHints } from '../features/agents/documents/schema-parts.js';
import { entriesByKey } from '../features/agents/documents/config-document.js';

/** The parts of JSON Schema the converter reads. */
interface JsonSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: readonly string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: boolean | JsonSchema;
  'x-graphql'?: GraphqlHints;
}

type Builder<Types extends SchemaTypes> = PothosSchemaTypes.SchemaBuilder<Types>;
/** What a field's type may be: a scalar's name, a ref made by the builder, or a list of one. */
type TypeParam = unknown;
type Document = Record<string, unknown>;

interface FieldPlan {
  name: string;
  type: () => TypeParam;
  nullable: boolean;
  description?: string;
  resolve: (document: Document) => unknown;
}

/** The field builder's one method used here (the types are built at run time, so typed loosely). */
interface LooseFieldBuilder {
  field(options: Record<string, unknown>): unknown;
}

/** `model_settings` → `modelSettings`. */
export const camelCase = (member: string): string => member.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
const pascalCase = (member: string): string => camelCase(member).replace(/^./, (letter) => letter.toUpperCase());

const SCALARS: Record<string, string> = { string: 'String', integer: 'Int', number: 'Float', boolean: 'Boolean' };

const hintsOf = (schema: JsonSchema): GraphqlHints => schema['x-graphql'] ?? {};
const hasMembers = (schema: JsonSchema): boolean => schema.type === 'object' && Object.keys(schema.properties ?? {}).length > 0;

/** Whether a member's schema becomes an object type of its own (its description is then the type's). */
function becomesObjectType(schema: JsonSchema): boolean {
  const hints = hintsOf(schema);
  return hints.entries === undefined && hints.type === undefined && schema.enum === undefined && hasMembers(schema);
}

/** The schema of one entry of a map answered as entries: the key field first, then the value's members. */
function entrySchemaOf(map: JsonSchema): JsonSchema {
  const { entries: key, value, entry, keyDescription } = hintsOf(map) as Required<Pick<GraphqlHints, 'entries'>> & GraphqlHints;
  const keyField: JsonSchema = { type: 'string', description: keyDescription };
  const mapValues = typeof map.additionalProperties === 'object' ? map.additionalProperties : {};
  if (value !== undefined) {
    const named = (entry ?? {}) as JsonSchema;
    return { ...named, type: 'object', properties: { [key]: keyField, [value]: mapValues }, required: [key, value] };
  }
  const base = ((entry as JsonSchema | undefined) ?? mapValues) as JsonSchema;
  return { ...base, type: 'object', properties: { [key]: keyField, ...base.properties }, required: [key, ...(base.required ?? [])] };
}

export interface DocumentTypeOptions {
  /** The GraphQL name (default: the schema's `title`). */
  name?: string;
  description?: string;
  /**
   * A type of overrides: every member nullable and no defaults. The text says what null means; it is
   * added to the description of the members the document requires.
   */
  partial?: string;
}

/** Builds GraphQL object and input types from document schemas, each type once (by name). */
export class DocumentTypes<Types extends SchemaTypes> {
  private readonly objects = new Map<string, unknown>();
  private readonly inputs = new Map<string, unknown>();
  /** The schema behind each type made here, by type name (for `documentFromInput` of `x-graphql.type`). */
  private readonly schemas = new Map<string, JsonSchema>();
  private readonly enums: Map<string, unknown>;

  constructor(
    private readonly builder: Builder<Types>,
    /** The enum types the documents' titled enums name, by title; a title not here gets an enum made here. */
    enums: Record<string, unknown> = {},
  ) {
    this.enums = new Map(Object.entries(enums));
  }

  /** The object type of a document (made on the first call for its name). */
  objectType<Shape>(schema: TSchema, options: DocumentTypeOptions = {}): PothosSchemaTypes.ObjectRef<Types, Shape> {
    return this.object(schema as JsonSchema, options) as PothosSchemaTypes.ObjectRef<Types, Shape>;
  }

  /** A type made here for a nested member, by its name (to add fields to it elsewhere). */
  madeType<Shape>(name: string): PothosSchemaTypes.ObjectRef<Types, Shape> {
    const ref = this.objects.get(name);
    if (!ref) throw new Error(`no document type ${name} was made`);
    return ref as PothosSchemaTypes.ObjectRef<Types, Shape>;
  }

  /** The input type of a document (named `<title>Input` unless named). */
  inputType(schema: TSchema, options: { name?: string; description?: string } = {}): PothosSchemaTypes.InputObjectRef<Types, Document> {
    return this.input(schema as JsonSchema, options.name ?? `${this.nameOf(schema as JsonSchema)}Input`, options.description) as never;
  }

  /** The document an input's value stands for: snake_case members, entries back into maps, nulls left out. */
  documentFromInput(schema: TSchema, value: unknown): unknown {
    return this.toDocument(schema as JsonSchema, value);
  }

  private nameOf(schema: JsonSchema, fallback?: string): string {
    const name = schema.title ?? fallback;
    if (!name) throw new Error('a document schema needs a title to be named in GraphQL');
    return name;
  }

  private object(schema: JsonSchema, options: DocumentTypeOptions): unknown {
    const name = options.name ?? this.nameOf(schema);
    const existing = this.objects.get(name);
    if (existing) return existing;
    const ref = this.builder.objectRef<Document>(name);
    this.objects.set(name, ref);
    this.schemas.set(name, schema);
    const required = new Set(schema.required ?? []);
    // Planned now, so nested types are made before the schema is built; refs by name resolve later.
    const plans = Object.entries(schema.properties ?? {}).map(([member, property]) =>
      this.fieldPlan(member, property, name, required.has(member), options.partial),
    );
    ref.implement({
      description: options.description ?? schema.description,
      fields: (t) =>
        Object.fromEntries(
          plans.map((plan) => [
            plan.name,
            (t as unknown as LooseFieldBuilder).field({
              type: plan.type(),
              nullable: plan.nullable,
              description: plan.description,
              resolve: plan.resolve,
            }),
          ]),
        ) as never,
    });
    return ref;
  }

  private fieldPlan(member: string, schema: JsonSchema, parent: string, required: boolean, partial: string | undefined): FieldPlan {
    const hasDefault = partial === undefined && schema.default !== undefined;
    let description = becomesObjectType(schema) ? undefined : schema.description;
    if (hasDefault && description === undefined) description = `${JSON.stringify(schema.default)} when unset`;
    if (partial !== undefined && required && description !== undefined) description = `${description}; ${partial}`;
    const { entries: key, value } = hintsOf(schema);
    const resolve =
      key === undefined
        ? (document: Document) => document[member] ?? (hasDefault ? schema.default : null)
        : (document: Document) => {
            const map = document[member] as Record<string, unknown> | undefined;
            if (!map) return null;
            return entriesByKey(map).map(([entryKey, entry]) =>
              value === undefined ? { ...(entry as Document), [key]: entryKey } : { [key]: entryKey, [value]: entry },
            );
          };
    return {
      name: camelCase(member),
      type: this.outputType(schema, `${parent}${pascalCase(member)}`),
      nullable: partial !== undefined || !(required || hasDefault),
      description,
      resolve,
    };
  }

  private outputType(schema: JsonSchema, fallbackName: string): () => TypeParam {
    const hints = hintsOf(schema);
    if (hints.type !== undefined) {
      const name = hints.type;
      return () => {
        const ref = this.objects.get(name);
        if (!ref) throw new Error(`no document type ${name} was made (x-graphql.type)`);
        return ref;
      };
    }
    if (hints.entries !== undefined) {
      const entry = this.object(entrySchemaOf(schema), { name: this.nameOf(entrySchemaOf(schema), `${fallbackName}Entry`) });
      return () => [entry];
    }
    const type = this.leafOrList(schema, fallbackName, (items, name) => this.outputType(items, name)());
    if (type !== undefined) return () => type;
    const object = this.object(schema, { name: this.nameOf(schema, fallbackName) });
    return () => object;
  }

  /** A scalar, an enum, JSON or a list: what an output and an input member share; undefined for an object type. */
  private leafOrList(
    schema: JsonSchema,
    fallbackName: string,
    itemType: (items: JsonSchema, name: string) => TypeParam,
  ): TypeParam | undefined {
    if (schema.enum !== undefined) return schema.title === undefined ? 'String' : this.enumType(schema.title, schema.enum);
    if (schema.type === 'array') return [itemType(schema.items ?? {}, fallbackName)];
    if (schema.type !== undefined && SCALARS[schema.type]) return SCALARS[schema.type];
    return hasMembers(schema) ? undefined : 'JSON';
  }

  private enumType(title: string, values: readonly string[]): unknown {
    let ref = this.enums.get(title);
    if (!ref) {
      ref = this.builder.enumType(title, { values });
      this.enums.set(title, ref);
    }
    return ref;
  }

  private input(schema: JsonSchema, name: string, description?: string): unknown {
    const existing = this.inputs.get(name);
    if (existing) return existing;
    const ref = this.builder.inputRef<Document>(name);
    this.inputs.set(name, ref);
    const required = new Set(schema.required ?? []);
    const plans = Object.entries(schema.properties ?? {}).map(([member, property]) => ({
      name: camelCase(member),
      type: this.inputTypeOf(property, `${name.replace(/Input$/, '')}${pascalCase(member)}`),
      required: required.has(member),
      description: becomesObjectType(property) ? undefined : property.description,
    }));
    ref.implement({
      description: description ?? schema.description,
      fields: (t) =>
        Object.fromEntries(
          plans.map((plan) => [
            plan.name,
            (t as unknown as LooseFieldBuilder).field({ type: plan.type(), required: plan.required, description: plan.description }),
          ]),
        ) as never,
    });
    return ref;
  }

  private inputTypeOf(schema: JsonSchema, fallbackName: string): () => TypeParam {
    const hints = hintsOf(schema);
    if (hints.type !== undefined) {
      const name = `${hints.type}Input`;
      return () => {
        const ref = this.inputs.get(name);
        if (!ref) throw new Error(`no document input ${name} was made (x-graphql.type)`);
        return ref;
      };
    }
    if (hints.entries !== undefined) {
      const entrySchema = entrySchemaOf(schema);
      const entry = this.input(entrySchema, `${this.nameOf(entrySchema, `${fallbackName}Entry`)}Input`);
      return () => [entry];
    }
    const type = this.leafOrList(schema, fallbackName, (items, name) => this.inputTypeOf(items, name)());
    if (type !== undefined) return () => type;
    const object = this.input(schema, `${this.nameOf(schema, fallbackName)}Input`);
    return () => object;
  }

  private toDocument(schema: JsonSchema, value: unknown): unknown {
    if (value === null || value === undefined) return value;
    const hints = hintsOf(schema);
    if (hints.type !== undefined) {
      const named = this.schemas.get(hints.type);
      return named ? this.toDocument({ ...named, required: [] }, value) : value;
    }
    if (hints.entries !== undefined && Array.isArray(value)) {
      const key = hints.entries;
      const entrySchema = entrySchemaOf(schema);
      return Object.fromEntries(
        value.map((entry: Document) => {
          const document = this.toDocument(entrySchema, entry) as Document;
          const { [key]: entryKey, ...rest } = document;
          return [entryKey, hints.value === undefined ? rest : rest[hints.value]];
        }),
      );
    }
    if (schema.type === 'array' && Array.isArray(value)) return value.map((item) => this.toDocument(schema.items ?? {}, item));
    if (!hasMembers(schema) || typeof value !== 'object' || Array.isArray(value)) return value;
    const input = value as Document;
    const document: Document = {};
    for (const [member, property] of Object.entries(schema.properties ?? {})) {
      const memberValue = input[camelCase(member)];
      if (memberValue !== null && memberValue !== undefined) document[member] = this.toDocument(property, memberValue);
    }
    return document;
  }
}
