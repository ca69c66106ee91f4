// Sessions: the named groups of threads a client opens (REST /api/v1/sessions).
import { builder } from '../builder.js';
import { payloadOf } from './payloads.js';
import { asNode } from './node.js';
import { loadSessions, createSession, getSession, listSessions, updateSession } from '../../services/threads.js';
import { ID_PREFIX } from '../../lib/ids.js';
import { connectionArgs, connectionFrom, connectionOf, VersionedRef } from './common.js';
import { withLabelList } from './labels.js';

export const SessionRef = builder.prismaObject('Session', {
  interfaces: [VersionedRef],
  fields: (t) => ({
    workspaceId: t.exposeString('workspaceId'),
    title: t.exposeString('title'),
    labels: t.expose('labels', { type: 'JSON' }),
  }),
});
asNode(SessionRef, { prefix: ID_PREFIX.session, load: loadSessions });
withLabelList(SessionRef);

const SessionConnection = connectionOf('Session', SessionRef);

const SessionInput = builder.inputType('SessionInput', { fields: (t) => ({ title: t.string(), labels: t.field({ type: 'JSON' }) }) });

builder.queryFields((t) => ({
  session: t.field({
    type: SessionRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_r, a, ctx) => getSession(await ctx.call(), String(a.id)),
  }),
  sessions: t.field({
    type: SessionConnection,
    description: 'At most 100 a page (default 50).',
    args: { label: t.arg.stringList(), ...connectionArgs(t.arg) },
    resolve: async (_r, a, ctx) => connectionFrom(a, async (page) => listSessions(await ctx.call(), { ...a, ...page })),
  }),
}));

builder.mutationFields((t) => ({
  createSession: t.field({
    type: payloadOf('createSession', 'session', SessionRef),
    args: { input: t.arg({ type: SessionInput, required: true }) },
    resolve: async (_r, a, ctx) => createSession(await ctx.call(), a.input),
  }),
  updateSession: t.field({
    type: payloadOf('updateSession', 'session', SessionRef),
    args: { id: t.arg.id({ required: true }), ifMatch: t.arg.string(), input: t.arg({ type: SessionInput, required: true }) },
    resolve: async (_r, a, ctx) => updateSession(await ctx.call(), String(a.id), a.ifMatch, a.input),
  }),
}));
