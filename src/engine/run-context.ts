// The call context a run acts with: built once per run, from what the claimed row already holds
// (no query on the hot path), for everything the engine does on the run's behalf.
import type { Run } from '../services/rows.js';
import { callContext, principalActor, type CallContext } from '../services/call-context.js';
import type { Deps } from '../services/deps.js';

/**
 * The run's principal in the run's workspace, with the rights a run needs on its mounts. Runs do
 * not record the request that created them (its id is on the run's own audit rows), so what a run
 * does later carries no request id; its log lines carry the run id instead.
 */
export function runCallContext(deps: Deps, run: Run): CallContext {
  const call = callContext(deps, principalActor(run.workspaceId, run.principalId), null);
  return { ...call, logger: deps.logger.child({ runId: run.id }) };
}
