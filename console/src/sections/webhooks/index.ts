// The webhooks section: subscriptions and their deliveries.
import type { ConsoleRoute } from '../../routes';
import { WebhookPage } from './WebhookPage';
import { WebhooksPage } from './WebhooksPage';

export const webhooksRoutes: ConsoleRoute[] = [
  { path: '/webhooks', component: WebhooksPage, nav: 'Webhooks' },
  { path: '/webhooks/:id', component: WebhookPage },
];
