// The models section: model providers (the services that answer), their models, and the one-click
// offline development model for a fresh install.
import type { ConsoleRoute } from '../../routes';
import { ModelsPage } from './ModelsPage';
import { ProviderPage } from './ProviderPage';

export const modelsRoutes: ConsoleRoute[] = [
  { path: '/models', component: ModelsPage, nav: 'Models' },
  { path: '/models/providers/:id', component: ProviderPage },
];
