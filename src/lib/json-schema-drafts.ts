// The JSON Schema drafts the service reads in schemas others write (client tools, MCP servers,
// plugins): which draft a schema's `$schema` names, and an ajv instance for each draft.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv as AjvDraft07, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type JsonSchemaDraft = '2020-12' | '2019-09' | 'draft-07';
export const JSON_SCHEMA_DRAFTS: readonly JsonSchemaDraft[] = ['2020-12', '2019-09', 'draft-07'];

/**
 * The draft a schema's `$schema` names: undefined when it names none (read as 2020-12), null when it
 * names one the service does not read (draft-04, draft-06, anything else).
 */
export function declaredDraft(schema: object): JsonSchemaDraft | null | undefined {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (declared === undefined) return undefined;
  if (typeof declared !== 'string') return null;
  const uri = declared.trim().replace(/#$/, '');
  if (/^https?:\/\/json-schema\.org\/draft-07\/schema$/.test(uri)) return 'draft-07';
  if (/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema$/.test(uri)) return '2019-09';
  if (/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema$/.test(uri)) return '2020-12';
  return null;
}

export type DraftAjv = InstanceType<typeof Ajv2020>;

/** A new ajv of `draft`, with the standard formats (`uri`, `date-time`, `email`, …). */
export function ajvOfDraft(draft: JsonSchemaDraft, options: Options): DraftAjv {
  const ajv = draft === 'draft-07' ? new AjvDraft07(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv2020(options);
  // ajv-formats is CommonJS: its default import is the module object, whose `default` is the plugin.
  addFormats.default(ajv);
  return ajv as DraftAjv;
}

/**
 * Validators of schemas callers bring (tool schemas, output specs), compiled once per distinct schema
 * while it stays among the `max` most recently used: a new ajv instance costs about 10 ms of CPU and
 * a compile about half a millisecond, and the same agents' schemas come back run after run. Bounded:
 * the least recently used is dropped from its ajv instance too, so nothing grows with the data.
 * Instances are made with `addUsedSchema` off: a schema's `$id` is never registered, so the same `$id`
 * in two schemas never collides.
 */
export class ValidatorCache {
  private readonly instances = new Map<JsonSchemaDraft, DraftAjv>();
  private readonly entries = new Map<string, { schema: object; draft: JsonSchemaDraft; validate: ValidateFunction }>();

  constructor(
    private readonly options: Options = {},
    private readonly max = 500,
  ) {}

  /** The validator of `schema`, read as the draft its `$schema` names (else 2020-12); throws when ajv cannot compile it. */
  validatorOf(schema: object): ValidateFunction {
    const draft = declaredDraft(schema) ?? '2020-12';
    const key = `${draft}\u0000${JSON.stringify(schema)}`;
    const known = this.entries.get(key);
    if (known) {
      // Most recently used last: the first entry is the one to drop.
      this.entries.delete(key);
      this.entries.set(key, known);
      return known.validate;
    }
    const ajv = this.instanceOf(draft);
    let validate: ValidateFunction;
    try {
      validate = ajv.compile(schema);
    } catch (error) {
      // ajv keeps a schema it failed to compile in its cache: drop it.
      ajv.removeSchema(schema);
      throw error;
    }
    this.entries.set(key, { schema, draft, validate });
    if (this.entries.size > this.max) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.instanceOf(entry.draft).removeSchema(entry.schema);
    }
    return validate;
  }

  /** ajv's one-line description of a validator's errors. */
  errorsText(errors: ValidateFunction['errors']): string {
    return this.instanceOf('2020-12').errorsText(errors);
  }

  private instanceOf(draft: JsonSchemaDraft): DraftAjv {
    let ajv = this.instances.get(draft);
    if (!ajv) {
      ajv = ajvOfDraft(draft, { ...this.options, addUsedSchema: false });
      this.instances.set(draft, ajv);
    }
    return ajv;
  }
}
