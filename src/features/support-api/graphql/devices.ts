// Paired devices (support API /api/devices): list, read, revoke, and directory listings relayed to
// the device over its connection.
import { builder } from '../../../graphql/builder.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { idMutation } from '../../../graphql/modules/mutation-fields.js';
import {
  deviceInfo,
  deviceSummary,
  getDevice,
  listDevices,
  listDeviceDirectories,
  revokeDevice,
  type DirectoryListing,
} from '../devices.js';

type Summary = ReturnType<typeof deviceSummary>;
export const DeviceSummary = builder.objectRef<Summary>('DeviceSummary').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    platform: t.exposeString('platform'),
    status: t.exposeString('status', { description: 'active | revoked' }),
    online: t.exposeBoolean('online'),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const DeviceInfo = builder.objectRef<ReturnType<typeof deviceInfo>>('DeviceInfo').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    platform: t.exposeString('platform'),
    status: t.exposeString('status'),
    online: t.exposeBoolean('online'),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    workspaceId: t.exposeString('workspaceId'),
    approvedById: t.exposeString('approvedById'),
    publicKey: t.exposeString('publicKey'),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const DirectoryEntry = builder.objectRef<DirectoryListing['entries'][number]>('DirectoryEntry').implement({
  fields: (t) => ({ name: t.exposeString('name'), path: t.exposeString('path') }),
});

const DirectoryListingRef = builder.objectRef<DirectoryListing>('DirectoryListing').implement({
  fields: (t) => ({
    deviceId: t.exposeID('deviceId'),
    path: t.exposeString('path', { nullable: true, description: 'The listed directory; null when the roots were listed.' }),
    entries: t.field({ type: [DirectoryEntry], resolve: (listing) => listing.entries }),
    truncated: t.exposeBoolean('truncated'),
  }),
});

builder.queryField('devices', (t) =>
  t.field({ type: [DeviceSummary], resolve: async (_root, _args, ctx) => listDevices(await ctx.call()) }),
);

builder.queryField('device', (t) =>
  t.field({
    type: DeviceInfo,
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => getDevice(await ctx.call(), args.id),
  }),
);

idMutation('revokeDevice', payloadOf('revokeDevice', 'device', DeviceSummary), revokeDevice, { idType: 'String' });

builder.queryField('deviceDirectories', (t) =>
  t.field({
    type: DirectoryListingRef,
    description: "Lists directories on the device (no path: its roots), relayed over the device's connection.",
    args: { id: t.arg.string({ required: true }), path: t.arg.string({ required: false }) },
    resolve: async (_root, args, ctx) => listDeviceDirectories(await ctx.call(), args.id, args.path),
  }),
);
