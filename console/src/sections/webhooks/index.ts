// The webhooks section: subscriptions and their deliveries.
// Its pages, loaded together as one chunk of the bundle the first time one is shown; their paths are
// in console/src/routes.tsx.
export { WebhookPage } from './WebhookPage';
export { WebhooksPage } from './WebhooksPage';
