// The event bus's topics and what each one carries (the bus itself is src/lib/events.ts). With
// REDIS_URL a payload crosses processes as JSON: dates arrive as ISO strings, which the GraphQL
// DateTime scalar serializes the same way.
import type { Run, Workspace } from '../generated/prisma/client.js';
import { listen, type EventBus } from '../lib/events.js';
import { localRuns } from '../features/runs/local-runs.js';
import type { LiveSpan } from '../traces/live-spans.js';

/** A run item as subscribers see it: the run_items row's fields (the engine's RunItemState has these and `runId`). */
export interface ItemView {
  id: string;
  ordinal: number;
  kind: string;
  state: string;
  content: unknown;
  contentRefs: unknown;
  firstStreamId: string | null;
  lastStreamId: string | null;
  startedAt: Date;
  endedAt: Date | null;
}

/**
 * Text appended to a string member of an open item (one or more appends of one event-loop turn,
 * coalesced). It applies to the item's state at `previousStreamId` exactly: `offset` is the member's
 * length then, in UTF-16 code units (JavaScript string length), and `streamId` is the item's new
 * lastStreamId. A follower that does not hold that state reads a snapshot instead (run-items.ts).
 */
export interface ItemTextDelta {
  textDelta: true;
  ordinal: number;
  itemId: string;
  member: string;
  offset: number;
  text: string;
  streamId: string;
  previousStreamId: string;
}

/** What the `runItem` topic carries: an item's whole state (a snapshot), or text appended to it. */
export type ItemEvent = ItemView | ItemTextDelta;

export const isTextDelta = (event: ItemEvent): event is ItemTextDelta => 'textDelta' in event;

/**
 * Who is present in a workspace changed (support/presence.ts): only a signal, naming the participant
 * whose touch or leave changed it; subscribers read the frame themselves (support/presence-watch.ts).
 */
export interface PresenceSignal {
  participantId: string;
}

/** A device request relayed to the instance holding the device's websocket (support/device-relay.ts). */
export interface DeviceRelayRequest {
  relayId: string;
  /** The requesting instance: replies go to its topic. */
  from: string;
  /** The instance recorded as holding the socket: only it serves the request (a stale second socket elsewhere does not). */
  to: string;
  method: string;
  params: Record<string, unknown>;
  timeoutMs?: number;
  /** Abort the relayed request `relayId` (the daemon kills the command). */
  abort?: boolean;
}

/** A frame of, or the answer to, a relayed device request. */
export interface DeviceRelayReply {
  relayId: string;
  frame?: Record<string, unknown>;
  result?: unknown;
  error?: { code: string; message: string };
}

export type EventTopics = {
  /** The workspace after an effective change (its row), by workspace id. */
  workspaceUpdated: [workspaceId: string, payload: Workspace];
  /** A run was accepted: wakes the workers (no polling on the run path). */
  runAccepted: [payload: { runId: string }];
  /** Cancellation of a running run was requested: its worker aborts the model call. */
  runCancelRequested: [payload: { runId: string }];
  /**
   * A run item was opened, changed or was committed (its full state, with its stream sequence), or
   * text was appended to it (a delta), by run id.
   */
  runItem: [runId: string, payload: ItemEvent];
  /** A run's row changed (status, pending, output…): the whole row after the change, by run id. */
  runChanged: [runId: string, payload: Run];
  /**
   * A run of the workspace was accepted or its row changed: the whole row, by workspace id (the
   * runsChanged subscription, what the console's live runs panel follows). Published with runChanged
   * (announceRunChanged) and when a run is accepted.
   */
  workspaceRunChanged: [workspaceId: string, payload: Run];
  /**
   * A span of a run trace started (open) or ended, by trace id, as it happens — before the attempt's
   * spans are stored (they are stored when it ends). What runTraceSpans followers hear.
   */
  traceSpan: [traceId: string, payload: LiveSpan];
  /**
   * A follower of the trace arrived: every instance sends again (on `traceSpan`) the spans its running
   * attempts of that trace hold, open or ended but not yet stored. One channel for all traces.
   */
  traceReplay: [channel: typeof TRACE_REPLAY_CHANNEL, payload: { traceId: string }];
  /**
   * A thread's row or inbox changed (version, current/last run, history, archive; an entry delivered,
   * edited, incorporated, turned into a run, finished), by thread id, after the change committed.
   * Only a signal: the threadUpdated subscription reads the thread as it is then (thread-watch.ts).
   */
  threadChanged: [threadId: string, payload: { threadId: string }];
  /**
   * An attempt of a webhook delivery was recorded (succeeded, retry scheduled, failed for good), by
   * webhook subscription id, after it committed. Only a signal: webhookDeliveryUpdated reads the
   * delivery as it is then (webhook-delivery-watch.ts).
   */
  webhookDeliveryChanged: [subscriptionId: string, payload: { deliveryId: string }];
  /** Someone arrived or left, or a touch or leave cleared expired entries, by workspace id, after the change committed. */
  presenceChanged: [workspaceId: string, payload: PresenceSignal];
  /** A request for a device, by device id: the instance holding its websocket serves it. */
  deviceRelayRequest: [deviceId: string, payload: DeviceRelayRequest];
  /** Frames and answers of relayed device requests, by the requesting instance's id. */
  deviceRelayReply: [instanceId: string, payload: DeviceRelayReply];
};

/** The id `traceReplay` is published under (the topic has a single channel). */
export const TRACE_REPLAY_CHANNEL = 'all';

export type Events = EventBus<EventTopics>;

/** `listen` (src/lib/events.ts) with the topic's payload type: a synchronous listener, in publish order. */
export function listenTo<
  Topic extends
    'runItem' | 'runChanged' | 'traceSpan' | 'threadChanged' | 'workspaceUpdated' | 'presenceChanged' | 'webhookDeliveryChanged',
>(events: Events, topic: Topic, id: string, listener: (payload: EventTopics[Topic][1]) => void): () => void {
  return listen(events, topic, id, listener as (payload: unknown) => void);
}

/** Tells followers of the run and of its workspace's runs that its row changed. Call it after the change committed. */
export function announceRunChanged(events: Events, run: Run): void {
  // Before any listener hears it: a feed that starts after this reads the run from the database.
  localRuns(events).changed(run);
  events.publish('runChanged', run.id, run);
  events.publish('workspaceRunChanged', run.workspaceId, run);
}

/**
 * Tells followers of the thread that its row or inbox changed. Call it after the change committed
 * (a follower reads the thread when it hears this; a read inside the writer's transaction would
 * not see it yet).
 */
export function announceThreadChanged(events: Events, threadId: string | null | undefined): void {
  if (threadId) events.publish('threadChanged', threadId, { threadId });
}

/** Tells followers of the subscription's deliveries that an attempt was recorded. Call it after the attempt committed. */
export function announceWebhookDeliveryChanged(events: Events, delivery: { id: string; subscriptionId: string }): void {
  events.publish('webhookDeliveryChanged', delivery.subscriptionId, { deliveryId: delivery.id });
}
