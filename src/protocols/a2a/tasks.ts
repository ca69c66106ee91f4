// Runs as A2A tasks: a task is a run (followed through the runs that resume it), its context the run's
// thread, "input-required" a waiting run. Pure mappings, no I/O: the server reads the runs and writes
// what these functions make of them.
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { OperationProblem } from '../operation-runner.js';
import type { ProtocolPendingCallFragment, ProtocolRunViewFragment } from '../../generated/protocol-documents.js';

/** The run as the A2A adapter reads it (the shared run view: whose it is, how it stands, when it last changed). */
export type RunView = ProtocolRunViewFragment;
export type PendingCall = ProtocolPendingCallFragment;

export interface ItemView {
  id: string;
  kind: string;
  state: string;
  content: Record<string, unknown>;
}

/** A run item event of the `runItemEvents` subscription: a whole item, or text appended to one. */
export type ItemEvent =
  | ({ __typename: 'RunItem'; ordinal: number } & ItemView)
  | { __typename: 'RunItemTextDelta'; itemId: string; ordinal: number; member: string; offset: number; text: string };

const STATES: Record<string, TaskState> = {
  accepted: TaskState.TASK_STATE_SUBMITTED,
  running: TaskState.TASK_STATE_WORKING,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  waiting: TaskState.TASK_STATE_INPUT_REQUIRED,
};

/** Where a run's task stands; a waiting run (approval, question, client tool) is input-required. */
export const taskStateOf = (run: RunView) => STATES[run.status] ?? TaskState.TASK_STATE_UNSPECIFIED;

/** The run statuses after which nothing happens without the caller: a stream of the run ends there. */
export const SETTLED = new Set(['completed', 'failed', 'cancelled', 'waiting']);
export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const data = (value: unknown): Part => ({
  content: { $case: 'data', value },
  metadata: undefined,
  filename: '',
  mediaType: 'application/json',
});

function agentMessage(taskId: string, run: RunView, parts: Part[]): Message {
  return {
    // Stable per run state, so a task read twice shows the same message.
    messageId: `${run.id}:${run.status}`,
    contextId: run.threadId,
    taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/**
 * What the task's status says besides its state: for an input-required task, what it waits for (a
 * text to read and the pending calls as data, answered by the next message); for a failed one, the failure.
 */
export function statusMessageOf(taskId: string, run: RunView): Message | undefined {
  if (run.status === 'failed') {
    const failure = run.failure ?? { code: 'internal', message: 'the run failed' };
    return agentMessage(taskId, run, [text(`${failure.code}: ${failure.message}`), data({ failure })]);
  }
  if (run.status !== 'waiting') return undefined;
  const lines = [
    ...run.pending.approvals.map((call) => call.presentation.title ?? `Approve the call of ${call.toolName}? (approve or deny)`),
    ...run.pending.calls.map((call) =>
      call.presentation.kind === 'question'
        ? `${call.presentation.question ?? ''}${call.presentation.choices?.length ? ` (${call.presentation.choices.join(', ')})` : ''}`
        : `Run the client tool ${call.toolName} and send its result.`,
    ),
  ];
  const pending = {
    wait_reason: run.waitReason,
    approvals: run.pending.approvals.map((call) => ({
      tool_call_id: call.toolCallId,
      tool_name: call.toolName,
      arguments: call.arguments,
    })),
    calls: run.pending.calls.map((call) => ({
      tool_call_id: call.toolCallId,
      tool_name: call.toolName,
      arguments: call.arguments,
      kind: call.presentation.kind,
      ...(call.presentation.question != null ? { question: call.presentation.question } : {}),
      ...(call.presentation.choices?.length ? { choices: call.presentation.choices } : {}),
    })),
  };
  return agentMessage(taskId, run, [text(lines.join('\n')), data({ pending })]);
}

/** The text a message carries: its text parts joined (the run's input is text). */
export function textOf(message: Message): string {
  return message.parts
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('')
    .trim();
}

const APPROVE = /^(approve|approved|yes|y|ok|allow)$/i;
const DENY = /^(deny|denied|no|n|reject)$/i;

/**
 * The resume input a message answering an input-required task stands for. A data part with `calls`
 * and/or `approvals` is the answer as the REST resume takes it (keyed by tool call id); otherwise the
 * message's text answers the one thing the run waits for: a question's answer, a client tool's result,
 * or "approve" / "deny".
 */
export function answersFor(run: RunView, message: Message): { calls?: unknown; approvals?: unknown } {
  for (const part of message.parts) {
    if (part.content?.$case !== 'data') continue;
    const value = part.content.value as { calls?: unknown; approvals?: unknown } | null;
    if (value && typeof value === 'object' && (value.calls !== undefined || value.approvals !== undefined))
      return {
        ...(value.calls !== undefined ? { calls: value.calls } : {}),
        ...(value.approvals !== undefined ? { approvals: value.approvals } : {}),
      };
  }
  const answer = textOf(message);
  const waiting = [
    ...run.pending.approvals.map((call) => ({ call, approval: true })),
    ...run.pending.calls.map((call) => ({ call, approval: false })),
  ];
  if (waiting.length !== 1)
    throw new OperationProblem(
      'invalid_argument',
      'the task waits for several answers: send a data part {calls, approvals} keyed by tool call id',
      { field: 'message.parts', pending: waiting.map(({ call }) => call.toolCallId) },
    );
  if (answer === '') throw new OperationProblem('invalid_argument', 'the answer has no text', { field: 'message.parts' });
  const { call, approval } = waiting[0]!;
  if (!approval) return { calls: { [call.toolCallId]: { status: 'returned', value: answer } } };
  const action = APPROVE.test(answer) ? 'approve' : DENY.test(answer) ? 'deny' : null;
  if (!action) throw new OperationProblem('invalid_argument', 'answer an approval with "approve" or "deny"', { field: 'message.parts' });
  return { approvals: { [call.toolCallId]: { action } } };
}

function userText(item: ItemView): string {
  const content = item.content.content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: string; text?: string }) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

/** The agent's answers: one text artifact per assistant message (the artifact's id is the run item's). */
export function answerArtifact(itemId: string, value: string): Artifact {
  return { artifactId: itemId, name: 'answer', description: '', parts: [text(value)], metadata: undefined, extensions: [] };
}

/**
 * The task `taskId` as its runs show it: `runs` are the task's runs, the first one and each that resumed
 * the one before (with their items), the last of them the task's state. History holds the user's
 * messages, artifacts the agent's answers.
 */
export function taskOf(taskId: string, runs: { run: RunView; items: ItemView[] }[], historyLength?: number): Task {
  const last = runs.at(-1)!.run;
  const history: Message[] = [];
  const artifacts: Artifact[] = [];
  for (const { run, items } of runs)
    for (const item of items) {
      if (item.kind === 'user_message' && userText(item))
        history.push({
          messageId: item.id,
          contextId: run.threadId,
          taskId,
          role: Role.ROLE_USER,
          parts: [text(userText(item))],
          metadata: undefined,
          extensions: [],
          referenceTaskIds: [],
        });
      if (item.kind === 'text_message' && typeof item.content.text === 'string') artifacts.push(answerArtifact(item.id, item.content.text));
    }
  if (last.status === 'completed' && last.output != null && typeof last.output !== 'string')
    artifacts.push({
      artifactId: `${last.id}:output`,
      name: 'output',
      description: '',
      parts: [data(last.output)],
      metadata: undefined,
      extensions: [],
    });
  return {
    id: taskId,
    contextId: last.threadId,
    status: { state: taskStateOf(last), message: statusMessageOf(taskId, last), timestamp: last.updatedAt },
    artifacts,
    history: historyLength === undefined ? history : historyLength <= 0 ? [] : history.slice(-historyLength),
    metadata: metadataOf(last),
  };
}

/** The service's ids beside the task's: the run the task is at now (a resumed task's id stays the first run's). */
export function metadataOf(run: RunView): Record<string, unknown> {
  return { run_id: run.id, thread_id: run.threadId, status: run.status, ...(run.waitReason ? { wait_reason: run.waitReason } : {}) };
}

/**
 * Run item events as artifact updates: each assistant message is an artifact whose text arrives in
 * chunks (`append` after the first, `lastChunk` when the message is complete). It holds how much of
 * each message it has sent, so a snapshot after deltas (or a replayed item) sends only what is new.
 */
export class ArtifactStream {
  private readonly sent = new Map<string, number>();
  private readonly done = new Set<string>();

  constructor(
    private readonly taskId: string,
    private readonly contextId: string,
  ) {}

  translate(event: ItemEvent): TaskArtifactUpdateEvent[] {
    if (event.__typename === 'RunItemTextDelta') {
      const sent = this.sent.get(event.itemId);
      if (sent === undefined || event.member !== 'text') return [];
      const end = event.offset + event.text.length;
      if (end <= sent || event.offset > sent) return [];
      this.sent.set(event.itemId, end);
      // The item's snapshot opened the artifact (append: false): every delta appends to it.
      return [this.update(event.itemId, event.text.slice(sent - event.offset), true, false)];
    }
    if (event.kind !== 'text_message' || this.done.has(event.id)) return [];
    const full = typeof event.content.text === 'string' ? event.content.text : '';
    const sent = this.sent.get(event.id);
    const complete = event.state !== 'in_progress';
    if (complete) this.done.add(event.id);
    this.sent.set(event.id, full.length);
    if (sent === undefined) return [this.update(event.id, full, false, complete)];
    if (full.length <= sent && !complete) return [];
    return [this.update(event.id, full.slice(sent), true, complete)];
  }

  private update(itemId: string, chunk: string, append: boolean, lastChunk: boolean): TaskArtifactUpdateEvent {
    return {
      taskId: this.taskId,
      contextId: this.contextId,
      artifact: answerArtifact(itemId, chunk),
      append,
      lastChunk,
      metadata: undefined,
    };
  }
}
