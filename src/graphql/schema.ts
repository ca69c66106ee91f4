// Imports every module (each registers its types on the builder) and builds the schema.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './modules/node.js';
import './modules/auth.js';
import './modules/workspace.js';
import './modules/audit.js';
import './modules/agents.js';
import './modules/skills.js';
import './modules/assets.js';
import './modules/sessions.js';
import './modules/threads.js';
import './modules/runs.js';
import './modules/run-items.js';
import './modules/run-item-content.js';
import './modules/traces.js';
import './modules/inbox.js';
import './modules/providers.js';
import './modules/connections.js';
import './modules/memories.js';
import './modules/findings.js';
import './modules/environments.js';
import './modules/webhooks.js';
import './modules/support/push.js';
import './modules/support/status.js';
import './modules/support/presence.js';
import './modules/support/pairing.js';
import './modules/support/devices.js';

let schema: GraphQLSchema | null = null;

export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}

/** The SDL committed as schema.graphql (sorted, so diffs stay readable). */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
}
