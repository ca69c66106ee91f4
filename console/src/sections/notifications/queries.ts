// The shapes the web push pages read (the service's configuration, its VAPID key, and the caller's own
// subscriptions), derived from the types generated for console/src/graphql/notifications.graphql (the
// pages import the documents themselves from console/generated).
import type { ConsolePushConfigurationQuery, ConsolePushSubscriptionsQuery, PushSubscriptionInput } from '../../../generated/graphql';

export type PushConfiguration = ConsolePushConfigurationQuery['pushConfiguration'];

export type ServicePushSubscription = ConsolePushSubscriptionsQuery['pushSubscriptions'][number];

export type { PushSubscriptionInput };
