// The listener status for the UI: is the service taking work, is the event stream up, how deep is
// the queue, which version, how long up.
import { readFileSync } from 'node:fs';
import { fromRepositoryRoot } from '../../lib/repository-root.js';
import type { CallContext } from '../../services/call-context.js';
import { requirePermission } from '../access/permissions.js';
import { supportRuntime } from './runtime.js';

const VERSION = (JSON.parse(readFileSync(fromRepositoryRoot('package.json'), 'utf8')) as { version: string }).version;

/** Queued work: runs accepted and not yet claimed by a worker (see the run state machine in docs/api/runs.md). */
const QUEUED_STATUSES = ['accepted'];

export async function getListenerStatus(call: CallContext) {
  const { deps, actor } = call;
  requirePermission(actor, 'read');
  const runtime = supportRuntime(deps);
  const [queueDepth, workspaceQueueDepth] = await Promise.all([
    call.db.run.count({ where: { status: { in: QUEUED_STATUSES } } }),
    call.db.run.count({ where: { status: { in: QUEUED_STATUSES }, workspaceId: actor.workspaceId } }),
  ]);
  const connectedDevices = [...runtime.devices.values()].filter((connection) => connection.workspaceId === actor.workspaceId).length;
  return {
    status: 'ok',
    version: VERSION,
    startedAt: runtime.startedAt,
    uptimeSeconds: Math.floor((Date.now() - runtime.startedAt.getTime()) / 1000),
    // The workers inside this process (RUN_WORKERS), registered when they start; worker processes of
    // `npm run worker` are not counted here.
    runWorkers: { up: runtime.runWorkers > 0, count: runtime.runWorkers },
    eventStream: { up: true, transports: ['graphql-ws', 'sse'] },
    queueDepth,
    workspaceQueueDepth,
    connectedDevices,
  };
}
