// Single-valued relations between the graph's objects (a run's agent, thread, parent…), added to the
// types defined in their domain modules. Each relation resolves through a batch loader made once per
// operation (DataLoader): every `run.agent` of a list asks for its id in the same tick, and the
// loader reads them all with one statement (the node loaders of src/services/nodes.ts: `id IN (…)`
// and the caller's workspace only). So a list of 20 runs with their agent, revision, thread,
// session and parent costs one statement per relation, not one per run.
import DataLoader from 'dataloader';
import { createContextCache } from '@pothos/core';
import { builder } from '../builder.js';
import type { GraphQLContext } from '../context.js';
import { rowId } from './node.js';
import { AgentRef, AgentRevisionRef } from './agents.js';
import { SkillRef, SkillRevisionRef } from './skills.js';
import { RunRef } from './runs.js';
import { ThreadRef } from './threads.js';
import { SessionRef } from './sessions.js';
import { ModelRef, ProviderRef } from './providers.js';
import { InboxEntryRef } from './inbox.js';
import { AgentSubagentRef } from './agent-config.js';
import { AuditEventRef } from './audit.js';
import { EnvironmentRef, EnvironmentTemplateRef, environmentRunIds } from './environments.js';
import { PermissionEnum, PrincipalKindEnum, storedValue } from './enums.js';
import { AGENTS } from '../../services/agents.js';
import { SKILLS } from '../../services/skills.js';
import {
  inIdOrder,
  loadEnvironmentTemplates,
  loadProviders,
  loadRuns,
  loadSessions,
  loadThreads,
  requireNodeReader,
  revisionedLoaders,
  type NodeRowsLoader,
} from '../../services/nodes.js';
import { loadPrincipals, type PrincipalView } from '../../services/principals.js';

// One loader per kind of row and operation. Results are not cached across batches (`cache: false`):
// a subscription keeps its context for as long as it runs, and an operation may change what it read
// (a mutation's payload, a second mutation), so a remembered row could be stale; batching alone
// gives the constant statement count.
const loadersOf = createContextCache((_ctx: GraphQLContext) => new Map<object, DataLoader<string, unknown>>());

/** The loader of `load`'s rows in this operation: `load(id)` joins the tick's batch. */
function batchLoader<T>(ctx: GraphQLContext, load: NodeRowsLoader<T>, idOf: (row: T) => string): DataLoader<string, T | null> {
  const loaders = loadersOf(ctx);
  let loader = loaders.get(load) as DataLoader<string, T | null> | undefined;
  if (!loader) {
    loader = new DataLoader<string, T | null>(
      async (ids) => {
        const call = await ctx.call();
        requireNodeReader(call);
        return inIdOrder(ids, await load(call, [...new Set(ids)]), idOf);
      },
      { cache: false },
    );
    loaders.set(load, loader as DataLoader<string, unknown>);
  }
  return loader;
}

/** Reads the row a reference names (null for no reference, or none in the caller's workspace). */
function relation<T>(load: NodeRowsLoader<T>, idOf: (row: T) => string) {
  return (ctx: GraphQLContext, id: string | null): Promise<T | null> | null => (id === null ? null : batchLoader(ctx, load, idOf).load(id));
}

/** For references that always name a row (a run's agent and thread): a missing row is an internal error, not null. */
async function present<T>(row: Promise<T | null> | null, what: string): Promise<T> {
  const found = await row;
  if (found === null) throw new Error(`dangling reference: ${what}`);
  return found;
}

const agents = revisionedLoaders(AGENTS);
const skills = revisionedLoaders(SKILLS);
const runById = relation(loadRuns, rowId);
const threadById = relation(loadThreads, rowId);
const sessionById = relation(loadSessions, rowId);
const agentById = relation(agents.heads, rowId);
const agentRevisionById = relation(agents.revisions, rowId);
const skillRevisionById = relation(skills.revisions, rowId);
const providerById = relation(loadProviders, rowId);
const principalById = relation(loadPrincipals, rowId);
const environmentTemplateById = relation(loadEnvironmentTemplates, rowId);

builder.objectFields(RunRef, (t) => ({
  agent: t.field({
    type: AgentRef,
    description: 'the agent the run executes (agentId)',
    resolve: (run, _args, ctx) => present(agentById(ctx, run.agentId), `run ${run.id} agent`),
  }),
  revision: t.field({
    type: AgentRevisionRef,
    description: 'the agent revision the run executes (agentRevisionId)',
    resolve: (run, _args, ctx) => present(agentRevisionById(ctx, run.agentRevisionId), `run ${run.id} revision`),
  }),
  thread: t.field({
    type: ThreadRef,
    description: 'the thread the run belongs to (threadId)',
    resolve: (run, _args, ctx) => present(threadById(ctx, run.threadId), `run ${run.id} thread`),
  }),
  session: t.field({
    type: SessionRef,
    description: "the session of the run's thread (sessionId)",
    resolve: (run, _args, ctx) => present(sessionById(ctx, run.sessionId), `run ${run.id} session`),
  }),
  parent: t.field({
    type: RunRef,
    nullable: true,
    description: 'the run this one resumes, was forked from, or was delegated by as a subagent (parentRunId); null for a root run',
    resolve: (run, _args, ctx) => runById(ctx, run.parentRunId),
  }),
  resumedBy: t.field({
    type: RunRef,
    nullable: true,
    description: 'the successor run that answered this waiting run (resumedById); null until it is resumed',
    resolve: (run, _args, ctx) => runById(ctx, run.resumedById),
  }),
}));

builder.objectFields(ThreadRef, (t) => ({
  session: t.field({
    type: SessionRef,
    description: 'the session the thread belongs to (sessionId)',
    resolve: (thread, _args, ctx) => present(sessionById(ctx, thread.sessionId), `thread ${thread.id} session`),
  }),
  currentRun: t.field({
    type: RunRef,
    nullable: true,
    description: 'the run working on the thread now (currentRunId); null when none is',
    resolve: (thread, _args, ctx) => runById(ctx, thread.currentRunId),
  }),
  originRun: t.field({
    type: RunRef,
    nullable: true,
    description: 'the run the thread was forked from, or whose subagent call opened it (originRunId); null for a new thread',
    resolve: (thread, _args, ctx) => runById(ctx, thread.originRunId),
  }),
}));

builder.objectFields(AgentRef, (t) => ({
  defaultRevision: t.field({
    type: AgentRevisionRef,
    nullable: true,
    description: 'the revision new runs use (defaultRevisionId)',
    resolve: (agent, _args, ctx) => agentRevisionById(ctx, agent.defaultRevisionId),
  }),
}));

builder.objectFields(AgentSubagentRef, (t) => ({
  agent: t.field({
    type: AgentRef,
    nullable: true,
    description: 'the agent the subagent runs (agentId)',
    resolve: (subagent, _args, ctx) => agentById(ctx, subagent.agent_id),
  }),
}));

builder.objectFields(SkillRef, (t) => ({
  defaultRevision: t.field({
    type: SkillRevisionRef,
    nullable: true,
    description: 'the revision agents use unless they pin one (defaultRevisionId)',
    resolve: (skill, _args, ctx) => skillRevisionById(ctx, skill.defaultRevisionId),
  }),
}));

builder.objectFields(ModelRef, (t) => ({
  provider: t.field({
    type: ProviderRef,
    description: 'the provider that serves the model (providerId)',
    resolve: (model, _args, ctx) => present(providerById(ctx, model.providerId), `model ${model.key} provider`),
  }),
}));

builder.objectFields(InboxEntryRef, (t) => ({
  assignedRun: t.field({
    type: RunRef,
    nullable: true,
    description: 'the run the entry was assigned to (assignedRunId); null while it waits in the queue',
    resolve: (entry, _args, ctx) => runById(ctx, entry.assignedRunId),
  }),
  childRun: t.field({
    type: RunRef,
    nullable: true,
    description: "the latest subagent run the entry's run started (childRunId); null when it delegated nothing",
    resolve: (entry, _args, ctx) => runById(ctx, entry.childRunId),
  }),
}));

// Principals: who acted. An interface (not a union) because every principal has an id, a kind and a
// name a client shows without knowing which kind it is; the kinds add what is theirs.
export const PrincipalRef = builder.interfaceRef<PrincipalView>('Principal').implement({
  description: 'Who acted: a user (a member of the workspace) or an API key of the workspace. Never carries a secret or its hash.',
  resolveType: (principal) => (principal.kind === 'user' ? 'User' : 'ApiKey'),
  fields: (t) => ({
    id: t.exposeID('id', { description: 'the principal id (`usr_…`, `key_…`), as principalId fields carry it' }),
    kind: t.field({ type: PrincipalKindEnum, resolve: (principal) => principal.kind }),
    name: t.string({
      description: "the display name: a user's name (their email when they gave none), an API key's name (may be empty)",
      resolve: (principal) => (principal.kind === 'user' ? principal.name || principal.email : principal.name),
    }),
  }),
});

type UserView = Extract<PrincipalView, { kind: 'user' }>;
type ApiKeyView = Extract<PrincipalView, { kind: 'api_key' }>;

builder.objectRef<UserView>('User').implement({
  description: 'A user who is a member of the workspace.',
  interfaces: [PrincipalRef],
  isTypeOf: (value) => (value as PrincipalView).kind === 'user',
  fields: (t) => ({ email: t.exposeString('email') }),
});

builder.objectRef<ApiKeyView>('ApiKey').implement({
  description: 'An API key of the workspace: its name and last four characters, never the key or its hash.',
  interfaces: [PrincipalRef],
  isTypeOf: (value) => (value as PrincipalView).kind === 'api_key',
  fields: (t) => ({
    hint: t.exposeString('hint', { description: "the key's last four characters, to tell keys apart" }),
    permissions: t.field({
      type: [PermissionEnum],
      resolve: (key) => key.permissions.map((permission) => storedValue(PermissionEnum, permission)),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.objectFields(AuditEventRef, (t) => ({
  principal: t.field({
    type: PrincipalRef,
    nullable: true,
    description:
      'who made the change (principalId); null for the service itself (`system`), a user who is no longer a member, or an id the workspace does not know',
    resolve: (event, _args, ctx) => principalById(ctx, event.principalId),
  }),
}));

builder.objectFields(EnvironmentTemplateRef, (t) => ({
  provider: t.field({
    type: ProviderRef,
    description: 'the environment provider that makes its environments (providerId)',
    resolve: (template, _args, ctx) => present(providerById(ctx, template.providerId), `environment template ${template.id} provider`),
  }),
}));

builder.objectFields(EnvironmentRef, (t) => ({
  template: t.field({
    type: EnvironmentTemplateRef,
    nullable: true,
    description: 'the template it was made from (templateId)',
    resolve: (environment, _args, ctx) => environmentTemplateById(ctx, environment.templateId),
  }),
  provider: t.field({
    type: ProviderRef,
    description: 'the environment provider that keeps its instance (providerId)',
    resolve: (environment, _args, ctx) => present(providerById(ctx, environment.providerId), `environment ${environment.id} provider`),
  }),
  runs: t.field({
    type: [RunRef],
    description: 'the runs that mount it (runIds), newest first, at most 50',
    resolve: async (environment, _args, ctx) => {
      const ids = await environmentRunIds(ctx).load(environment.id);
      return (await Promise.all(ids.map((id) => runById(ctx, id)))).filter((run) => run !== null);
    },
  }),
}));
