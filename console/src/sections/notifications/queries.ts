// The GraphQL documents of web push: the service's configuration (its VAPID key) and the caller's own
// subscriptions (this browser's, and the list of every one the service keeps for the caller).
import { gql } from '../../api';

export interface PushConfiguration {
  enabled: boolean;
  publicKey: string;
  notificationKinds: string[];
  activeWindowSeconds: number;
}

export interface ServicePushSubscription {
  id: string;
  endpoint: string;
  expirationTime: string | null;
  lastActiveAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PushSubscriptionInput {
  endpoint: string;
  expirationTime: number | null;
  keys: { p256dh: string; auth: string };
}

export const PUSH_CONFIGURATION = gql<{ pushConfiguration: PushConfiguration }, Record<string, never>>(
  `query ConsolePushConfiguration { pushConfiguration { enabled publicKey notificationKinds activeWindowSeconds } }`,
);

export const UPSERT_PUSH_SUBSCRIPTION = gql<
  { upsertPushSubscription: { subscription: ServicePushSubscription } },
  { input: PushSubscriptionInput }
>(
  `mutation ConsoleUpsertPushSubscription($input: PushSubscriptionInput!) {
    upsertPushSubscription(input: $input) { subscription { id endpoint expirationTime lastActiveAt createdAt updatedAt } }
  }`,
);

export const TEST_PUSH_SUBSCRIPTION = gql<
  {
    testPushSubscription: { subscriptionId: string; delivered: boolean; statusCode: number | null; removed: boolean; error: string | null };
  },
  { id: string }
>(
  `mutation ConsoleTestPushSubscription($id: String!) {
    testPushSubscription(id: $id) { subscriptionId delivered statusCode removed error }
  }`,
);

export const DELETE_PUSH_SUBSCRIPTION = gql<{ deletePushSubscription: { deleted: boolean } }, { id: string }>(
  `mutation ConsoleDeletePushSubscription($id: String!) { deletePushSubscription(id: $id) { deleted } }`,
);

export const RECORD_PUSH_ACTIVITY = gql<{ recordPushActivity: { recorded: boolean } }, { id: string }>(
  `mutation ConsoleRecordPushActivity($id: String!) { recordPushActivity(id: $id) { recorded } }`,
);

/** Every subscription the service keeps for the caller in this workspace (other browsers', stale ones), newest first. */
export const PUSH_SUBSCRIPTIONS = gql<{ pushSubscriptions: ServicePushSubscription[] }, Record<string, never>>(
  `query ConsolePushSubscriptions { pushSubscriptions { id endpoint expirationTime lastActiveAt createdAt updatedAt } }`,
);
