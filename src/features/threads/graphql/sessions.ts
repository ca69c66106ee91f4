// Sessions: the named groups of threads a client opens (REST /api/v1/sessions).
import { builder } from '../../../graphql/builder.js';
import { resourceMutations } from '../../../graphql/modules/mutation-fields.js';
import { connectionQuery, objectQuery } from '../../../graphql/modules/query-fields.js';
import { asNode } from '../../../graphql/modules/node.js';
import { connectionOf, VersionedRef } from '../../../graphql/modules/common.js';
import { createSession, getSession, listSessions, loadSessions, updateSession } from '../threads.js';
import { withLabelList } from '../../../graphql/modules/labels.js';

export const SessionRef = builder.prismaObject('Session', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    title: t.exposeString('title'),
    labels: t.expose('labels', { type: 'JSON' }),
  }),
});
asNode(SessionRef, { kind: 'session', load: loadSessions });
withLabelList(SessionRef);

const SessionConnection = connectionOf('Session', SessionRef);

const SessionInput = builder.inputType('SessionInput', { fields: (t) => ({ title: t.string(), labels: t.field({ type: 'Labels' }) }) });

objectQuery('session', SessionRef, getSession);
connectionQuery('sessions', SessionConnection, {
  description: 'At most 100 a page (default 50).',
  args: (arg) => ({ label: arg.stringList() }),
  list: listSessions,
});

const sessionMutations = resourceMutations('session', SessionRef);
sessionMutations.create(SessionInput, createSession);
sessionMutations.update(SessionInput, updateSession);
