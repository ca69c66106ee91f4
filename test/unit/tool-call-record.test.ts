// The tool-call record: for every outcome of a call, its run items, its span and what the model is
// told (or what the run waits with) come from the one outcome and agree.
import type { Span } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import type { AttemptTrace } from '../../src/engine/attempt-trace.js';
import type { RunItemState, RunItemStream } from '../../src/engine/items.js';
import { ToolCallRecord, USER_DENIAL, type ToolCallOutcome } from '../../src/engine/tool-call-record.js';
import type { RunTool } from '../../src/engine/tools/tool.js';
import { ATTR } from '../../src/traces/names.js';

/** The items a record wrote, as their last state. */
function fakeItems() {
  const written: Pick<RunItemState, 'kind' | 'state' | 'content'>[] = [];
  const items = {
    open: (kind: string, content: Record<string, unknown>, state: RunItemState['state'] = 'in_progress') => {
      const item = { kind, state, content, contentRefs: {} } as RunItemState;
      written.push(item);
      return item;
    },
    complete: (item: RunItemState, patch: Record<string, unknown> = {}, state: 'completed' | 'failed' = 'completed') => {
      Object.assign(item.content, patch);
      item.state = state;
    },
  } as unknown as RunItemStream;
  return { items, written };
}

/** A trace whose tool spans record their attributes and whether they ended. */
function fakeTrace() {
  const spans: { attributes: Record<string, unknown>; ended: boolean }[] = [];
  const trace = {
    toolCall: () => {
      const recorded = { attributes: {} as Record<string, unknown>, ended: false };
      spans.push(recorded);
      const span = {
        setAttribute: (key: string, value: unknown) => ((recorded.attributes[key] = value), span),
        addEvent: () => span,
        setStatus: () => span,
        end: () => (recorded.ended = true),
      } as unknown as Span;
      return span;
    },
  } as unknown as AttemptTrace;
  return { trace, spans };
}

const call = { toolCallId: 'call_1', toolName: 'open_page', arguments: { url: 'https://example.com' } };
const ids = { tool_call_id: 'call_1', tool_name: 'open_page' };

async function settle(outcome: ToolCallOutcome, runTool?: RunTool) {
  const { items, written } = fakeItems();
  const { trace, spans } = fakeTrace();
  const settled = await new ToolCallRecord({ items, trace }, call, runTool).settle(outcome);
  return { settled, written, span: spans[0]! };
}

describe('the tool-call record', () => {
  it('a returned server call: its items, an ok span and the value for the model', async () => {
    const { items, written } = fakeItems();
    const { trace, spans } = fakeTrace();
    const record = new ToolCallRecord({ items, trace }, call, undefined, { approvedBy: 'user' });
    record.started();
    expect(written).toEqual([
      { kind: 'tool_call', state: 'in_progress', content: { ...ids, arguments: call.arguments, server: true }, contentRefs: {} },
    ]);
    const settled = await record.settle({ kind: 'returned', value: { ok: 1 } });
    expect(written.map(({ kind, state, content }) => ({ kind, state, content }))).toEqual([
      { kind: 'tool_call', state: 'completed', content: { ...ids, arguments: call.arguments, server: true } },
      { kind: 'tool_result', state: 'completed', content: { ...ids, result: { ok: 1 } } },
    ]);
    expect(spans[0]).toEqual({ attributes: { [ATTR.toolApprovedBy]: 'user', [ATTR.toolOutcome]: 'ok' }, ended: true });
    expect(settled).toEqual({
      told: { type: 'tool-result', toolCallId: 'call_1', toolName: 'open_page', output: { type: 'json', value: { ok: 1 } } },
    });
  });

  it('a call that failed while running: the call item failed, the error in the result, the span and the model, and a failure', async () => {
    const { items, written } = fakeItems();
    const { trace, spans } = fakeTrace();
    const record = new ToolCallRecord({ items, trace }, call);
    record.started();
    const settled = await record.settle({ kind: 'failed', error: 'broken' });
    expect(written.map(({ kind, state, content }) => ({ kind, state, content }))).toEqual([
      { kind: 'tool_call', state: 'failed', content: { ...ids, arguments: call.arguments, server: true, error: 'broken' } },
      { kind: 'tool_result', state: 'completed', content: { ...ids, error: 'broken' } },
    ]);
    expect(spans[0]!.attributes).toMatchObject({ [ATTR.toolOutcome]: 'error', [ATTR.errorType]: 'tool_error' });
    expect(settled).toEqual({
      told: { type: 'tool-result', toolCallId: 'call_1', toolName: 'open_page', output: { type: 'error-text', value: 'broken' } },
      failure: { toolCallId: 'call_1', toolName: 'open_page', error: 'broken' },
    });
  });

  it('a refused call: no call item, the refusal in the result item, the span and the model; no failure', async () => {
    const { settled, written, span } = await settle(USER_DENIAL);
    expect(written).toEqual([
      {
        kind: 'tool_result',
        state: 'completed',
        content: { ...ids, denied: true, denied_by: 'user', error: 'The user denied this tool call.' },
        contentRefs: {},
      },
    ]);
    expect(span.attributes).toEqual({ [ATTR.toolOutcome]: 'denied', [ATTR.toolDeniedBy]: 'user' });
    expect(settled).toEqual({
      told: {
        type: 'tool-result',
        toolCallId: 'call_1',
        toolName: 'open_page',
        output: { type: 'error-text', value: 'The user denied this tool call.' },
      },
    });
  });

  it('waits: the approval, client-call and question items match the pending entry the run waits with', async () => {
    const review = { action: 'ask', risk: 'high' };
    const approval = await settle({ kind: 'approval_requested', title: 'Open a page', verdict: review });
    expect(approval.written[0]).toMatchObject({ kind: 'approval_request', content: { ...ids, arguments: call.arguments, review } });
    expect(approval.span.attributes).toMatchObject({ [ATTR.toolOutcome]: 'waiting', [ATTR.reviewAction]: 'ask' });
    expect(approval.settled).toEqual({
      waitsFor: 'approval',
      entry: { ...ids, arguments: call.arguments, presentation: { kind: 'approval', title: 'Open a page', review } },
    });

    const client = await settle({ kind: 'client_call', title: 'Open a page' });
    expect(client.written[0]).toMatchObject({ kind: 'client_call', content: { ...ids, arguments: call.arguments } });
    expect(client.settled).toEqual({
      waitsFor: 'call',
      entry: { ...ids, arguments: call.arguments, presentation: { kind: 'client_call', title: 'Open a page' } },
    });

    const asked = { toolCallId: 'call_2', toolName: 'ask_user', arguments: { question: 'Which?', choices: ['a', 'b'] } };
    const { items, written } = fakeItems();
    const question = await new ToolCallRecord({ items }, asked).settle({ kind: 'question' });
    expect(written[0]).toMatchObject({ kind: 'question', content: { tool_call_id: 'call_2', question: 'Which?', choices: ['a', 'b'] } });
    expect(question).toEqual({
      waitsFor: 'call',
      entry: {
        tool_call_id: 'call_2',
        tool_name: 'ask_user',
        arguments: asked.arguments,
        presentation: { kind: 'question', question: 'Which?', choices: ['a', 'b'] },
      },
    });
  });
});
