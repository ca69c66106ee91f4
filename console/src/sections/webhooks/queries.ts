// The shapes the webhooks pages read, derived from the types generated for
// console/src/graphql/webhooks.graphql (the pages import the documents themselves from console/generated).
import type { ConsoleWebhookDeliveryQuery, DeliveryViewFragment, SubscriptionViewFragment } from '../../../generated/graphql';

export type SubscriptionView = SubscriptionViewFragment;

export type DeliveryView = DeliveryViewFragment;

export type AttemptView = ConsoleWebhookDeliveryQuery['webhookDelivery']['attempts'][number];
