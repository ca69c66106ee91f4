// The Runs section: the list, starting a run, a run's live page, and the workspace-qualified run
// address that web-push notifications open.
import type { ConsoleRoute } from '../../routes';
import { RunPage } from './RunPage';
import { RunsListPage } from './RunsListPage';
import { StartRunPage } from './StartRunPage';
import { WorkspaceRunPage } from './WorkspaceRunPage';

export { RunTranscript } from './RunTranscript';

export const runsRoutes: ConsoleRoute[] = [
  { path: '/runs', component: RunsListPage, nav: 'Runs' },
  { path: '/runs/new', component: StartRunPage },
  { path: '/runs/:runId', component: RunPage },
  { path: '/workspaces/:workspaceId/runs/:runId', component: WorkspaceRunPage },
];
