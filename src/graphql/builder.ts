// The one SchemaBuilder. No types live here: each domain module under modules/ adds its own.
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import type PrismaTypes from '../generated/pothos-types.js';
import { getDatamodel } from '../generated/pothos-types.js';
import type { GraphQLContext } from './context.js';
import { invalidArgument } from '../lib/errors.js';
import { parseNodeId } from '../lib/node-ids.js';
import type { Labels } from '../lib/labels.js';
import type { RunOptions, StoredAgentConfig } from '../features/agents/documents/config-schema.js';
import type { SkillContent } from '../features/agents/skills.js';
import type { StoredPricing } from '../features/models/pricing.js';
import type { RunMountRequest } from '../features/environments/environments.js';
import type { MessageContent } from '../features/runs/run-input.js';

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes;
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    // Documents of a fixed shape that keep their snake_case members (src/graphql/document-scalars.ts).
    Labels: { Input: Labels; Output: unknown };
    RunOptionsDocument: { Input: RunOptions; Output: unknown };
    MessageContent: { Input: MessageContent; Output: unknown };
    ExtraHeaders: { Input: Record<string, string>; Output: unknown };
    McpHeaders: { Input: Record<string, Record<string, string>>; Output: unknown };
    AgentConfigurationDocument: { Input: StoredAgentConfig; Output: unknown };
    SkillContentDocument: { Input: SkillContent; Output: unknown };
    ModelPricingDocument: { Input: StoredPricing | null; Output: unknown };
    EnvironmentMounts: { Input: RunMountRequest[]; Output: unknown };
    File: { Input: File; Output: never };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    // The client is per app instance (tests run several), so it comes from the context.
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    // A global id is the stored id itself (src/lib/node-ids.ts): nothing to encode.
    encodeGlobalID: (_typename, id) => String(id),
    decodeGlobalID: (globalId) => {
      const parsed = parseNodeId(globalId);
      if (!parsed) throw invalidArgument('not the id of an object', 'id');
      return parsed;
    },
    // `node` and `nodes` are modules/node.ts's own: they check the caller's permission and answer
    // null for a malformed id, where the plugin's would fail the field.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    clientMutationId: 'omit',
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});
