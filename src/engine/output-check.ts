// Structured output: the instruction the model gets when the agent has an `output_spec`, and the
// check of its final answer against the spec's schema (any variant may match).
import { ValidatorCache } from '../lib/json-schema-drafts.js';
import type { Logger } from '../lib/logger.js';
import type { OutputSpec } from './agent-config.js';

// Shared by every run: the same agents' output schemas come back run after run (bounded, see ValidatorCache).
const validators = new ValidatorCache({ strict: false, allErrors: false, logger: false });

/** The system prompt's line asking for JSON (with the schema when the spec has one). */
export function outputInstruction(spec: OutputSpec): string {
  return `Answer with JSON only${spec.schema ? `, matching this JSON Schema: ${JSON.stringify(spec.schema)}` : ''}.`;
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
