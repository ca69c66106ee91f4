// Connections: a workspace's MCP servers (through a connector provider). The credential is
// write-only: the type says only whether one is configured.
import { builder } from '../builder.js';
import { asNode } from './node.js';
import { connectionArgs, connectionFrom, connectionOf, VersionedRef } from './common.js';
import { payloadOf } from './payloads.js';
import { withLabelList } from './labels.js';
import { ID_PREFIX } from '../../lib/ids.js';
import { loadConnections } from '../../services/connections.js';
import {
  createConnection,
  getConnection,
  listConnections,
  revokeConnection,
  testConnection,
  updateConnection,
  type ConnectionTestResult,
} from '../../services/connections.js';

const ConnectionRef = builder.prismaObject('Connection', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    providerId: t.exposeString('providerId'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    config: t.expose('config', { type: 'JSON' }),
    enabled: t.exposeBoolean('enabled'),
    labels: t.expose('labels', { type: 'JSON' }),
    credentialConfigured: t.boolean({
      description: 'the credential itself is never returned',
      resolve: (c) => c.credentialCiphertext !== null,
    }),
  }),
});
asNode(ConnectionRef, { prefix: ID_PREFIX.connection, load: loadConnections });
withLabelList(ConnectionRef);

// Relay's naming: the connection (list) of Connection objects.
const ConnectionConnection = connectionOf('Connection', ConnectionRef);

const ConnectionTestResultRef = builder.objectRef<ConnectionTestResult>('TestConnectionPayload').implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: 'succeeded | failed' }),
    message: t.string({ nullable: true, resolve: (r) => r.message }),
    toolCount: t.int({ nullable: true, description: 'the number of tools the server lists (succeeded only)', resolve: (r) => r.toolCount }),
  }),
});

const CreateConnectionInput = builder.inputType('CreateConnectionInput', {
  fields: (t) => ({
    providerId: t.string({ required: true, description: 'a connector provider of the workspace' }),
    name: t.string({ required: true }),
    description: t.string(),
    config: t.field({ type: 'JSON', description: 'MCP: `transport` (streamable_http | stdio) with `url`, or `command` and `args`' }),
    credential: t.field({ type: 'JSON', description: 'write-only: `bearer_token` and/or `headers`' }),
    labels: t.field({ type: 'JSON' }),
    enabled: t.boolean(),
  }),
});
const UpdateConnectionInput = builder.inputType('UpdateConnectionInput', {
  fields: (t) => ({
    name: t.string(),
    description: t.string(),
    labels: t.field({ type: 'JSON' }),
    enabled: t.boolean(),
    config: t.field({ type: 'JSON', description: 'while a credential is stored, a change needs `credential` too' }),
    credential: t.field({ type: 'JSON', description: 'a value replaces, null removes, omitted keeps' }),
  }),
});

builder.queryFields((t) => ({
  connections: t.field({
    type: ConnectionConnection,
    args: {
      label: t.arg.stringList(),
      q: t.arg.string(),
      enabled: t.arg.boolean(),
      providerId: t.arg.string(),
      ...connectionArgs(t.arg),
    },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listConnections(await ctx.call(), { ...a, ...page })),
  }),
  connection: t.field({
    type: ConnectionRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getConnection(await ctx.call(), String(a.id)),
  }),
}));

builder.mutationFields((t) => ({
  createConnection: t.field({
    type: payloadOf('createConnection', 'connection', ConnectionRef),
    args: { input: t.arg({ type: CreateConnectionInput, required: true }) },
    resolve: async (_r, a, ctx) => createConnection(await ctx.call(), a.input),
  }),
  updateConnection: t.field({
    type: payloadOf('updateConnection', 'connection', ConnectionRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: UpdateConnectionInput, required: true }) },
    resolve: async (_r, a, ctx) =>
      updateConnection(await ctx.call(), String(a.id), a.ifMatch, a.input, {
        credential: Object.prototype.hasOwnProperty.call(a.input, 'credential'),
      }),
  }),
  revokeConnection: t.field({
    type: payloadOf('revokeConnection', 'connection', ConnectionRef),
    description: 'Removes the stored credential. If-Match is optional.',
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string() },
    resolve: async (_r, a, ctx) => revokeConnection(await ctx.call(), String(a.id), a.ifMatch),
  }),
  testConnection: t.field({
    type: ConnectionTestResultRef,
    description: 'Needs `run`: connects and lists the tools.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => testConnection(await ctx.call(), String(a.id)),
  }),
}));
