// Listener status (support API GET /api/status): workers, event stream, queue depths, connected devices.
import { builder } from '../../../graphql/builder.js';
import { getListenerStatus } from '../status.js';

type Status = Awaited<ReturnType<typeof getListenerStatus>>;
const RunWorkersStatus = builder.objectRef<Status['runWorkers']>('RunWorkersStatus').implement({
  fields: (t) => ({ up: t.exposeBoolean('up'), count: t.exposeInt('count') }),
});
const EventStreamStatus = builder.objectRef<Status['eventStream']>('EventStreamStatus').implement({
  fields: (t) => ({ up: t.exposeBoolean('up'), transports: t.exposeStringList('transports') }),
});
const ListenerStatus = builder.objectRef<Status>('ListenerStatus').implement({
  fields: (t) => ({
    status: t.exposeString('status'),
    version: t.exposeString('version'),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    uptimeSeconds: t.exposeInt('uptimeSeconds'),
    runWorkers: t.field({ type: RunWorkersStatus, resolve: (status) => status.runWorkers }),
    eventStream: t.field({ type: EventStreamStatus, resolve: (status) => status.eventStream }),
    queueDepth: t.exposeInt('queueDepth', { description: 'Runs waiting for a worker, in the whole service.' }),
    workspaceQueueDepth: t.exposeInt('workspaceQueueDepth', { description: "Runs waiting for a worker, in the caller's workspace." }),
    connectedDevices: t.exposeInt('connectedDevices', {
      description: "Devices of the caller's workspace with a live connection to this instance.",
    }),
  }),
});

builder.queryField('listenerStatus', (t) =>
  t.field({ type: ListenerStatus, resolve: async (_root, _args, ctx) => getListenerStatus(await ctx.call()) }),
);
