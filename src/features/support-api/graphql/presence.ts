// Presence (support API /api/presence): who is in the workspace, registering, and live changes.
import { builder } from '../../../graphql/builder.js';
import { payloadOf } from '../../../graphql/modules/payloads.js';
import { callerQuery } from '../../../graphql/modules/query-fields.js';
import { currentPresence, leavePresence, touchPresence, type PresenceFrame } from '../presence.js';
import { watchPresence } from '../presence-watch.js';
import { PrincipalKindEnum, storedValue } from '../../../graphql/modules/enums.js';

const PresenceParticipant = builder.objectRef<PresenceFrame['participants'][number]>('PresenceParticipant').implement({
  fields: (t) => ({
    participantId: t.exposeString('participantId'),
    principalId: t.exposeString('principalId'),
    principalKind: t.field({ type: PrincipalKindEnum, resolve: (r) => storedValue(PrincipalKindEnum, r.principalKind) }),
    firstSeenAt: t.expose('firstSeenAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const PresenceFrameRef = builder.objectRef<PresenceFrame>('PresenceFrame').implement({
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    participantId: t.exposeString('participantId', {
      description: 'The participant this frame answers (empty in frames published on expiry).',
    }),
    ttlSeconds: t.exposeInt('ttlSeconds'),
    serverTime: t.expose('serverTime', { type: 'DateTime' }),
    participants: t.field({ type: [PresenceParticipant], resolve: (frame) => frame.participants }),
  }),
});

callerQuery('presence', PresenceFrameRef, currentPresence, 'Who is present in the workspace (registers nobody).');

builder.mutationField('touchPresence', (t) =>
  t.field({
    type: payloadOf('touchPresence', 'presence', PresenceFrameRef),
    description: "Registers the caller's participant (default: the caller's principal id) as present and returns the frame.",
    args: { participantId: t.arg.string({ required: false, description: 'at most 80 characters' }) },
    resolve: async (_root, args, ctx) => touchPresence(await ctx.call(), args.participantId),
  }),
);

const LeavePresencePayload = builder.objectRef<Awaited<ReturnType<typeof leavePresence>>>('LeavePresencePayload').implement({
  description: 'The result of `leavePresence`.',
  fields: (t) => ({
    left: t.exposeBoolean('left', { description: 'true: the participant was present and is gone; false: it was not present' }),
    presence: t.field({ type: PresenceFrameRef, description: 'the frame after leaving', resolve: (r) => r.presence }),
  }),
});

builder.mutationField('leavePresence', (t) =>
  t.field({
    type: LeavePresencePayload,
    description:
      "The caller's participant (default: the caller's principal id) leaves at once instead of expiring after the TTL; subscribers get the frame without it.",
    args: { participantId: t.arg.string({ required: false, description: 'at most 80 characters' }) },
    resolve: async (_root, args, ctx) => leavePresence(await ctx.call(), args.participantId),
  }),
);

builder.subscriptionField('presenceChanged', (t) =>
  t.field({
    type: PresenceFrameRef,
    description: "Emits the workspace's presence frame whenever a participant arrives, leaves or expires.",
    subscribe: async (_root, _args, ctx) => watchPresence(await ctx.call()),
    resolve: (frame) => frame,
  }),
);
