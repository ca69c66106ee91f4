// The whole text behind a run item's content ref (a large tool result, a long answer), a page at a time.
import { builder } from '../../../graphql/builder.js';
import { readItemContent, type ContentPage } from '../run-item-content.js';

const RunItemContentRef = builder.objectRef<ContentPage>('RunItemContent').implement({
  description: 'A page of the text a content ref stands for. Offsets count characters (UTF-16 code units).',
  fields: (t) => ({
    ref: t.exposeString('refId', { description: 'The content ref id (`content_refs.<member>.id`).' }),
    itemId: t.exposeString('itemId'),
    member: t.exposeString('member', { description: 'The content member the ref holds, e.g. `result` or `text`.' }),
    mediaType: t.exposeString('mediaType'),
    sizeBytes: t.exposeInt('sizeBytes', { description: 'UTF-8 bytes of the whole output as the tool returned it.' }),
    totalChars: t.exposeInt('totalChars', { description: 'Characters of the stored text.' }),
    offset: t.exposeInt('offset'),
    text: t.exposeString('text'),
    nextOffset: t.exposeInt('nextOffset', { nullable: true, description: 'Where the next page starts; null at the end.' }),
  }),
});

builder.queryField('runItemContent', (t) =>
  t.field({
    type: RunItemContentRef,
    description:
      'The text behind a content ref of a run item in your workspace, from `offset` (default 0), at most `limit` characters (default 65536, at most 262144).',
    args: { ref: t.arg.string({ required: true }), offset: t.arg.int(), limit: t.arg.int() },
    resolve: async (_r, a, ctx) => readItemContent(await ctx.call(), a.ref, { offset: a.offset, limit: a.limit }),
  }),
);
