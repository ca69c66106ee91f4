import { builder } from '../../../graphql/builder.js';
import { flagPayload } from '../../../graphql/modules/payloads.js';
import { login, logout, type LoginResult } from '../auth.js';
import type { Actor } from '../../../services/deps.js';
import { PUBLIC_FIELD } from '../../../graphql/access.js';
import { PermissionEnum, PrincipalKindEnum, RoleEnum, storedValue } from '../../../graphql/modules/enums.js';

const LoginUser = builder.objectRef<LoginResult['user']>('LoginUser').implement({
  fields: (t) => ({ id: t.exposeID('id'), email: t.exposeString('email'), name: t.exposeString('name') }),
});
const LoginWorkspace = builder.objectRef<LoginResult['workspaces'][number]>('LoginWorkspace').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    role: t.field({ type: RoleEnum, resolve: (r) => storedValue(RoleEnum, r.role) }),
  }),
});
const LoginPayload = builder.objectRef<LoginResult>('LoginPayload').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'Send as `Authorization: Bearer <token>` with `X-Workspace-ID`.' }),
    sessionId: t.exposeID('sessionId'),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    user: t.field({ type: LoginUser, resolve: (r) => r.user }),
    workspaces: t.field({ type: [LoginWorkspace], resolve: (r) => r.workspaces }),
  }),
});

const Viewer = builder.objectRef<Actor>('Viewer').implement({
  fields: (t) => ({
    principalId: t.exposeID('principalId'),
    principalKind: t.field({ type: PrincipalKindEnum, resolve: (r) => storedValue(PrincipalKindEnum, r.principalKind) }),
    workspaceId: t.exposeID('workspaceId'),
    organizationId: t.exposeID('organizationId'),
    permissions: t.field({ type: [PermissionEnum], resolve: (a) => [...a.permissions].sort() }),
  }),
});

builder.mutationField('login', (t) =>
  t.field({
    type: LoginPayload,
    description: 'Starts a login session for a user (email + password). Open: needs no credential.',
    extensions: PUBLIC_FIELD,
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => login(ctx.anonymous, args.email, args.password),
  }),
);

builder.mutationField('logout', (t) =>
  t.field({
    type: flagPayload('logout', 'loggedOut', 'true: the login session is ended'),
    description: 'Ends the login session used for this request (its bearer token; no X-Workspace-ID needed).',
    // Checks its own credential (the session to end), which needs no workspace: open at the gate.
    extensions: PUBLIC_FIELD,
    resolve: async (_root, _args, ctx) => {
      await logout(ctx.anonymous, ctx.authorization);
      return true;
    },
  }),
);

builder.queryField('viewer', (t) =>
  t.field({
    type: Viewer,
    description: 'Who the credential is, where it acts and what it may do.',
    resolve: (_root, _args, ctx) => ctx.actor(),
  }),
);
