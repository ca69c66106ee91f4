// Structured output: the instruction the model gets when the agent has an `output_spec`, the
// response format for model APIs that take one, and the check of its final answer against the
// spec's schemas (the top schema and the variants' are a union: any one may match).
import { ValidatorCache } from '../lib/json-schema-drafts.js';
import type { Logger } from '../lib/logger.js';
import type { JSONSchema7, LanguageModelV4CallOptions, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { wrapLanguageModel } from 'ai';
import type { OutputSpec, OutputVariant } from '../features/agents/documents/output-spec.js';
import type { ResolvedModel } from './models.js';

type JsonResponseFormat = Extract<NonNullable<LanguageModelV4CallOptions['responseFormat']>, { type: 'json' }>;

// Shared by every run: the same agents' output schemas come back run after run (bounded, see ValidatorCache).
const validators = new ValidatorCache({ strict: false, allErrors: false, logger: false });

/**
 * The system prompt's part asking for JSON: the spec's name, description, resources and schema, and
 * each variant with the same four (the answer may match any one of them). Every model gets it, also
 * one that receives the schema as a response format too (outputResponseFormat): the description and
 * resources have no other way to the model.
 */
export function outputInstruction(spec: OutputSpec): string {
  const variants = spec.variants ?? [];
  const lines = ['Answer with JSON only.', ...describe('The answer', spec)];
  if (variants.length)
    lines.push(
      spec.schema ? 'It may instead match any one of these variants:' : 'It must match one of these variants:',
      ...variants.flatMap((variant, index) =>
        describe(`Variant ${index + 1}`, variant, true).map((line, at) => (at === 0 ? `- ${line}` : `  ${line}`)),
      ),
    );
  return lines.join('\n');
}

/**
 * What the model is told of one shape: its name and description (the label line; always for a
 * variant, so its details stay under it), its resources and its schema.
 */
function describe(label: string, shape: OutputVariant, labelled = false): string[] {
  const name = shape.name ? ` "${shape.name}"` : '';
  return [
    ...(labelled || name || shape.description ? [`${label}${name}${shape.description ? `: ${shape.description}` : ''}`] : []),
    ...(shape.resources && Object.keys(shape.resources).length ? [`Resources for it: ${JSON.stringify(shape.resources)}`] : []),
    ...(shape.schema ? [`It must match this JSON Schema: ${JSON.stringify(shape.schema)}`] : []),
  ];
}

/**
 * The response format for model APIs that take a JSON Schema next to tools (OpenAI's and Azure's). A
 * spec of one schema sends it with the spec's (or the variant's) name and description; a union —
 * the top schema and variants, or several variants — or a schema whose root is not an object (OpenAI
 * accepts only object roots) asks for JSON without a schema, and the instruction carries the union.
 */
export function outputResponseFormat(spec: OutputSpec): JsonResponseFormat {
  const candidates: OutputVariant[] = [
    ...(spec.schema ? [{ name: spec.name, description: spec.description, schema: spec.schema }] : []),
    ...(spec.variants ?? []).filter((variant) => variant.schema),
  ];
  const only = candidates.length === 1 ? candidates[0]! : null;
  if (!only || only.schema?.type !== 'object') return { type: 'json' };
  return {
    type: 'json',
    schema: only.schema as JSONSchema7,
    // Response format names are `^[a-zA-Z0-9_-]{1,64}$` at OpenAI; the spec's name is free text.
    name: responseFormatName(only.name ?? spec.name),
    ...((only.description ?? spec.description) ? { description: only.description ?? spec.description } : {}),
  };
}

/**
 * The model to ask for an agent with an output spec: where its API takes a JSON Schema response
 * format next to tools, every request of the run carries the spec's (a tool-calling turn still may
 * call tools; the final answer is held to the format); else the model as it is.
 */
export function withOutputFormat(model: ResolvedModel, spec: OutputSpec | undefined): ResolvedModel {
  if (!spec || !model.jsonSchemaResponse) return model;
  const responseFormat = outputResponseFormat(spec);
  return {
    ...model,
    model: wrapLanguageModel({
      model: model.model,
      middleware: {
        specificationVersion: 'v4',
        transformParams: async ({ params }) => ({
          ...params,
          responseFormat,
          providerOptions: withLenientJsonSchema(params.providerOptions),
        }),
      },
    }),
  };
}

/**
 * OpenAI's and Azure's adapters send a response format's schema in strict mode unless told not to
 * (the AI SDK's default since its 6th major). Strict mode refuses schemas whose properties are not
 * all required or that allow additional properties — common in an agent's `output_spec` — so the
 * schema is sent as it was before, not strict; the answer is checked against it here (checkOutput).
 */
function withLenientJsonSchema(options: SharedV4ProviderOptions | undefined): SharedV4ProviderOptions {
  const lenient = (key: string) => ({ ...options?.[key], strictJsonSchema: false });
  return { ...options, openai: lenient('openai'), azure: lenient('azure') };
}

/** The spec's name as a response format name (`output` when it has none). */
export function responseFormatName(name: string | undefined): string {
  const cleaned = (name ?? '')
    .replace(/[^a-zA-Z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
  return cleaned || 'output';
}

/** What the model is told when its answer did not match (it answers again while output retries are left). */
export function outputCorrection(problem: string): string {
  return `Your answer did not match the required output: ${problem}. Answer again with JSON only.`;
}

/** Parses the answer (a fenced ```json block is accepted) and validates it against the spec's schemas. */
export function checkOutput(
  spec: OutputSpec,
  text: string,
  logger?: Pick<Logger, 'warn'>,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  let value: unknown;
  const trimmed = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/```\s*$/, '');
  try {
    value = JSON.parse(trimmed);
  } catch {
    return { ok: false, problem: 'the output is not JSON' };
  }
  const schemas = [spec.schema, ...(spec.variants ?? []).map((variant) => variant.schema)].filter(
    (schema): schema is Record<string, unknown> => Boolean(schema),
  );
  const problems: string[] = [];
  for (const schema of schemas) {
    let validate: ReturnType<ValidatorCache['validatorOf']>;
    try {
      validate = validators.validatorOf(schema);
    } catch (error) {
      // Refused when the configuration is written; a stored one from before cannot fail the run for it.
      logger?.warn({ err: error }, 'an output_spec schema could not be compiled: answers are not checked against it');
      continue;
    }
    if (validate(value)) return { ok: true, value };
    problems.push(validators.errorsText(validate.errors));
  }
  return problems.length ? { ok: false, problem: problems.join('; ') } : { ok: true, value };
}
