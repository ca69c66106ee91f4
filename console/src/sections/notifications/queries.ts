// The GraphQL documents of web push: the service's configuration (its VAPID key) and the caller's own
// subscriptions (this browser's, and the list of every one the service keeps for the caller).
import {
  ConsoleDeletePushSubscriptionDocument,
  ConsolePushConfigurationDocument,
  ConsolePushSubscriptionsDocument,
  ConsoleRecordPushActivityDocument,
  ConsoleTestPushSubscriptionDocument,
  ConsoleUpsertPushSubscriptionDocument,
} from '../../../generated/graphql';
import type { ConsolePushConfigurationQuery, ConsolePushSubscriptionsQuery, PushSubscriptionInput } from '../../../generated/graphql';

export type PushConfiguration = ConsolePushConfigurationQuery['pushConfiguration'];

export type ServicePushSubscription = ConsolePushSubscriptionsQuery['pushSubscriptions'][number];

export type { PushSubscriptionInput };

export const PUSH_CONFIGURATION = ConsolePushConfigurationDocument;

export const UPSERT_PUSH_SUBSCRIPTION = ConsoleUpsertPushSubscriptionDocument;

export const TEST_PUSH_SUBSCRIPTION = ConsoleTestPushSubscriptionDocument;

export const DELETE_PUSH_SUBSCRIPTION = ConsoleDeletePushSubscriptionDocument;

export const RECORD_PUSH_ACTIVITY = ConsoleRecordPushActivityDocument;

/** Every subscription the service keeps for the caller in this workspace (other browsers', stale ones), newest first. */
export const PUSH_SUBSCRIPTIONS = ConsolePushSubscriptionsDocument;
