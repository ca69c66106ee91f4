// The listener status for the UI: is the service taking work, is the event stream up, how deep is
// the queue, which version, how long up.
import { readFileSync } from 'node:fs';
import type { Actor, Deps } from '../services/deps.js';
import { requirePermission } from '../services/permissions.js';
import { supportRuntime } from './runtime.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Run statuses that count as queued work (the runs issue owns the full list). */
const QUEUED_STATUSES = ['accepted', 'queued'];

export async function getListenerStatus(deps: Deps, actor: Actor) {
  requirePermission(actor, 'read');
  const runtime = supportRuntime(deps);
  const [queueDepth, workspaceQueueDepth] = await Promise.all([
    deps.db.run.count({ where: { status: { in: QUEUED_STATUSES } } }),
    deps.db.run.count({ where: { status: { in: QUEUED_STATUSES }, workspaceId: actor.workspaceId } }),
  ]);
  const connectedDevices = [...runtime.devices.values()].filter((connection) => connection.workspaceId === actor.workspaceId).length;
  return {
    status: 'ok',
    version: VERSION,
    startedAt: runtime.startedAt,
    uptimeSeconds: Math.floor((Date.now() - runtime.startedAt.getTime()) / 1000),
    // The run engine registers itself here once it exists; until then no workers run.
    runWorkers: { up: runtime.runWorkers > 0, count: runtime.runWorkers },
    eventStream: { up: true, transports: ['graphql-ws', 'sse'] },
    queueDepth,
    workspaceQueueDepth,
    connectedDevices,
  };
}
