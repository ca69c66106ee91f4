// The one SchemaBuilder. No types live here: each domain module under modules/ adds its own.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { GraphQLContext } from './context.js';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [PrismaPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The client is per app instance (tests run several), so it comes from the context.
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
