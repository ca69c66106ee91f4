// Imports every module (each registers its types on the builder) and builds the schema.
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './modules/node.js';
import '../features/access/graphql/auth.js';
import '../features/access/graphql/workspace.js';
import '../features/audit/graphql/audit.js';
import '../features/agents/graphql/agents.js';
import '../features/agents/graphql/skills.js';
import '../features/assets/graphql/assets.js';
import '../features/threads/graphql/sessions.js';
import '../features/threads/graphql/threads.js';
import '../features/runs/graphql/runs.js';
import '../features/runs/graphql/run-items.js';
import '../features/runs/graphql/run-item-content.js';
import '../features/traces/graphql/traces.js';
import '../features/runs/graphql/inbox.js';
import '../features/runs/graphql/usage.js';
import '../features/runs/graphql/run-stats.js';
import '../features/models/graphql/providers.js';
import '../features/tools/graphql/connections.js';
import '../features/memories/graphql/memories.js';
import '../features/findings/graphql/findings.js';
import '../features/environments/graphql/environments.js';
import '../features/webhooks/graphql/webhooks.js';
import '../features/webhooks/graphql/webhook-stats.js';
import '../features/budgets/graphql/budgets.js';
import '../features/support-api/graphql/push.js';
import '../features/support-api/graphql/status.js';
import '../features/support-api/graphql/presence.js';
import '../features/support-api/graphql/pairing.js';
import '../features/support-api/graphql/devices.js';

let schema: GraphQLSchema | null = null;

export function getSchema(): GraphQLSchema {
  schema ??= builder.toSchema({ sortSchema: true });
  return schema;
}

/** The SDL committed as schema.graphql (sorted, so diffs stay readable). */
export function printSortedSchema(): string {
  return `${printSchema(lexicographicSortSchema(getSchema()))}\n`;
}
