// Connections: a workspace's MCP servers (through a connector provider). The credential is
// write-only: the type says only whether one is configured.
import { builder } from '../../../graphql/builder.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { idMutation, resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { nameAndLabelInputs, withConfigAndCredential, withNamedResourceFields } from '../../../graphql/modules/named-fields.js';
import { loadConnections } from '../connections.js';
import {
  createConnection,
  getConnection,
  listConnections,
  revokeConnection,
  testConnection,
  updateConnection,
  type ConnectionTestResult,
} from '../connections.js';

const ConnectionRef = builder.prismaObject('Connection', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    providerId: t.exposeString('providerId'),
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
connectionMutations.versionedAction('revoke', revokeConnection, { description: 'Removes the stored credential. If-Match is optional.' });

idMutation('testConnection', ConnectionTestResultRef, testConnection, { description: 'Needs `run`: connects and lists the tools.' });
