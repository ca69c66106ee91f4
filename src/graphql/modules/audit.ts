import { builder } from '../builder.js';
import { connectionOf } from './common.js';
import { connectionQuery } from './query-fields.js';
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
