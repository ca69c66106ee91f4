// The A2A adapter's run-to-task mapping, without a service: answer text sent as artifact chunks exactly
// once however snapshots and deltas interleave or replay, and the answers a message gives a waiting run.
import { describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Part } from '@a2a-js/sdk';
import { answersFor, ArtifactStream, taskOf, type ItemEvent, type PendingCall, type RunView } from '../../src/protocols/a2a/tasks.js';

const snapshot = (text: string, state = 'in_progress'): ItemEvent => ({
  __typename: 'RunItem',
  id: 'itm_1',
  ordinal: 1,
  kind: 'text_message',
  state,
  content: { text },
});
const delta = (offset: number, text: string): ItemEvent => ({
  __typename: 'RunItemTextDelta',
  itemId: 'itm_1',
  ordinal: 1,
  member: 'text',
  offset,
  text,
});

const textPart = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: '' });
const message = (parts: Part[]): Message => ({
  messageId: 'm1',
  contextId: '',
  taskId: 'run_1',
  role: Role.ROLE_USER,
  parts,
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const call = (
  toolCallId: string,
  kind: PendingCall['presentation']['kind'],
  extra: Partial<Omit<PendingCall['presentation'], 'kind'>> = {},
): PendingCall => ({
  toolCallId,
  toolName: kind === 'question' ? 'ask_user' : 'delete_file',
  arguments: {},
  presentation: { kind, question: null, choices: null, title: null, ...extra },
});

function waitingRun(pending: RunView['pending']): RunView {
  return {
    id: 'run_1',
    agentId: 'agt_1',
    threadId: 'thr_1',
    parentRunId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    usageAtSeal: null,
    status: 'waiting',
    output: null,
    waitReason: pending.approvals.length ? 'approval' : 'user_question',
    resumedById: null,
    updatedAt: '2026-01-01T00:00:00.000Z',
    failure: null,
    pending,
  };
}

describe('ArtifactStream', () => {
  it('sends an answer as chunks exactly once: the opening, deltas, a replayed delta, the closing snapshot', () => {
    const stream = new ArtifactStream('run_1', 'thr_1');
    const updates = [
      snapshot(''),
      delta(0, 'Hel'),
      delta(3, 'lo'),
      delta(0, 'Hel'),
      snapshot('Hello!', 'completed'),
      snapshot('Hello!', 'completed'),
    ].flatMap((event) => stream.translate(event));
    const text = updates.map((update) => (update.artifact!.parts[0]!.content as { value: string }).value);
    expect(text.join('')).toBe('Hello!');
    expect(updates.map((update) => update.append)).toEqual([false, true, true, true]);
    expect(updates.map((update) => update.lastChunk)).toEqual([false, false, false, true]);
    expect(updates.every((update) => update.taskId === 'run_1' && update.artifact!.artifactId === 'itm_1')).toBe(true);
  });

  it('says nothing of deltas ahead of what it has, of other members, and of items that are not answers', () => {
    const stream = new ArtifactStream('run_1', 'thr_1');
    expect(stream.translate(delta(0, 'orphan'))).toEqual([]);
    stream.translate(snapshot('ab'));
    expect(stream.translate(delta(5, 'gap'))).toEqual([]);
    expect(stream.translate({ ...(delta(2, 'c') as object), member: 'reasoning' } as ItemEvent)).toEqual([]);
    expect(stream.translate({ ...(snapshot('x') as object), kind: 'tool_call' } as ItemEvent)).toEqual([]);
  });
});

describe('answersFor', () => {
  const question = waitingRun({ approvals: [], calls: [call('q1', 'question')] });
  const approval = waitingRun({ approvals: [call('a1', 'approval')], calls: [] });

  it("answers the one question with the message's text", () => {
    expect(answersFor(question, message([textPart('Oslo')]))).toEqual({ calls: { q1: { status: 'returned', value: 'Oslo' } } });
  });

  it('approves or denies the one approval by word, and refuses another word', () => {
    expect(answersFor(approval, message([textPart('Approve')]))).toEqual({ approvals: { a1: { action: 'approve' } } });
    expect(answersFor(approval, message([textPart('no')]))).toEqual({ approvals: { a1: { action: 'deny' } } });
    expect(() => answersFor(approval, message([textPart('maybe')]))).toThrow(/approve.*deny/);
  });

  it('takes a data part as the resume answer, and asks for one when the run waits for several', () => {
    const both = waitingRun({ approvals: [call('a1', 'approval')], calls: [call('q1', 'question')] });
    const answer = { approvals: { a1: { action: 'approve' } }, calls: { q1: { status: 'returned', value: 'Rome' } } };
    const data: Part = { content: { $case: 'data', value: answer }, metadata: undefined, filename: '', mediaType: '' };
    expect(answersFor(both, message([data]))).toEqual(answer);
    expect(() => answersFor(both, message([textPart('Rome')]))).toThrow(
      expect.objectContaining({ code: 'invalid_argument', details: expect.objectContaining({ pending: ['a1', 'q1'] }) }),
    );
  });
});

describe('taskOf', () => {
  it('shows a waiting run as input-required with what it waits for, and keeps the newest history', () => {
    const run = waitingRun({ approvals: [], calls: [call('q1', 'question', { question: 'Which city?', choices: ['Oslo', 'Rome'] })] });
    const user = (id: string, text: string) => ({
      id,
      kind: 'user_message',
      state: 'completed',
      content: { content: [{ type: 'text', text }] },
    });
    const task = taskOf('run_1', [{ run, items: [user('i1', 'first'), user('i2', 'second')] }], 1);
    expect(task.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect((task.status!.message!.parts[0]!.content as { value: string }).value).toBe('Which city? (Oslo, Rome)');
    expect(task.history.map((entry) => (entry.parts[0]!.content as { value: string }).value)).toEqual(['second']);
    expect(task.metadata).toEqual({ run_id: 'run_1', thread_id: 'thr_1', status: 'waiting', wait_reason: 'user_question' });
  });
});
