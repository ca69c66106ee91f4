// The GraphQL documents of the webhooks pages, with the answers they are read as.
import {
  ConsoleCreateWebhookSubscriptionDocument,
  ConsoleDeleteWebhookSubscriptionDocument,
  ConsoleRedeliverWebhookDeliveryDocument,
  ConsoleRotateWebhookSecretDocument,
  ConsoleTestWebhookSubscriptionDocument,
  ConsoleUpdateWebhookSubscriptionDocument,
  ConsoleWebhookDeliveriesDocument,
  ConsoleWebhookDeliveryDocument,
  ConsoleWebhookDeliveryUpdatedDocument,
  ConsoleWebhookEventKindsDocument,
  ConsoleWebhookSubscriptionDocument,
  ConsoleWebhookSubscriptionsDocument,
} from '../../../generated/graphql';
import type { ConsoleWebhookDeliveryQuery, DeliveryViewFragment, SubscriptionViewFragment } from '../../../generated/graphql';

/** The event kinds a subscription can name, with what each reports: the service's own list (`webhook.ping` is not one). */
export const EVENT_KINDS = ConsoleWebhookEventKindsDocument;

export type SubscriptionView = SubscriptionViewFragment;

export type DeliveryView = DeliveryViewFragment;

export type AttemptView = ConsoleWebhookDeliveryQuery['webhookDelivery']['attempts'][number];

export const SUBSCRIPTIONS = ConsoleWebhookSubscriptionsDocument;

export const SUBSCRIPTION = ConsoleWebhookSubscriptionDocument;

export const CREATE_SUBSCRIPTION = ConsoleCreateWebhookSubscriptionDocument;

export const UPDATE_SUBSCRIPTION = ConsoleUpdateWebhookSubscriptionDocument;

export const ROTATE_SECRET = ConsoleRotateWebhookSecretDocument;

export const TEST_SUBSCRIPTION = ConsoleTestWebhookSubscriptionDocument;

export const DELETE_SUBSCRIPTION = ConsoleDeleteWebhookSubscriptionDocument;

export const DELIVERIES = ConsoleWebhookDeliveriesDocument;

export const DELIVERY = ConsoleWebhookDeliveryDocument;

/** A delivery of the subscription each time it is created, queued again or attempted (nothing at the start). */
export const DELIVERY_UPDATED = ConsoleWebhookDeliveryUpdatedDocument;

export const REDELIVER = ConsoleRedeliverWebhookDeliveryDocument;
