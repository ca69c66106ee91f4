// Imports every module (each registers its types on the builder) and builds the schema.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './modules/auth.js';
import './modules/workspace.js';
import './modules/audit.js';
import './modules/agents.js';
import './modules/skills.js';
import './modules/assets.js';
import './modules/runs.js';
import './modules/providers.js';
import './modules/memories.js';
import './modules/support.js';

let schema: GraphQLSchema | null = null;

export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}

/** The SDL committed as schema.graphql (sorted, so diffs stay readable). */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
}
