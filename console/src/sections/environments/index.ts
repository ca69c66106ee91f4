// The environments section: environment templates and the environments made from them.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { EnvironmentPage } from './EnvironmentPage';
export { EnvironmentsPage } from './EnvironmentsPage';
export { TemplatePage } from './TemplatePage';
