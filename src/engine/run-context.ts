// The call context a run acts with: built once per run, from what the claimed row already holds
// (no query on the hot path), for everything the engine does on the run's behalf.
import type { Run } from '../generated/prisma/client.js';
import { callContext, type CallContext } from '../services/call-context.js';
import type { Actor, Deps } from '../services/deps.js';

/** The run acts with its starter's identity and the rights a run needs on its mounts. */
export function runActor(run: Run): Actor {
  return {
    principalId: run.principalId,
    principalKind: run.principalId.startsWith('usr_') ? 'user' : 'api_key',
    workspaceId: run.workspaceId,
    organizationId: '',
    permissions: new Set(['read', 'write']),
    loginSessionId: null,
  };
}

/**
 * The run's principal in the run's workspace. Runs do not record the request that created them
 * (its id is on the run's own audit rows), so what a run does later carries no request id; its
 * log lines carry the run id instead.
 */
export function runCallContext(deps: Deps, run: Run): CallContext {
  const call = callContext(deps, runActor(run), null);
  return { ...call, logger: deps.logger.child({ runId: run.id }) };
}
