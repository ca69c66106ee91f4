// The JSON Schema drafts the service reads in schemas others write (client tools, MCP servers,
// plugins): which draft a schema's `$schema` names, and an ajv instance for each draft.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv as AjvDraft07, type Options } from 'ajv';
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
