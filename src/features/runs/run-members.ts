// The structured members of a run and of an inbox entry as the engine and the services store them
// (JSON columns): their shapes, and readers that turn a stored column into that shape. The writers
// are the run lifecycle (pending, failure, usage at seal, memory mounts), the run plan (resume,
// environment mounts) and the inbox (an entry's failure); each writes only these shapes, so each
// reader checks the stored value against the same TypeBox schema its type is derived from.
// Absent members read as their empty value (a run that has not been sealed stores `{}` as its
// pending document).
import Type, { type Static, type TSchema } from 'typebox';
import type { Prisma } from '../../generated/prisma/client.js';
import { readDocument } from '../../lib/json-documents.js';
import { storedPending, type PendingEntry, type RunPending } from './run-lifecycle.js';

export type { PendingEntry, RunPending };

/** A member or column that may hold null. */
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** How a run or an inbox entry failed: `failure` (code: an error code or an engine code such as `tool_error`). */
export const Failure = Type.Object({ code: Type.String(), message: Type.String() });
export type Failure = Static<typeof Failure>;
const StoredFailure = Nullable(Failure);

/** The token counters of some model requests: of a run's attempt, of one model's, of its subagents'. */
export interface UsageCounters {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Of the input tokens, those read from the provider's prompt cache (0 when it reports none). */
  cached_input_tokens: number;
  /** Of the output tokens, those the model spent reasoning (0 when the provider reports none). */
  reasoning_tokens: number;
}

/** The counters a run's attempt records, summed over its model requests: `usage_at_seal`. */
export interface RunUsage extends UsageCounters {
  /** What the requests cost; null for runs sealed before costs were recorded. */
  cost: RunCost | null;
  /** The same per model that answered, in model key order; empty for runs sealed before it was recorded. */
  by_model: RunModelUsage[];
  /** What the subagent runs it delegated to used, theirs included; null when it delegated to none. */
  subagents: RunSubagentUsage | null;
}

/** The usage of the subagent runs an attempt delegated to, summed with their own subagents'. */
export interface RunSubagentUsage extends UsageCounters {
  runs: number;
  cost: RunCost;
}

/** What one model's requests of the attempt consumed: the attempt's usage ledger row for that model. */
export interface RunModelUsage extends UsageCounters {
  model: string;
  provider_type: string;
  cost: RunCost;
}

/** A cost: an exact amount rounded for showing (src/lib/cost.ts), its currency, and whether every request was priced. */
export interface RunCost {
  amount: string;
  currency: string | null;
  complete: boolean;
}

// The amount as shown (6 decimals); the usage ledger keeps the exact amounts.
const StoredCost = Type.Object({
  amount: Type.String({ pattern: '^-?[0-9]+\\.[0-9]{6}$' }),
  currency: Nullable(Type.String()),
  complete: Type.Boolean(),
});

/** The members of `UsageCounters` with their cost, as stored (one schema for the three places). */
const storedCounters = {
  requests: Type.Number(),
  input_tokens: Type.Number(),
  output_tokens: Type.Number(),
  cached_input_tokens: Type.Number(),
  reasoning_tokens: Type.Number(),
  cost: StoredCost,
};

/** The stored counters: rows sealed before a counter existed lack it (it reads 0). */
const StoredUsage = Nullable(
  Type.Partial(
    Type.Object({
      ...storedCounters,
      by_model: Type.Array(Type.Object({ model: Type.String(), provider_type: Type.String(), ...storedCounters })),
      subagents: Nullable(Type.Object({ runs: Type.Number(), ...storedCounters })),
    }),
  ),
);

/** A memory the run sees, as resolved for its first attempt: one element of `memory_mounts`. */
export const MemoryMount = Type.Object({
  memory_id: Type.String(),
  name: Type.String(),
  access: Type.Union([Type.Literal('read'), Type.Literal('write')]),
  recall: Type.Boolean(),
});
export type MemoryMount = Static<typeof MemoryMount>;
const StoredMemoryMounts = Nullable(Type.Array(MemoryMount));

/** An environment the run works in: one element of `environment_mounts` (the spec's shape). */
export const EnvironmentMount = Type.Object({
  environment_id: Type.String(),
  name: Type.String(),
  working_directory: Nullable(Type.String()),
});
export type EnvironmentMount = Static<typeof EnvironmentMount>;
const StoredEnvironmentMounts = Nullable(Type.Array(EnvironmentMount));

/** The answer to a pending approval, as the resume batch gave it. */
export const ApprovalAnswer = Type.Object({ action: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) });
export type ApprovalAnswer = Static<typeof ApprovalAnswer>;

/** The answer to a pending call, as the resume batch gave it: the client's result or error. */
export const CallAnswer = Type.Object({ status: Type.Union([Type.Literal('returned'), Type.Literal('error')]), value: Type.Unknown() });
export type CallAnswer = Static<typeof CallAnswer>;

/** What a resume recorded on its successor: the complete answer batch, keyed by tool call id, and the optional input. */
export interface RunResume {
  approvals: Record<string, ApprovalAnswer>;
  calls: Record<string, CallAnswer>;
  input: unknown;
}
const StoredResume = Nullable(
  Type.Object({
    approvals: Type.Optional(Type.Record(Type.String(), ApprovalAnswer)),
    calls: Type.Optional(Type.Record(Type.String(), CallAnswer)),
    input: Type.Optional(Type.Unknown()),
  }),
);

/** A run's pending document; `{}` (an unsealed run) reads as nothing pending. */
export function readPending(value: Prisma.JsonValue | undefined): RunPending {
  const pending = storedPending(value);
  return { approvals: pending?.approvals ?? [], calls: pending?.calls ?? [] };
}

/** A run's or an inbox entry's `failure` column (null while nothing failed); `column` names it in a corruption error. */
export function readFailure(value: Prisma.JsonValue | undefined, column = 'runs.failure'): Failure | null {
  return readDocument(StoredFailure, value ?? null, column);
}

/** A run's `usage_at_seal` (null until a worker sealed it); a counter the row lacks reads 0. */
export function readUsage(value: Prisma.JsonValue | undefined): RunUsage | null {
  const usage = readDocument(StoredUsage, value ?? null, 'runs.usage_at_seal');
  if (!usage) return null;
  return {
    requests: usage.requests ?? 0,
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cached_input_tokens: usage.cached_input_tokens ?? 0,
    reasoning_tokens: usage.reasoning_tokens ?? 0,
    cost: usage.cost ?? null,
    by_model: usage.by_model ?? [],
    subagents: usage.subagents ?? null,
  };
}

/** A run's `memory_mounts` ([] until its first attempt resolved them). */
export function readMemoryMounts(value: Prisma.JsonValue | undefined): MemoryMount[] {
  return readDocument(StoredMemoryMounts, value ?? null, 'runs.memory_mounts') ?? [];
}

/** A run's `environment_mounts`. */
export function readEnvironmentMounts(value: Prisma.JsonValue | undefined): EnvironmentMount[] {
  return readDocument(StoredEnvironmentMounts, value ?? null, 'runs.environment_mounts') ?? [];
}

/** A run's `resume` (null unless a resume created it). */
export function readResume(value: Prisma.JsonValue | undefined): RunResume | null {
  const resume = readDocument(StoredResume, value ?? null, 'runs.resume');
  if (!resume) return null;
  return { approvals: resume.approvals ?? {}, calls: resume.calls ?? {}, input: resume.input ?? null };
}

/** A content ref of a run item: where the whole of a member too large to show inline is kept. */
export interface ContentRef {
  id: string;
  media_type: string;
  preview: string;
  size_bytes: number;
  truncated: boolean;
  /** The asset whose content is the whole member (large tool results), when it is one. */
  asset_id?: string;
}

/** A run item's public `content_refs` (the stored full text already hidden), as name and ref pairs. */
export function contentRefList(refs: unknown): (ContentRef & { name: string })[] {
  return Object.entries((refs as Record<string, ContentRef> | null) ?? {}).map(([name, ref]) => ({ name, ...ref }));
}
