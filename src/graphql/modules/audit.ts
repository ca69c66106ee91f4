import { builder } from '../builder.js';
import { connectionArgs, connectionFrom, connectionOf } from './common.js';
import { listAuditEvents } from '../../services/audit.js';

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

builder.queryField('auditEvents', (t) =>
  t.field({
    type: AuditEventConnection,
    description: 'The audit trail of the workspace, newest first. Needs `admin`. At most 100 a page (default 50).',
    args: {
      resourceId: t.arg.string({ required: false }),
      resourceKind: t.arg.string({ required: false }),
      principalId: t.arg.string({ required: false }),
      action: t.arg.string({ required: false }),
      createdAfter: t.arg({ type: 'DateTime', required: false }),
      createdBefore: t.arg({ type: 'DateTime', required: false }),
      ...connectionArgs(t.arg),
    },
    resolve: async (_root, args, ctx) => connectionFrom(args, async (page) => listAuditEvents(await ctx.call(), { ...args, ...page })),
  }),
);
