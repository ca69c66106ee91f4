// Relay's object identification: the `Node` interface, `node(id)` and `nodes(ids)` (the Pothos relay
// plugin). A node's global id is its stored id (src/lib/node-ids.ts), so `id` means the same thing
// on every type, to REST and GraphQL clients alike. Each domain module makes its types nodes with
// `asNode` beside their definitions; the plugin groups the ids of one request by type and calls each
// type's loader once (src/services/nodes.ts: one statement per type).
import type { ObjectRef } from '@pothos/core';
import { resolveNodes } from '@pothos/plugin-relay';
import { builder } from '../builder.js';
import type { Types } from './common.js';
import { invalidArgument } from '../../lib/errors.js';
import { parseNodeId } from '../../lib/node-ids.js';
import { inIdOrder, requireNodeReader, type NodeRowsLoader } from '../../services/nodes.js';

/** The most ids one `nodes` call takes (a client refetching more asks again). */
export const MAX_NODE_IDS = 100;

const ID_DESCRIPTION = 'the id; also the Relay global id (`node(id:)` finds the object by it)';

/** Makes `ref` a node: the `Node` interface, its `id` field (from `idOf`) and its loader. */
export function asNode<T>(ref: ObjectRef<Types, T>, load: NodeRowsLoader<T>, idOf: (row: T) => string, description = ID_DESCRIPTION): void {
  builder.nodeRef(ref, {
    id: { description, resolve: idOf },
    loadMany: async (ids, ctx) => {
      const call = await ctx.call();
      requireNodeReader(call);
      return inIdOrder(ids, await load(call, ids), idOf);
    },
  });
}

/** For the many types whose rows carry their global id as `id`. */
export const rowId = (row: { id: string }) => row.id;

const NodeRef = builder.nodeInterfaceRef();

builder.queryFields((t) => ({
  node: t.field({
    type: NodeRef,
    nullable: true,
    description:
      'The object with this global id; null when there is none in the workspace (unknown, malformed, or of another workspace: alike).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx, info) => {
      requireNodeReader(await ctx.call());
      const [node] = await resolveNodes(builder, ctx, info, [parseNodeId(String(args.id))]);
      return (await node) as object | null;
    },
  }),
  nodes: t.field({
    type: [NodeRef],
    nullable: { list: false, items: true },
    description: `The objects with these global ids, in the same order; null in place of each id \`node\` answers null for. At most ${MAX_NODE_IDS} ids; one query per type.`,
    args: { ids: t.arg.idList({ required: true }) },
    resolve: async (_root, args, ctx, info) => {
      requireNodeReader(await ctx.call());
      if (args.ids.length > MAX_NODE_IDS) throw invalidArgument(`ids takes at most ${MAX_NODE_IDS} ids`, 'ids');
      return (await resolveNodes(
        builder,
        ctx,
        info,
        args.ids.map((id) => parseNodeId(String(id))),
      )) as (object | null)[];
    },
  }),
}));
