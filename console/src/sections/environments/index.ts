// The environments section: environment templates and the environments made from them.
import type { ConsoleRoute } from '../../routes';
import { EnvironmentPage } from './EnvironmentPage';
import { EnvironmentsPage } from './EnvironmentsPage';
import { TemplatePage } from './TemplatePage';

export const environmentsRoutes: ConsoleRoute[] = [
  { path: '/environments', component: EnvironmentsPage, nav: 'Environments' },
  { path: '/environments/templates/:id', component: TemplatePage },
  { path: '/environments/:id', component: EnvironmentPage },
];
