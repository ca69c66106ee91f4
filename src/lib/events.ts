// Typed pubsub for live updates (graphql-yoga's createPubSub). In-process by default; later a
// Redis event target makes every instance see every event.
import { createPubSub } from 'graphql-yoga';

export type EventMap = {
  workspaceUpdated: [workspaceId: string, payload: unknown];
  presenceChanged: [workspaceId: string, payload: unknown];
};

export type Events = ReturnType<typeof createEvents>;

export function createEvents() {
  return createPubSub<{
    workspaceUpdated: [workspaceId: string, payload: any];
    presenceChanged: [workspaceId: string, payload: any];
  }>();
}
