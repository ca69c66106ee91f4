// The models section: model providers (the services that answer), their models (each with its own page
// to edit it), and the one-click offline development model for a fresh install.
import type { ConsoleRoute } from '../../routes';
import { ModelPage } from './ModelPage';
import { ModelsPage } from './ModelsPage';
import { ProviderPage } from './ProviderPage';

export const modelsRoutes: ConsoleRoute[] = [
  { path: '/models', component: ModelsPage, nav: 'Models' },
  { path: '/models/providers/:id', component: ProviderPage },
  // A model key may even be "providers": /models/providers matches this route; only
  // /models/providers/<id> is a provider's page.
  { path: '/models/:key', component: ModelPage },
];
