// The output spec (spec: "Agent configuration" → `output_spec`): the shape a run's answer must have.
// Defined once here; the agent configuration's schema embeds it, the engine reads it with the type
// derived from it (src/engine/output-check.ts), and the GraphQL types `OutputSpec`/`OutputVariant`
// are built from it.
import Type, { type Static } from 'typebox';
import { closed, freeForm, strMax } from './schema-parts.js';

const variantMembers = {
  name: Type.Optional(strMax(200)),
  description: Type.Optional(strMax(4000)),
  resources: Type.Optional(freeForm({ description: 'free-form (the spec gives it no members)' })),
  schema: Type.Optional(freeForm({ description: "a JSON Schema document (the answer's shape), kept as the document it is" })),
};

/** One shape of the answer: what the model is told about it, and the schema it is checked against. */
export const outputVariantSchema = closed(variantMembers, { title: 'OutputVariant', description: 'One variant of the output spec.' });

/** The output spec: a variant of its own, and optionally more variants the answer may take instead. */
export const outputSpecSchema = closed(
  { ...variantMembers, variants: Type.Optional(Type.Array(outputVariantSchema)) },
  { title: 'OutputSpec', description: "The shape the run's answer must have (`output_spec`)." },
);

export type OutputVariant = Static<typeof outputVariantSchema>;
export type OutputSpec = Static<typeof outputSpecSchema>;
