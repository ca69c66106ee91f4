// The REST contract as a table: method + path → a named GraphQL operation in operations/, with
// how the request maps onto its variables and how its result maps onto the response.
// Business rules never live here; the shim only translates.
//
// Each domain keeps its rows in its own file under routes/ (the row type and shared helpers are in
// route-table.ts); this list only puts them together. Its order is the order the router registers
// them and the OpenAPI documents list them, so a new domain's rows are added at the end (no two rows
// may match the same method and path: test/unit/route-table.test.ts).
import type { Route } from './route-table.js';
import { agentComposerRoutes, agentRoutes } from './routes/agents.js';
import { assetRoutes } from './routes/assets.js';
import { auditRoutes } from './routes/audit.js';
import { authRoutes } from './routes/auth.js';
import { connectionRoutes } from './routes/connections.js';
import { environmentRoutes } from './routes/environments.js';
import { findingRoutes } from './routes/findings.js';
import { inboxRoutes } from './routes/inbox.js';
import { memoryRoutes } from './routes/memories.js';
import { providerRoutes } from './routes/providers.js';
import { runDetailRoutes, runRoutes } from './routes/runs.js';
import { sessionRoutes } from './routes/sessions.js';
import { skillRoutes } from './routes/skills.js';
import { supportRoutes } from './routes/support.js';
import { threadRoutes } from './routes/threads.js';
import { webhookRoutes } from './routes/webhooks.js';
import { workspaceRoutes } from './routes/workspace.js';

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
  ...memoryRoutes,
  ...environmentRoutes,
  ...auditRoutes,
  ...supportRoutes,
];
