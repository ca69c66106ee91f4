// The shapes the webhooks pages read, derived from the types generated for
// console/src/graphql/webhooks.graphql (the pages import the documents themselves from console/generated).
import type {
  ConsoleCreateWebhookSubscriptionMutation,
  DeliveryViewFragment,
  DeliveryWithAttemptsFragment,
  SubscriptionViewFragment,
} from '../../../generated/graphql';

export type SubscriptionView = SubscriptionViewFragment;

/** A subscription just created, with its signing secret (answered this once). */
export type CreatedSubscription = ConsoleCreateWebhookSubscriptionMutation['createWebhookSubscription']['webhookSubscription'];

export type DeliveryView = DeliveryViewFragment;

/** A delivery with every attempt made so far (its page, and its live updates). */
export type DeliveryWithAttempts = DeliveryWithAttemptsFragment;

export type AttemptView = DeliveryWithAttempts['attempts'][number];
