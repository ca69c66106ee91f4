// What a run's attempt reads of its thread and its parent run while it prepares: the thread's
// committed history and the MCP headers set on the thread, the calls its parent waited for (what a
// resume answers) and the environments its parent worked in (a continuation keeps working there).
// The claim reads all four in its own statement; these reads serve the attempts that did not come
// from a claim (tests, tools that build a toolset outside a worker).
import type { ModelMessage } from 'ai';
import type { CallContext } from '../../services/call-context.js';
import { storedPending, type RunPending } from './run-lifecycle.js';
import { readEnvironmentMounts, type EnvironmentMount } from './run-members.js';
import { storedMcpHeaders, storedMessageHistory } from '../threads/thread-documents.js';

/** The thread's committed history: the model messages its sealed runs added. */
export async function threadHistory(call: CallContext, threadId: string): Promise<ModelMessage[]> {
  const thread = await call.db.thread.findUniqueOrThrow({ where: { id: threadId }, select: { messageHistory: true } });
  return storedMessageHistory(thread.messageHistory);
}

/** The MCP headers set on the thread: connection id → header map (empty when none). */
export async function threadMcpHeaders(call: CallContext, threadId: string): Promise<Record<string, Record<string, string>>> {
  const thread = await call.db.thread.findUnique({ where: { id: threadId }, select: { mcpHeaders: true } });
  return storedMcpHeaders(thread?.mcpHeaders);
}

/** What the parent run waited for when it sealed (null: it waited for nothing, or is gone). */
export async function parentPending(call: CallContext, parentRunId: string): Promise<RunPending | null> {
  const parent = await call.db.run.findUnique({ where: { id: parentRunId }, select: { pending: true } });
  // The pending column holds only what sealRun wrote for a waiting run: `{approvals, calls}`.
  return storedPending(parent?.pending);
}

/** The environments the parent run had mounted (none when it had none, or is gone). */
export async function parentEnvironmentMounts(call: CallContext, parentRunId: string): Promise<EnvironmentMount[]> {
  const parent = await call.db.run.findUnique({ where: { id: parentRunId }, select: { environmentMounts: true } });
  return readEnvironmentMounts(parent?.environmentMounts);
}
