// Device pairing (support API /api/envd/pair, /api/device-pairings): a daemon asks to pair and polls
// without a credential; a member of a workspace lists, approves or rejects the challenge.
import { builder } from '../../../graphql/builder.js';
import { flagPayload, payloadOf } from '../../../graphql/modules/payloads.js';
import { idMutation } from '../../../graphql/modules/mutation-fields.js';
import { PUBLIC_FIELD } from '../../../graphql/access.js';
import { approvePairing, listPairings, pairingChallenge, pollPairing, rejectPairing, requestPairing } from '../pairing.js';
import { DeviceSummary } from './devices.js';

type PairingResponse = Awaited<ReturnType<typeof requestPairing>>;
const PairingResponseRef = builder.objectRef<PairingResponse>('RequestDevicePairingPayload').implement({
  fields: (t) => ({
    pairingId: t.exposeID('pairingId'),
    userCode: t.exposeString('userCode', { description: 'Shown by the daemon; the user checks it before approving.' }),
    pollSecret: t.exposeString('pollSecret', { description: 'wsp_… secret the daemon polls with; shown once.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    pollIntervalSeconds: t.exposeInt('pollIntervalSeconds'),
  }),
});

type PollResult = Awaited<ReturnType<typeof pollPairing>>;
const PairingPollResult = builder.objectRef<PollResult>('PollDevicePairingPayload').implement({
  fields: (t) => ({
    pairingId: t.exposeID('pairingId'),
    status: t.exposeString('status', { description: 'pending | approved | rejected | expired | claimed' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    deviceId: t.exposeString('deviceId', { nullable: true }),
    workspaceId: t.exposeString('workspaceId', { nullable: true }),
    deviceCredential: t.exposeString('deviceCredential', {
      nullable: true,
      description: 'wsd_… credential, in the first poll after approval only.',
    }),
  }),
});

const PairingChallenge = builder.objectRef<ReturnType<typeof pairingChallenge>>('PairingChallenge').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    userCode: t.exposeString('userCode'),
    deviceName: t.exposeString('deviceName'),
    platform: t.exposeString('platform'),
    publicKeyFingerprint: t.exposeString('publicKeyFingerprint'),
    status: t.exposeString('status'),
    workspaceId: t.exposeString('workspaceId', {
      nullable: true,
      description: 'The workspace the daemon asked for, or null (any workspace may answer).',
    }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const PairingRequestInput = builder.inputType('PairingRequestInput', {
  fields: (t) => ({
    deviceName: t.string({ required: true, description: '1 to 100 characters' }),
    platform: t.string({ required: true, description: 'e.g. linux-x64; 1 to 64 characters' }),
    publicKey: t.string({ required: true, description: "the daemon's public key (PEM or base64), at most 4096 characters" }),
    workspaceId: t.string({ required: false, description: 'address the challenge to one workspace only' }),
  }),
});

builder.mutationField('requestDevicePairing', (t) =>
  t.field({
    type: PairingResponseRef,
    description: 'Open (no credential), rate-limited per client address: a daemon asks to pair.',
    extensions: PUBLIC_FIELD,
    args: { input: t.arg({ type: PairingRequestInput, required: true }) },
    resolve: (_root, args, ctx) => requestPairing(ctx.anonymous, args.input, ctx.clientAddress),
  }),
);

builder.mutationField('pollDevicePairing', (t) =>
  t.field({
    type: PairingPollResult,
    description:
      'Open (no credential; the poll secret authorises it): the daemon polls; after approval the first poll carries the device credential.',
    extensions: PUBLIC_FIELD,
    args: { pollSecret: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => pollPairing(ctx.anonymous, args.pollSecret),
  }),
);

builder.queryField('devicePairings', (t) =>
  t.field({
    type: [PairingChallenge],
    description: "Pending challenges addressed to the caller's workspace; an unaddressed one appears only when its userCode is given.",
    args: { userCode: t.arg.string({ required: false, description: 'the code the daemon printed (any case, hyphen optional)' }) },
    resolve: async (_root, args, ctx) => listPairings(await ctx.call(), args.userCode),
  }),
);

idMutation('approveDevicePairing', payloadOf('approveDevicePairing', 'device', DeviceSummary), approvePairing, { idType: 'String' });
idMutation('rejectDevicePairing', flagPayload('rejectDevicePairing', 'rejected', 'true: the pairing request is refused'), rejectPairing, {
  idType: 'String',
});
