// The reviewer (`reviewer` in the agent configuration): before an allowed server tool runs, a second
// model call rates the call's risk.
import type { RunItemStream } from './items.js';
import type { ServerTool } from './tools/tool.js';

/** What the reviewer decided about one call: run it, ask a person first, or refuse it. */
export type ReviewDecision =
  | { action: 'allow'; verdict?: Record<string, unknown> }
  | { action: 'ask'; verdict: Record<string, unknown> }
  | { action: 'deny'; verdict: Record<string, unknown>; message: string };

export interface CallReviewer {
  review(
    runTool: ServerTool,
    call: { toolCallId: string; toolName: string; arguments: Record<string, unknown> },
    items: RunItemStream,
    signal: AbortSignal,
  ): Promise<ReviewDecision>;
}
