// The structured members of a run and of an inbox entry as the engine and the services store them
// (JSON columns): their shapes, and readers that turn a stored column into that shape. The writers
// are the run lifecycle (pending, failure, usage at seal, memory mounts), the run plan (resume,
// environment mounts) and the inbox (an entry's failure); each writes only these shapes, so each
// reader's cast is that boundary. Absent members read as their empty value (a run that has not
// been sealed stores `{}` as its pending document).
import type { Prisma } from '../generated/prisma/client.js';
import { storedPending, type PendingEntry, type RunPending } from './run-lifecycle.js';

export type { PendingEntry, RunPending };

/** How a run or an inbox entry failed: `failure` (code: an error code or an engine code such as `tool_error`). */
export interface Failure {
  code: string;
  message: string;
}

/** The counters a run's attempt records, summed over its model requests: `usage_at_seal`. */
export interface RunUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  /** Of the input tokens, those read from the provider's prompt cache (0 when it reports none). */
  cached_input_tokens: number;
}

/** A memory the run sees, as resolved for its first attempt: one element of `memory_mounts`. */
export interface MemoryMount {
  memory_id: string;
  name: string;
  access: 'read' | 'write';
  recall: boolean;
}

/** An environment the run works in: one element of `environment_mounts` (the spec's shape). */
export interface EnvironmentMount {
  environment_id: string;
  name: string;
  working_directory: string | null;
}

/** The answer to a pending approval, as the resume batch gave it. */
export interface ApprovalAnswer {
  action: 'approve' | 'deny';
}

/** The answer to a pending call, as the resume batch gave it: the client's result or error. */
export interface CallAnswer {
  status: 'returned' | 'error';
  value: unknown;
}

/** What a resume recorded on its successor: the complete answer batch, keyed by tool call id, and the optional input. */
export interface RunResume {
  approvals: Record<string, ApprovalAnswer>;
  calls: Record<string, CallAnswer>;
  input: unknown;
}

/** A run's pending document; `{}` (an unsealed run) reads as nothing pending. */
export function readPending(value: Prisma.JsonValue | undefined): RunPending {
  const pending = storedPending(value);
  return { approvals: pending?.approvals ?? [], calls: pending?.calls ?? [] };
}

/** A run's or an inbox entry's `failure` column (null while nothing failed). */
export function readFailure(value: Prisma.JsonValue | undefined): Failure | null {
  return (value as Failure | null | undefined) ?? null;
}

/** A run's `usage_at_seal` (null until a worker sealed it); a counter the row lacks reads 0. */
export function readUsage(value: Prisma.JsonValue | undefined): RunUsage | null {
  const usage = value as Partial<RunUsage> | null | undefined;
  if (!usage) return null;
  return {
    requests: usage.requests ?? 0,
    input_tokens: usage.input_tokens ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cached_input_tokens: usage.cached_input_tokens ?? 0,
  };
}

/** A run's `memory_mounts` ([] until its first attempt resolved them). */
export function readMemoryMounts(value: Prisma.JsonValue | undefined): MemoryMount[] {
  return (value as MemoryMount[] | null | undefined) ?? [];
}

/** A run's `environment_mounts`. */
export function readEnvironmentMounts(value: Prisma.JsonValue | undefined): EnvironmentMount[] {
  return (value as EnvironmentMount[] | null | undefined) ?? [];
}

/** A run's `resume` (null unless a resume created it). */
export function readResume(value: Prisma.JsonValue | undefined): RunResume | null {
  const resume = value as Partial<RunResume> | null | undefined;
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
