// Every page of the console: its path, its place in the navigation and its component. A section adds
// its pages here and nowhere else.
import type { ComponentType } from 'react';
import { OverviewPage } from './pages/Overview';
import { agentsRoutes } from './sections/agents';
import { modelsRoutes } from './sections/models';
import { runsRoutes } from './sections/runs';
import { threadsRoutes } from './sections/threads';
import { memoriesRoutes } from './sections/memories';
import { findingsRoutes } from './sections/findings';
import { connectionsRoutes } from './sections/connections';
import { environmentsRoutes } from './sections/environments';
import { webhooksRoutes } from './sections/webhooks';
import { devicesRoutes } from './sections/devices';
import { notificationsRoutes } from './sections/notifications';

export interface ConsoleRoute {
  path: string;
  component: ComponentType;
  /** Shown in the navigation when set (top-level pages only). */
  nav?: string;
}

// In the navigation's order.
export const routes: ConsoleRoute[] = [
  { path: '/', component: OverviewPage, nav: 'Overview' },
  ...agentsRoutes,
  ...modelsRoutes,
  ...runsRoutes,
  ...threadsRoutes,
  ...memoriesRoutes,
  ...findingsRoutes,
  ...connectionsRoutes,
  ...environmentsRoutes,
  ...webhooksRoutes,
  ...devicesRoutes,
  ...notificationsRoutes,
];
