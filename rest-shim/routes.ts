// The REST contract as a table: method + path → a named GraphQL operation (each feature keeps the
// operations of its routes in src/features/<feature>/rest/operations/), with how the request maps onto
// its variables and how its result maps onto the response.
// Business rules never live here; the shim only translates.
//
// Each feature keeps its rows in its own folder, src/features/<feature>/rest/ (the row type and
// shared helpers are in route-table.ts); this list only puts them together. Its order is the order the router registers
// them and the OpenAPI documents list them, so a new domain's rows are added at the end (no two rows
// may match the same method and path: test/unit/route-table.test.ts).
import type { Route } from './route-table.js';
import { agentComposerRoutes, agentRoutes } from '../src/features/agents/rest/agents.js';
import { assetRoutes } from '../src/features/assets/rest/assets.js';
import { auditRoutes } from '../src/features/audit/rest/audit.js';
import { authRoutes } from '../src/features/access/rest/auth.js';
import { connectionRoutes } from '../src/features/tools/rest/connections.js';
import { environmentRoutes } from '../src/features/environments/rest/environments.js';
import { findingRoutes } from '../src/features/findings/rest/findings.js';
import { inboxRoutes } from '../src/features/runs/rest/inbox.js';
import { memoryRoutes } from '../src/features/memories/rest/memories.js';
import { providerRoutes } from '../src/features/models/rest/providers.js';
import { runDetailRoutes, runRoutes } from '../src/features/runs/rest/runs.js';
import { usageRoutes } from '../src/features/runs/rest/usage.js';
import { runStatsRoutes } from '../src/features/runs/rest/run-stats.js';
import { webhookStatsRoutes } from '../src/features/webhooks/rest/webhook-stats.js';
import { sessionRoutes } from '../src/features/threads/rest/sessions.js';
import { skillRoutes } from '../src/features/agents/rest/skills.js';
import { supportRoutes } from '../src/features/support-api/rest/support.js';
import { threadRoutes } from '../src/features/threads/rest/threads.js';
import { webhookRoutes } from '../src/features/webhooks/rest/webhooks.js';
import { workspaceRoutes } from '../src/features/access/rest/workspace.js';
import { budgetRoutes } from '../src/features/budgets/rest/budgets.js';

export type { Route, RouteRequest, Surface } from './route-table.js';

export const routes: Route[] = [
  ...authRoutes,
  ...workspaceRoutes,
  ...providerRoutes,
  ...connectionRoutes,
  ...findingRoutes,
  ...webhookRoutes,
  ...agentRoutes,
  ...assetRoutes,
  ...agentComposerRoutes,
  ...skillRoutes,
  ...sessionRoutes,
  ...threadRoutes,
  ...runRoutes,
  ...inboxRoutes,
  ...runDetailRoutes,
  ...usageRoutes,
  ...runStatsRoutes,
  ...webhookStatsRoutes,
  ...memoryRoutes,
  ...environmentRoutes,
  ...auditRoutes,
  ...supportRoutes,
  ...budgetRoutes,
];
