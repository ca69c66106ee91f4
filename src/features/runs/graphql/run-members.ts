// Typed objects for the structured members of a run and of an inbox entry: what a waiting run
// waits for, how a run failed, what it used, what it mounts, and what a resume answered. The
// stored shapes and their readers are in src/features/runs/run-members.ts; these types only name
// their members in camelCase. JSON stays only where the value is free-form (tool arguments, the
// value a client's tool returned, a message document).
import type { ObjectFieldBuilder } from '@pothos/core';
import { builder } from '../../../graphql/builder.js';
import type { Types } from '../../../graphql/modules/common.js';
import type {
  ApprovalAnswer,
  CallAnswer,
  EnvironmentMount,
  Failure,
  MemoryMount,
  PendingEntry,
  RunPending,
  RunResume,
  RunUsage,
  RunModelUsage,
  RunSubagentUsage,
  RunCost,
  UsageCounters,
} from '../run-members.js';
import {
  MemoryMountAccessEnum,
  PendingPresentationKindEnum,
  ResumeApprovalActionEnum,
  ResumeCallStatusEnum,
  storedValue,
} from '../../../graphql/modules/enums.js';

/** What the engine records for a client to show a pending call (dispatch writes one of three shapes). */
interface Presentation {
  kind: string;
  title?: string;
  question?: string;
  choices?: string[];
}

const PendingPresentationRef = builder.objectRef<Presentation>('PendingPresentation').implement({
  description:
    'How a client shows a pending tool call. An approval or a client call has a title; a question has the question and its choices.',
  fields: (t) => ({
    kind: t.field({ type: PendingPresentationKindEnum, resolve: (p) => storedValue(PendingPresentationKindEnum, p.kind) }),
    title: t.string({
      nullable: true,
      description: "approval and client_call: the client tool's description, or the tool's name when it has none",
      resolve: (p) => p.title ?? null,
    }),
    question: t.string({ nullable: true, description: 'question: what the model asks the user', resolve: (p) => p.question ?? null }),
    choices: t.stringList({
      nullable: true,
      description: 'question: the answers the model offers ([] when it offers none); null for other kinds',
      resolve: (p) => (p.kind === 'question' ? (p.choices ?? []) : null),
    }),
  }),
});

const PendingToolCallRef = builder.objectRef<PendingEntry>('PendingToolCall').implement({
  description: 'A tool call a waiting run waits for: an approval, a call for the client to carry out, or a question.',
  fields: (t) => ({
    toolCallId: t.string({ resolve: (e) => e.tool_call_id }),
    toolName: t.string({ resolve: (e) => e.tool_name }),
    arguments: t.field({
      type: 'JSON',
      description: "the call's arguments as the model gave them: free-form, shaped by the tool's own JSON Schema",
      resolve: (e) => e.arguments,
    }),
    presentation: t.field({ type: PendingPresentationRef, resolve: (e) => e.presentation as unknown as Presentation }),
  }),
});

export const RunPendingRef = builder.objectRef<RunPending>('RunPending').implement({
  description:
    'What a waiting run waits for; a resume answers every element exactly once. Both lists are empty for a run that is not waiting.',
  fields: (t) => ({
    approvals: t.field({ type: [PendingToolCallRef], resolve: (p) => p.approvals }),
    calls: t.field({ type: [PendingToolCallRef], description: 'client tool calls and user questions', resolve: (p) => p.calls }),
  }),
});

export const FailureRef = builder.objectRef<Failure>('Failure').implement({
  description: 'How a run or an inbox entry failed.',
  fields: (t) => ({
    code: t.string({
      description:
        'an error code of the API (e.g. `disabled`) or of the engine (`tool_error`, `output_invalid`, `usage_limit_exceeded`, `budget_exceeded`, `model_error`, `worker_lost`, `cancelled`)',
      resolve: (f) => f.code,
    }),
    message: t.string({ resolve: (f) => f.message }),
  }),
});

export const CostRef = builder.objectRef<RunCost>('Cost').implement({
  description: 'An amount of money: exact sums, rounded half up to 6 decimals when shown.',
  fields: (t) => ({
    amount: t.exposeString('amount', { description: 'a decimal string with 6 decimals, such as "0.004215"' }),
    currency: t.string({ nullable: true, description: 'ISO 4217 code; null when no request was priced', resolve: (c) => c.currency }),
    complete: t.exposeBoolean('complete', {
      description: 'false when some tokens could not be priced (a model without a price, or one priced in another currency)',
    }),
  }),
});

/** The token counters every usage type shows (the attempt's, one model's, the subagents'), alike. */
function tokenFields<T extends UsageCounters>(t: ObjectFieldBuilder<Types, T>) {
  return {
    inputTokens: t.int({ description: 'input tokens the provider reported', resolve: (u) => u.input_tokens }),
    outputTokens: t.int({ description: 'output tokens the provider reported', resolve: (u) => u.output_tokens }),
    cachedInputTokens: t.int({
      description: 'of the input tokens, those the provider read from its prompt cache (as it reported them; 0 when it reports none)',
      resolve: (u) => u.cached_input_tokens,
    }),
    reasoningTokens: t.int({
      description: 'of the output tokens, those the model spent reasoning (as the provider reported them; 0 when it reports none)',
      resolve: (u) => u.reasoning_tokens,
    }),
  };
}

const RunModelUsageRef = builder.objectRef<RunModelUsage>('RunModelUsage').implement({
  description: "What one model's requests of the run's last attempt used: the attempt's usage ledger row for that model.",
  fields: (t) => ({
    model: t.string({ description: 'the model key that answered (a fallback model when it answered instead)', resolve: (u) => u.model }),
    providerType: t.string({ description: "the type of the model's provider when it answered", resolve: (u) => u.provider_type }),
    requests: t.int({ description: 'its requests that reported usage (a refused request reports none)', resolve: (u) => u.requests }),
    ...tokenFields(t),
    cost: t.field({
      type: CostRef,
      description: 'at its own prices, rounded on its own (the per-model amounts may differ from the run amount by rounding)',
      resolve: (u) => u.cost,
    }),
  }),
});

const RunSubagentUsageRef = builder.objectRef<RunSubagentUsage>('RunSubagentUsage').implement({
  description:
    "What the subagent runs an attempt delegated to used, each with its own subagents': summed as each child settled (not in the run's own counters).",
  fields: (t) => ({
    runs: t.int({ description: 'subagent runs counted, at every depth', resolve: (u) => u.runs }),
    requests: t.int({ description: 'their model requests that reported usage', resolve: (u) => u.requests }),
    ...tokenFields(t),
    cost: t.field({ type: CostRef, resolve: (u) => u.cost }),
  }),
});

export const RunUsageRef = builder.objectRef<RunUsage>('RunUsage').implement({
  description: "What the run's last attempt used, summed over its model requests.",
  fields: (t) => ({
    requests: t.int({ description: 'model requests made', resolve: (u) => u.requests }),
    ...tokenFields(t),
    cost: t.field({
      type: CostRef,
      nullable: true,
      description: 'what the requests cost at the prices in effect when each was made; null for runs sealed before costs were recorded',
      resolve: (u) => u.cost,
    }),
    byModel: t.field({
      type: [RunModelUsageRef],
      description:
        "the same per model that answered, in model key order: the run's own model, a fallback, compaction, media description and reviewer models; not the subagents' (their runs have their own); empty for runs sealed before it was recorded",
      resolve: (u) => u.by_model,
    }),
    subagents: t.field({
      type: RunSubagentUsageRef,
      nullable: true,
      description:
        'what the subagent runs the attempt delegated to used, with their own subagents; null when it delegated to none (or was sealed before this was recorded)',
      resolve: (u) => u.subagents,
    }),
  }),
});

export const MemoryMountRef = builder.objectRef<MemoryMount>('RunMemoryMount').implement({
  description: "A memory the run sees, as resolved when its first attempt started (the agent configuration's memory mounts).",
  fields: (t) => ({
    memoryId: t.string({ resolve: (m) => m.memory_id }),
    name: t.string({ description: "the mount's name, or the memory's when the mount names none", resolve: (m) => m.name }),
    access: t.field({ type: MemoryMountAccessEnum, resolve: (m) => storedValue(MemoryMountAccessEnum, m.access) }),
    recall: t.boolean({
      description: "whether the memory's best records for the input go into the model's context",
      resolve: (m) => m.recall,
    }),
  }),
});

export const EnvironmentMountRef = builder.objectRef<EnvironmentMount>('RunEnvironmentMount').implement({
  description: 'An environment the run works in (no run mounts one yet: the list is empty).',
  fields: (t) => ({
    environmentId: t.string({ resolve: (m) => m.environment_id }),
    name: t.string({ resolve: (m) => m.name }),
    workingDirectory: t.string({ nullable: true, resolve: (m) => m.working_directory ?? null }),
  }),
});

const ResumeApprovalRef = builder.objectRef<ApprovalAnswer & { toolCallId: string }>('ResumeApprovalAnswer').implement({
  description: 'The answer a resume gave to one pending approval.',
  fields: (t) => ({
    toolCallId: t.exposeString('toolCallId'),
    action: t.field({ type: ResumeApprovalActionEnum, resolve: (a) => storedValue(ResumeApprovalActionEnum, a.action) }),
  }),
});

const ResumeCallRef = builder.objectRef<CallAnswer & { toolCallId: string }>('ResumeCallAnswer').implement({
  description: 'The answer a resume gave to one pending call.',
  fields: (t) => ({
    toolCallId: t.exposeString('toolCallId'),
    status: t.field({ type: ResumeCallStatusEnum, resolve: (c) => storedValue(ResumeCallStatusEnum, c.status) }),
    value: t.field({
      type: 'JSON',
      nullable: true,
      description: "what the client's tool returned (or its error): free-form JSON",
      resolve: (c) => c.value ?? null,
    }),
  }),
});

const answers = <T>(map: Record<string, T>) => Object.entries(map).map(([toolCallId, answer]) => ({ ...answer, toolCallId }));

export const RunResumeRef = builder.objectRef<RunResume>('RunResume').implement({
  description: "What the resume that created this run recorded: the complete answer batch to its parent's pending calls.",
  fields: (t) => ({
    approvals: t.field({ type: [ResumeApprovalRef], resolve: (r) => answers(r.approvals) }),
    calls: t.field({ type: [ResumeCallRef], resolve: (r) => answers(r.calls) }),
    input: t.field({
      type: 'JSON',
      nullable: true,
      description: 'the message the resume added, {"content": [{"type": "text", "text": "…"}]}, or null',
      resolve: (r) => r.input ?? null,
    }),
  }),
});
