// Convenience calls for the common workflows: each runs one generated operation and returns the object
// the caller wants (the agent, the run, a page of runs) instead of the whole `data` tree. Anything they
// do not cover is one `query`/`mutate`/`subscribe` with a generated (or your own) document away.
import type { GraphQLClient } from './client.js';
import * as ops from './generated.js';

export type Agent = ops.AgentFieldsFragment;
export type AgentRevision = ops.AgentRevisionFieldsFragment;
export type Run = ops.RunFieldsFragment;
export type RunItem = ops.RunItemFieldsFragment;
export type PendingToolCall = ops.PendingToolCallFieldsFragment;
export type Thread = ops.ThreadFieldsFragment;
export type InboxEntry = ops.InboxEntryFieldsFragment;
export type Provider = ops.ProviderFieldsFragment;
export type Model = ops.ModelFieldsFragment;
export type EnvironmentTemplate = ops.EnvironmentTemplateFieldsFragment;
export type Environment = ops.EnvironmentFieldsFragment;
export type Memory = ops.MemoryFieldsFragment;
export type MemoryRecord = ops.MemoryRecordFieldsFragment;
export type PageInfo = ops.PageInfoFieldsFragment;
export interface Page<T> {
  nodes: T[];
  pageInfo: PageInfo;
}
/** The result of a delivery that may start a run (fork, inbox). */
export type Delivery = ops.ForkRunMutation['forkRun'];

/** A run that no longer moves on its own: sealed, or waiting for an answer. */
export const SETTLED_STATUSES: readonly ops.RunStatus[] = ['completed', 'failed', 'cancelled', 'waiting'];

interface WaitOption {
  /** Seconds (at most 60) the service may hold the answer until the run is sealed or waiting. */
  wait?: number;
}
interface IdempotentOption extends WaitOption {
  /** Sent as the operation's idempotencyKey; a fresh random one when left out. */
  idempotencyKey?: string;
}

const newKey = () => globalThis.crypto.randomUUID();

export function workflows(client: GraphQLClient) {
  return {
    // ── agents ──
    createAgent: async (input: ops.CreateAgentInput): Promise<Agent> =>
      (await client.mutate(ops.CreateAgentDocument, { input })).createAgent.agent,
    getAgent: async (id: string): Promise<Agent> => (await client.query(ops.AgentDocument, { id })).agent,
    listAgents: async (variables: ops.AgentsQueryVariables = {}): Promise<Page<Agent>> =>
      (await client.query(ops.AgentsDocument, variables)).agents,
    updateAgent: async (id: string, input: ops.UpdateAgentInput, ifMatch?: string): Promise<Agent> =>
      (await client.mutate(ops.UpdateAgentDocument, { id, input, ifMatch })).updateAgent.agent,
    publishAgentRevision: async (agentId: string, input: ops.PublishAgentRevisionInput, ifMatch?: string): Promise<AgentRevision> =>
      (await client.mutate(ops.PublishAgentRevisionDocument, { agentId, input, ifMatch })).publishAgentRevision.revision,
    archiveAgent: async (id: string, ifMatch?: string): Promise<Agent> =>
      (await client.mutate(ops.ArchiveAgentDocument, { id, ifMatch })).archiveAgent.agent,
    unarchiveAgent: async (id: string, ifMatch?: string): Promise<Agent> =>
      (await client.mutate(ops.UnarchiveAgentDocument, { id, ifMatch })).unarchiveAgent.agent,

    // ── runs ──
    startRun: async (input: ops.StartRunInput, options: WaitOption = {}): Promise<Run> =>
      (await client.mutate(ops.StartRunDocument, { input, wait: options.wait })).startRun.run,
    getRun: async (id: string, options: WaitOption = {}): Promise<Run> =>
      (await client.query(ops.RunDocument, { id, wait: options.wait })).run,
    listRuns: async (variables: ops.RunsQueryVariables = {}): Promise<Page<Run>> => (await client.query(ops.RunsDocument, variables)).runs,
    /**
     * Answers a waiting run: `approvals` maps each pending approval's tool call id to
     * `{action: 'approve' | 'deny'}`, `calls` each pending call's to `{status: 'returned' | 'error', value}`.
     * Returns the successor run.
     */
    resumeRun: async (runId: string, input: ops.ResumeRunInput, options: IdempotentOption = {}): Promise<Run> =>
      (await client.mutate(ops.ResumeRunDocument, { runId, input, idempotencyKey: options.idempotencyKey ?? newKey(), wait: options.wait }))
        .resumeRun.run,
    /** Approves (or denies) every pending approval of a waiting run in one resume; the successor run. */
    decideApprovals: async (run: Pick<Run, 'id' | 'pending'>, action: 'approve' | 'deny', options: IdempotentOption = {}): Promise<Run> => {
      const approvals = Object.fromEntries(run.pending.approvals.map((approval) => [approval.toolCallId, { action }]));
      return (
        await client.mutate(ops.ResumeRunDocument, {
          runId: run.id,
          input: { approvals },
          idempotencyKey: options.idempotencyKey ?? newKey(),
          wait: options.wait,
        })
      ).resumeRun.run;
    },
    cancelRun: async (id: string): Promise<Run> => (await client.mutate(ops.CancelRunDocument, { id })).cancelRun.run,
    /** Continues a run's history in a new thread; the delivery (its run is null when it only queued). */
    forkRun: async (runId: string, input: ops.ForkRunInput, options: IdempotentOption = {}): Promise<Delivery> =>
      (await client.mutate(ops.ForkRunDocument, { runId, input, idempotencyKey: options.idempotencyKey ?? newKey(), wait: options.wait }))
        .forkRun,
    /** Every change of a run's items, live, from after `after` (an ordinal); ends when the run is sealed or waiting. */
    runItems: async function* (runId: string, options: { after?: number; position?: string } = {}): AsyncGenerator<RunItem> {
      for await (const event of client.subscribe(ops.RunItemsLiveDocument, { runId, after: options.after, position: options.position }))
        yield event.runItems;
    },
    /** The run once it is sealed or waiting, asking the service to hold each answer up to `wait` seconds (default 30). */
    waitForRun: async (id: string, options: WaitOption & { signal?: AbortSignal } = {}): Promise<Run> => {
      for (;;) {
        options.signal?.throwIfAborted();
        const run = (await client.query(ops.RunDocument, { id, wait: options.wait ?? 30 })).run;
        if (SETTLED_STATUSES.includes(run.status)) return run;
      }
    },

    // ── threads and inboxes ──
    createThread: async (input: ops.CreateThreadInput = {}): Promise<Thread> =>
      (await client.mutate(ops.CreateThreadDocument, { input })).createThread.thread,
    getThread: async (id: string): Promise<Thread> => (await client.query(ops.ThreadDocument, { id })).thread,
    listThreads: async (variables: ops.ThreadsQueryVariables = {}): Promise<Page<Thread>> =>
      (await client.query(ops.ThreadsDocument, variables)).threads,
    archiveThread: async (id: string, ifMatch?: string): Promise<Thread> =>
      (await client.mutate(ops.ArchiveThreadDocument, { id, ifMatch })).archiveThread.thread,
    deliverToInbox: async (threadId: string, input: ops.DeliverInput, options: IdempotentOption = {}): Promise<Delivery> =>
      (
        await client.mutate(ops.DeliverToInboxDocument, {
          threadId,
          input,
          idempotencyKey: options.idempotencyKey ?? newKey(),
          wait: options.wait,
        })
      ).deliverToInbox,

    // ── providers and models ──
    /** The registered provider types of a kind, each as its description document (schemas, endpoints, model APIs). */
    providerTypes: async (kind: ops.ProviderKind): Promise<unknown[]> =>
      (await client.query(ops.ProviderTypesDocument, { kind })).providerTypes.map((type) => type.document),
    createProvider: async (kind: ops.ProviderKind, input: ops.CreateProviderInput): Promise<Provider> =>
      (await client.mutate(ops.CreateProviderDocument, { kind, input })).createProvider.provider,
    listProviders: async (kind: ops.ProviderKind, variables: Omit<ops.ProvidersQueryVariables, 'kind'> = {}): Promise<Page<Provider>> =>
      (await client.query(ops.ProvidersDocument, { ...variables, kind })).providers,
    testProvider: async (kind: ops.ProviderKind, id: string): Promise<ops.TestProviderMutation['testProvider']> =>
      (await client.mutate(ops.TestProviderDocument, { kind, id })).testProvider,
    createModel: async (input: ops.ModelInput): Promise<Model> =>
      (await client.mutate(ops.CreateModelDocument, { input })).createModel.model,
    getModel: async (key: string): Promise<Model> => (await client.query(ops.ModelDocument, { key })).model,
    listModels: async (variables: ops.ModelsQueryVariables = {}): Promise<Page<Model>> =>
      (await client.query(ops.ModelsDocument, variables)).models,

    // ── environments ──
    createEnvironmentTemplate: async (input: ops.EnvironmentTemplateInput): Promise<EnvironmentTemplate> =>
      (await client.mutate(ops.CreateEnvironmentTemplateDocument, { input })).createEnvironmentTemplate.environmentTemplate,
    createEnvironment: async (input: ops.CreateEnvironmentInput): Promise<Environment> =>
      (await client.mutate(ops.CreateEnvironmentDocument, { input })).createEnvironment.environment,
    getEnvironment: async (id: string): Promise<Environment> => (await client.query(ops.EnvironmentDocument, { id })).environment,
    listEnvironments: async (variables: ops.EnvironmentsQueryVariables = {}): Promise<Page<Environment>> =>
      (await client.query(ops.EnvironmentsDocument, variables)).environments,
    startEnvironment: async (id: string): Promise<Environment> =>
      (await client.mutate(ops.StartEnvironmentDocument, { id })).startEnvironment.environment,
    stopEnvironment: async (id: string): Promise<Environment> =>
      (await client.mutate(ops.StopEnvironmentDocument, { id })).stopEnvironment.environment,
    destroyEnvironment: async (id: string): Promise<Environment> =>
      (await client.mutate(ops.DestroyEnvironmentDocument, { id })).destroyEnvironment.environment,

    // ── memories ──
    createMemory: async (input: ops.MemoryInput): Promise<Memory> =>
      (await client.mutate(ops.CreateMemoryDocument, { input })).createMemory.memory,
    getMemory: async (id: string): Promise<Memory> => (await client.query(ops.MemoryDocument, { id })).memory,
    listMemories: async (variables: ops.MemoriesQueryVariables = {}): Promise<Page<Memory>> =>
      (await client.query(ops.MemoriesDocument, variables)).memories,
    addMemoryRecord: async (memoryId: string, text: string): Promise<MemoryRecord> =>
      (await client.mutate(ops.AddMemoryRecordDocument, { memoryId, text })).addMemoryRecord.record,
    searchMemoryRecords: async (
      memoryId: string,
      query: string,
      options: { limit?: number; minScore?: number } = {},
    ): Promise<MemoryRecord[]> =>
      (await client.mutate(ops.SearchMemoryRecordsDocument, { memoryId, query, ...options })).searchMemoryRecords.records,
  };
}

export type Workflows = ReturnType<typeof workflows>;
