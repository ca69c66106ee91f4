// Typed pubsub for live updates (graphql-yoga's createPubSub). In-process by default; later a
// Redis event target makes every instance see every event.
import { createPubSub } from 'graphql-yoga';

export type Events = ReturnType<typeof createEvents>;

export function createEvents() {
  return createPubSub<{
    workspaceUpdated: [workspaceId: string, payload: any];
    /** A run was accepted: wakes the workers (no polling on the run path). */
    runAccepted: [payload: { runId: string }];
    /** Cancellation of a running run was requested: its worker aborts the model call. */
    runCancelRequested: [payload: { runId: string }];
    /** A run item was opened, grew or was committed (full item state, with its stream sequence). */
    runItem: [runId: string, payload: any];
    /** A run's row changed (status, pending, output…). */
    runChanged: [runId: string, payload: any];
    presenceChanged: [workspaceId: string, payload: any];
  }>();
}
