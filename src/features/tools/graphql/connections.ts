// Connections: a workspace's MCP servers (through a connector provider). The credential is
// write-only: the type says only whether one is configured.
import { builder } from '../../../graphql/builder.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { idMutation, resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { nameAndLabelInputs, withConfigAndCredential, withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { loadConnections } from '../connections.js';
import { startConnectionAuthorization, type StartedAuthorization } from '../connection-oauth.js';
import type { Connection } from '../../../generated/prisma/client.js';
import {
  createConnection,
  getConnection,
  listConnections,
  revokeConnection,
  testConnection,
  updateConnection,
  type ConnectionTestResult,
} from '../connections.js';

const ConnectionOAuthRef = builder.objectRef<Connection>('ConnectionOAuth').implement({
  description: 'A connection authorized with OAuth 2.1: the state of its grant (the tokens themselves are never returned).',
  fields: (t) => ({
    status: t.string({
      description: 'authorized | refresh_failed (the tools then fail until the connection is authorized again)',
      resolve: (row) => row.oauthStatus ?? 'authorized',
    }),
    reason: t.string({ nullable: true, description: 'why the last refresh failed', resolve: (row) => row.oauthStatusReason }),
    expiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'when the stored access token expires (it is refreshed before); null: the server did not say',
      resolve: (row) => row.oauthExpiresAt,
    }),
  }),
});

const ConnectionRef = builder.prismaObject('Connection', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    providerId: t.exposeString('providerId'),
    oauth: t.field({
      type: ConnectionOAuthRef,
      nullable: true,
      description: 'the OAuth grant, when the connection was authorized with OAuth; null otherwise',
      resolve: (row) => (row.oauthCiphertext ? row : null),
    }),
  }),
});
asNode(ConnectionRef, { kind: 'connection', load: loadConnections });
withNamedResourceFields(ConnectionRef);
withConfigAndCredential(ConnectionRef);

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
    ...nameAndLabelInputs(t),
    providerId: t.string({ required: true, description: 'a connector provider of the workspace' }),
    name: t.string({ required: true }),
    config: t.field({ type: 'JSON', description: 'MCP: `transport` (streamable_http | stdio) with `url`, or `command` and `args`' }),
    credential: t.field({ type: 'JSON', description: 'write-only: `bearer_token` and/or `headers`' }),
    enabled: t.boolean(),
  }),
});
const UpdateConnectionInput = builder.inputType('UpdateConnectionInput', {
  fields: (t) => ({
    ...nameAndLabelInputs(t),
    enabled: t.boolean(),
    config: t.field({ type: 'JSON', description: 'while a credential is stored, a change needs `credential` too' }),
    credential: t.field({ type: 'JSON', description: 'a value replaces, null removes, omitted keeps' }),
  }),
});

connectionQuery('connections', ConnectionConnection, {
  args: (arg) => ({ label: arg.stringList(), q: arg.string(), enabled: arg.boolean(), providerId: arg.string() }),
  list: listConnections,
});
objectQuery('connection', ConnectionRef, getConnection);

const connectionMutations = resourceMutations('connection', ConnectionRef);
connectionMutations.create(CreateConnectionInput, createConnection);
// Whether the input names `credential` at all: null removes it, an absent member keeps it.
connectionMutations.update(UpdateConnectionInput, (call, id, ifMatch, input) =>
  updateConnection(call, id, ifMatch, input, { credential: Object.hasOwn(input, 'credential') }),
);
connectionMutations.versionedAction('revoke', revokeConnection, {
  description: 'Removes the stored credential and OAuth grant (revoked at its server where supported). If-Match is optional.',
});

const StartConnectionAuthorizationInput = builder.inputType('StartConnectionAuthorizationInput', {
  fields: (t) => ({
    clientId: t.string({ description: 'a client registered beforehand; absent: registered dynamically (RFC 7591)' }),
    clientSecret: t.string({ description: 'write-only: the secret of `clientId`, for a confidential client' }),
    scope: t.string({ description: 'absent: the scopes the server lists in its protected-resource metadata' }),
  }),
});
const StartConnectionAuthorizationPayload = builder.objectRef<StartedAuthorization>('StartConnectionAuthorizationPayload').implement({
  fields: (t) => ({
    authorizationUrl: t.exposeString('authorizationUrl', { description: 'open it in a browser: the authorization server asks to approve' }),
    redirectUrl: t.exposeString('redirectUrl', { description: "the service's callback the browser returns to" }),
    expiresAt: t.field({ type: 'DateTime', description: 'the authorization must be completed before', resolve: (r) => r.expiresAt }),
  }),
});
builder.mutationField('startConnectionAuthorization', (t) =>
  t.field({
    type: StartConnectionAuthorizationPayload,
    description: 'Needs `write`: starts authorizing the connection with OAuth 2.1 (discovery, client registration, PKCE).',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: StartConnectionAuthorizationInput }) },
    resolve: async (_root, args, ctx) => startConnectionAuthorization(await ctx.call(), String(args.id), args.input),
  }),
);

idMutation('testConnection', ConnectionTestResultRef, testConnection, { description: 'Needs `run`: connects and lists the tools.' });
