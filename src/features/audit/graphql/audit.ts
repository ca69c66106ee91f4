import { builder } from '../../../graphql/builder.js';
import { connectionOf } from '../../../graphql/modules/common.js';
import { connectionQuery } from '../../../graphql/modules/query-fields.js';
import { listAuditEvents } from '../audit.js';
import { loadPrincipals, type PrincipalView } from '../../access/principals.js';
import { PermissionEnum, PrincipalKindEnum, storedValue } from '../../../graphql/modules/enums.js';
import { rowId } from '../../../graphql/modules/node.js';
import { relation } from '../../../graphql/modules/relations.js';

export const AuditEventRef = builder.prismaObject('AuditEvent', {
  fields: (t) => ({
    id: t.exposeID('id'),
    workspaceId: t.exposeString('workspaceId'),
    principalId: t.exposeString('principalId'),
    action: t.exposeString('action'),
    resourceKind: t.exposeString('resourceKind'),
    resourceId: t.exposeString('resourceId'),
    version: t.exposeInt('version', { nullable: true }),
    changes: t.expose('changes', { type: 'JSON' }),
    requestId: t.exposeString('requestId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const AuditEventConnection = connectionOf('AuditEvent', AuditEventRef);

connectionQuery('auditEvents', AuditEventConnection, {
  description: 'The audit trail of the workspace, newest first. Needs `admin`. At most 100 a page (default 50).',
  args: (arg) => ({
    resourceId: arg.string(),
    resourceKind: arg.string(),
    principalId: arg.string(),
    action: arg.string(),
    createdAfter: arg({ type: 'DateTime' }),
    createdBefore: arg({ type: 'DateTime' }),
  }),
  list: listAuditEvents,
});

// Principals: who acted. An interface (not a union) because every principal has an id, a kind and a
// name a client shows without knowing which kind it is; the kinds add what is theirs.
export const PrincipalRef = builder.interfaceRef<PrincipalView>('Principal').implement({
  description: 'Who acted: a user (a member of the workspace) or an API key of the workspace. Never carries a secret or its hash.',
  resolveType: (principal) => (principal.kind === 'user' ? 'User' : 'ApiKey'),
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the principal id (`usr_…`, `key_…`), as principalId fields carry it' }),
    kind: t.field({ type: PrincipalKindEnum, resolve: (principal) => principal.kind }),
    name: t.string({
      description: "the display name: a user's name (their email when they gave none), an API key's name (may be empty)",
      resolve: (principal) => (principal.kind === 'user' ? principal.name || principal.email : principal.name),
    }),
  }),
});

type UserView = Extract<PrincipalView, { kind: 'user' }>;
type ApiKeyView = Extract<PrincipalView, { kind: 'api_key' }>;

builder.objectRef<UserView>('User').implement({
  description: 'A user who is a member of the workspace.',
  interfaces: [PrincipalRef],
  isTypeOf: (value) => (value as PrincipalView).kind === 'user',
  fields: (t) => ({ email: t.exposeString('email') }),
});

builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key of the workspace: its name and last four characters, never the key or its hash.',
  interfaces: [PrincipalRef],
  isTypeOf: (value) => (value as PrincipalView).kind === 'api_key',
  fields: (t) => ({
    hint: t.exposeString('hint', { description: "the key's last four characters, to tell keys apart" }),
    permissions: t.field({
      type: [PermissionEnum],
      resolve: (key) => key.permissions.map((permission) => storedValue(PermissionEnum, permission)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    rateLimit: t.exposeString('rateLimit', {
      nullable: true,
      description:
        'the key\'s own request-rate limit, "<requests>/<seconds>s" ("600/60s") or "0" for none, set by an operator; null: the service\'s default (RATE_LIMIT_PER_KEY)',
    }),
  }),
});

relation(AuditEventRef, 'principal', {
  type: PrincipalRef,
  nullable: true,
  // Principals are not nodes: users and API keys are read by their own loader.
  load: { load: loadPrincipals, idOf: rowId },
  id: (event) => event.principalId,
  description:
    'who made the change (principalId); null for the service itself (`system`), a user who is no longer a member, or an id the workspace does not know',
});
