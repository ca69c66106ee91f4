// REST rows — Webhook event kinds (any authenticated caller) and subscriptions with their deliveries
// (every operation needs `admin`).
// (rest-shim/routes.ts puts every domain's rows together; the row type and helpers are in route-table.ts.)
import {
  actionRow,
  enabledHeadFilters,
  guardedActionRow,
  ifMatch,
  kindRows,
  pageArgs,
  type Route,
} from '../../../../rest-shim/route-table.js';

export const webhookRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/webhook-event-kinds',
    operation: 'WebhookEventKindsList',
    surface: 'v1',
    result: 'webhookEventKinds',
    wrapItems: true,
  },
  ...kindRows('/api/v1/webhook-subscriptions', 'subscription_id', 'WebhookSubscription', { filters: enabledHeadFilters }),
  guardedActionRow(
    'DELETE',
    '/api/v1/webhook-subscriptions/:subscription_id',
    'WebhookSubscriptionDelete',
    'deleteWebhookSubscription.deleted',
    {
      ifMatchOptional: true,
      empty: true,
    },
  ),
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions/:subscription_id/rotate-secret',
    operation: 'WebhookSubscriptionRotateSecret',
    ifMatchOptional: true,
    surface: 'v1',
    variables: (req) => ({ id: req.path('subscription_id'), ...ifMatch(req) }),
    body: { input: 'input' },
    result: 'rotateWebhookSubscriptionSecret.webhookSubscription',
  },
  actionRow('POST', '/api/v1/webhook-subscriptions/:subscription_id/test', 'WebhookSubscriptionTest', 'testWebhookSubscription.delivery', {
    status: 202,
  }),
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries',
    operation: 'WebhookDeliveriesList',
    surface: 'v1',
    result: 'webhookDeliveries',
    connection: true,
    variables: (req) => ({ subscriptionId: req.path('subscription_id'), status: req.query('status'), ...pageArgs(req) }),
  },
  {
    method: 'GET',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id',
    operation: 'WebhookDeliveryGet',
    surface: 'v1',
    variables: (req) => ({ id: req.path('delivery_id'), subscriptionId: req.path('subscription_id') }),
    result: 'webhookDelivery',
  },
  {
    method: 'POST',
    path: '/api/v1/webhook-subscriptions/:subscription_id/deliveries/:delivery_id/redeliver',
    operation: 'WebhookDeliveryRedeliver',
    surface: 'v1',
    variables: (req) => ({ id: req.path('delivery_id'), subscriptionId: req.path('subscription_id') }),
    body: 'none',
    result: 'redeliverWebhookDelivery.delivery',
    status: 202,
  },
];
