// Structured output: the instruction the model gets when the agent has an `output_spec`, and the
// check of its final answer against the spec's schema (any variant may match).
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OutputSpec } from './agent-config.js';

const ajv = new Ajv2020({ strict: false, allErrors: false });

/** The system prompt's line asking for JSON (with the schema when the spec has one). */
export function outputInstruction(spec: OutputSpec): string {
  return `Answer with JSON only${spec.schema ? `, matching this JSON Schema: ${JSON.stringify(spec.schema)}` : ''}.`;
}

/** What the model is told when its answer did not match (it answers again while output retries are left). */
export function outputCorrection(problem: string): string {
  return `Your answer did not match the required output: ${problem}. Answer again with JSON only.`;
}

/** Parses the answer (a fenced ```json block is accepted) and validates it against the spec's schemas. */
export function checkOutput(spec: OutputSpec, text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
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
  if (schemas.length === 0) return { ok: true, value };
  const problems: string[] = [];
  for (const schema of schemas) {
    const validate = ajv.compile(schema);
    if (validate(value)) return { ok: true, value };
    problems.push(ajv.errorsText(validate.errors));
  }
  return { ok: false, problem: problems.join('; ') };
}
