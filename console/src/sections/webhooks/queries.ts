// The GraphQL documents of the webhooks pages, with the answers they are read as.
import { gql } from '../../api';

/** The event kinds a subscription can name, with what each reports: the service's own list (`webhook.ping` is not one). */
export const EVENT_KINDS = gql<{ webhookEventKinds: { kind: string; description: string }[] }, Record<string, never>>(
  `query ConsoleWebhookEventKinds { webhookEventKinds { kind description } }`,
);

export interface SubscriptionView {
  id: string;
  url: string;
  eventKinds: string[];
  description: string;
  enabled: boolean;
  disabledReason: string | null;
  disabledAt: string | null;
  consecutiveFailures: number;
  previousSecretExpiresAt: string | null;
  labels: Record<string, string>;
  labelList: { key: string; value: string }[];
  etag: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

const SUBSCRIPTION_FIELDS = `id url eventKinds description enabled disabledReason disabledAt consecutiveFailures previousSecretExpiresAt
  labels labelList { key value } etag version createdAt updatedAt`;

export interface DeliveryView {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventKind: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

const DELIVERY_FIELDS = `id subscriptionId eventId eventKind status attemptCount nextAttemptAt lastStatusCode lastError lastLatencyMs
  createdAt updatedAt completedAt`;

export interface AttemptView {
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  response: string | null;
}

interface Page<T> {
  nodes: T[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export const SUBSCRIPTIONS = gql<
  { webhookSubscriptions: Page<SubscriptionView> },
  { first: number; after?: string; q?: string; enabled?: boolean }
>(
  `query ConsoleWebhookSubscriptions($first: Int, $after: String, $q: String, $enabled: Boolean) {
    webhookSubscriptions(first: $first, after: $after, q: $q, enabled: $enabled) { nodes { ${SUBSCRIPTION_FIELDS} } pageInfo { hasNextPage endCursor } }
  }`,
);

export const SUBSCRIPTION = gql<{ webhookSubscription: SubscriptionView }, { id: string }>(
  `query ConsoleWebhookSubscription($id: ID!) { webhookSubscription(id: $id) { ${SUBSCRIPTION_FIELDS} } }`,
);

export const CREATE_SUBSCRIPTION = gql<
  { createWebhookSubscription: { webhookSubscription: { id: string; url: string; secret: string | null } } },
  { input: Record<string, unknown> }
>(`mutation ConsoleCreateWebhookSubscription($input: CreateWebhookSubscriptionInput!) {
  createWebhookSubscription(input: $input) { webhookSubscription { id url secret } }
}`);

export const UPDATE_SUBSCRIPTION = gql<
  { updateWebhookSubscription: { webhookSubscription: { id: string } } },
  { id: string; ifMatch: string; input: Record<string, unknown> }
>(`mutation ConsoleUpdateWebhookSubscription($id: ID!, $ifMatch: String, $input: UpdateWebhookSubscriptionInput!) {
  updateWebhookSubscription(id: $id, ifMatch: $ifMatch, input: $input) { webhookSubscription { id } }
}`);

export const ROTATE_SECRET = gql<
  {
    rotateWebhookSubscriptionSecret: { webhookSubscription: { id: string; secret: string | null; previousSecretExpiresAt: string | null } };
  },
  { id: string; ifMatch: string; overlapSeconds: number }
>(`mutation ConsoleRotateWebhookSecret($id: ID!, $ifMatch: String, $overlapSeconds: Int) {
  rotateWebhookSubscriptionSecret(id: $id, ifMatch: $ifMatch, input: { overlapSeconds: $overlapSeconds }) {
    webhookSubscription { id secret previousSecretExpiresAt }
  }
}`);

export const TEST_SUBSCRIPTION = gql<{ testWebhookSubscription: { delivery: { id: string } } }, { id: string }>(
  `mutation ConsoleTestWebhookSubscription($id: ID!) { testWebhookSubscription(id: $id) { delivery { id } } }`,
);

export const DELETE_SUBSCRIPTION = gql<{ deleteWebhookSubscription: { deleted: boolean } }, { id: string; ifMatch: string }>(
  `mutation ConsoleDeleteWebhookSubscription($id: ID!, $ifMatch: String) { deleteWebhookSubscription(id: $id, ifMatch: $ifMatch) { deleted } }`,
);

export const DELIVERIES = gql<
  { webhookDeliveries: Page<DeliveryView> },
  { subscriptionId: string; first: number; after?: string; status?: string }
>(
  `query ConsoleWebhookDeliveries($subscriptionId: ID!, $first: Int, $after: String, $status: String) {
    webhookDeliveries(subscriptionId: $subscriptionId, first: $first, after: $after, status: $status) {
      nodes { ${DELIVERY_FIELDS} } pageInfo { hasNextPage endCursor }
    }
  }`,
);

export const DELIVERY = gql<
  { webhookDelivery: DeliveryView & { attempts: AttemptView[] } },
  { id: string; subscriptionId: string }
>(`query ConsoleWebhookDelivery($id: ID!, $subscriptionId: ID) {
  webhookDelivery(id: $id, subscriptionId: $subscriptionId) { ${DELIVERY_FIELDS} attempts { attempt at statusCode latencyMs error response } }
}`);

/** A delivery of the subscription each time it is created, queued again or attempted (nothing at the start). */
export const DELIVERY_UPDATED = gql<{ webhookDeliveryUpdated: DeliveryView & { attempts: AttemptView[] } }, { subscriptionId: string }>(
  `subscription ConsoleWebhookDeliveryUpdated($subscriptionId: ID!) {
    webhookDeliveryUpdated(subscriptionId: $subscriptionId) { ${DELIVERY_FIELDS} attempts { attempt at statusCode latencyMs error response } }
  }`,
);

export const REDELIVER = gql<
  { redeliverWebhookDelivery: { delivery: { id: string; status: string } } },
  { id: string; subscriptionId: string }
>(
  `mutation ConsoleRedeliverWebhookDelivery($id: ID!, $subscriptionId: ID) {
    redeliverWebhookDelivery(id: $id, subscriptionId: $subscriptionId) { delivery { id status } }
  }`,
);
