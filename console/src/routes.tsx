// Every page of the console: its path, its place in the navigation and its component. A section adds
// its pages here and nowhere else: its index module exports the page components, and the table below
// names them.
//
// Each section is its own chunk of the bundle, loaded the first time one of its pages is shown
// (React.lazy over the section's dynamic import), so signing in loads only the frame and the overview.
// App.tsx shows a status while a chunk loads (the Suspense boundary) and a way out when it cannot load.
import { lazy, type ComponentType } from 'react';
import { OverviewPage } from './pages/Overview';

export interface ConsoleRoute {
  path: string;
  component: ComponentType;
  /** Shown in the navigation when set (top-level pages only). */
  nav?: string;
}

/** The names a section module exports its pages under. */
type PageName<Section> = { [Name in keyof Section]: Section[Name] extends ComponentType ? Name : never }[keyof Section] & string;

/**
 * A section loaded on demand: `pages(name)` is a lazy component of the page exported as `name`. Every
 * page of a section shares the one import, so the section's chunk is fetched once; a failed fetch is
 * forgotten, so the next page of the section tries again.
 */
function section<Section>(load: () => Promise<Section>): (name: PageName<Section>) => ComponentType {
  let loading: Promise<Section> | null = null;
  const loaded = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = null;
      throw error;
    }));
  return (name) => lazy(async () => ({ default: (await loaded())[name] as ComponentType }));
}

const agents = section(() => import('./sections/agents'));
const models = section(() => import('./sections/models'));
const runs = section(() => import('./sections/runs'));
const threads = section(() => import('./sections/threads'));
const memories = section(() => import('./sections/memories'));
const findings = section(() => import('./sections/findings'));
const connections = section(() => import('./sections/connections'));
const environments = section(() => import('./sections/environments'));
const webhooks = section(() => import('./sections/webhooks'));
const budgets = section(() => import('./sections/budgets'));
const devices = section(() => import('./sections/devices'));
const notifications = section(() => import('./sections/notifications'));

// In the navigation's order.
export const routes: ConsoleRoute[] = [
  { path: '/', component: OverviewPage, nav: 'Overview' },
  { path: '/agents', component: agents('AgentsListPage'), nav: 'Agents' },
  { path: '/agents/new', component: agents('NewAgentPage') },
  { path: '/agents/:agentId', component: agents('AgentPage') },
  { path: '/models', component: models('ModelsPage'), nav: 'Models' },
  { path: '/models/providers/:id', component: models('ProviderPage') },
  // A model key may even be "providers": /models/providers matches this route; only
  // /models/providers/<id> is a provider's page.
  { path: '/models/:key', component: models('ModelPage') },
  { path: '/runs', component: runs('RunsListPage'), nav: 'Runs' },
  { path: '/runs/new', component: runs('StartRunPage') },
  { path: '/runs/:runId', component: runs('RunPage') },
  { path: '/workspaces/:workspaceId/runs/:runId', component: runs('WorkspaceRunPage') },
  { path: '/threads', component: threads('ThreadsListPage'), nav: 'Threads' },
  { path: '/threads/:threadId', component: threads('ThreadPage') },
  { path: '/memories', component: memories('MemoriesPage'), nav: 'Memories' },
  { path: '/memories/:memoryId', component: memories('MemoryPage') },
  { path: '/findings', component: findings('FindingsPage'), nav: 'Findings' },
  { path: '/findings/analyses', component: findings('AnalysesPage') },
  { path: '/findings/analyses/:analysisId', component: findings('AnalysisPage') },
  { path: '/findings/:findingId', component: findings('FindingPage') },
  { path: '/connections', component: connections('ConnectionsPage'), nav: 'Connections' },
  { path: '/connections/:id', component: connections('ConnectionPage') },
  { path: '/environments', component: environments('EnvironmentsPage'), nav: 'Environments' },
  { path: '/environments/templates/:id', component: environments('TemplatePage') },
  { path: '/environments/:id', component: environments('EnvironmentPage') },
  { path: '/webhooks', component: webhooks('WebhooksPage'), nav: 'Webhooks' },
  { path: '/webhooks/:id', component: webhooks('WebhookPage') },
  { path: '/budgets', component: budgets('BudgetsPage'), nav: 'Budgets' },
  { path: '/devices', component: devices('DevicesPage'), nav: 'Devices' },
  { path: '/devices/:id', component: devices('DevicePage') },
  { path: '/notifications', component: notifications('NotificationsPage'), nav: 'Notifications' },
];
