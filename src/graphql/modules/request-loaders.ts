// Batched reads for fields of many parents: the lists of every parent an operation asks for in one
// tick are read with one service call, through a DataLoader kept per request (the caller's context).
import DataLoader from 'dataloader';
import { createContextCache } from '@pothos/core';
import type { GraphQLContext } from '../context.js';
import type { CallContext } from '../../services/call-context.js';

/**
 * A per-request loader of lists by key: `read` answers the lists of many keys at once (a key it
 * does not answer has none). Nothing is cached between ticks: a subscription's next event reads
 * afresh.
 */
export function listsByKey<V>(read: (call: CallContext, keys: readonly string[]) => Promise<Map<string, V[]>>) {
  return createContextCache(
    (ctx: GraphQLContext) =>
      new DataLoader<string, V[]>(
        async (keys) => {
          const found = await read(await ctx.call(), keys);
          return keys.map((key) => found.get(key) ?? []);
        },
        { cache: false },
      ),
  );
}
