// The Runs section: the list, starting a run, a run's live page, and the workspace-qualified run
// address that web-push notifications open.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { RunPage } from './RunPage';
export { RunsListPage } from './RunsListPage';
export { StartRunPage } from './StartRunPage';
export { WorkspaceRunPage } from './WorkspaceRunPage';
