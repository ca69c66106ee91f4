// Tool names of the MCP server: agent names made into MCP tool names (sanitised, unique, stable).
import { describe, expect, it } from 'vitest';
import { baseToolName, resumeInput, toolNames, type RunView } from '../../src/protocols/mcp/tools.js';

describe('MCP tool names', () => {
  it('keeps letters, digits, _ - . and turns the rest into _', () => {
    expect(baseToolName('Chat Bot (v2)')).toBe('Chat_Bot_v2');
    expect(baseToolName('Café Crème')).toBe('Cafe_Creme');
    expect(baseToolName('  ::  ')).toBe('agent');
    expect(baseToolName('x'.repeat(200))).toHaveLength(64);
    expect(baseToolName('日本語')).toBe('agent');
  });

  it('gives the oldest agent of a name the plain name and newer namesakes their id tail', () => {
    const names = toolNames([
      { id: 'agt_01JB0000000000000000000002', name: 'helper', description: '' },
      { id: 'agt_01JB0000000000000000000001', name: 'Helper', description: '' },
      { id: 'agt_01JB0000000000000000000003', name: 'helper', description: '' },
    ]);
    expect([...names].map(([name, agent]) => [name, agent.id.slice(-1)])).toEqual([
      ['Helper', '1'],
      ['helper', '2'],
      ['helper_00000003', '3'],
    ]);
    // Unique whatever the names.
    const many = toolNames(
      Array.from({ length: 30 }, (_, n) => ({ id: `agt_${String(n).padStart(4, '0')}`, name: '??', description: '' })),
    );
    expect(many.size).toBe(30);
  });
});

describe('answers to a paused run', () => {
  const run = (approvals: number, calls: number): RunView => ({
    id: 'run_1',
    agentId: 'agt_1',
    threadId: 'thr_1',
    parentRunId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    usageAtSeal: null,
    status: 'waiting',
    output: null,
    waitReason: approvals ? 'approval' : 'user_question',
    resumedById: null,
    failure: null,
    pending: {
      approvals: Array.from({ length: approvals }, (_, n) => ({
        toolCallId: `a${n}`,
        toolName: 'delete',
        arguments: {},
        presentation: { kind: 'approval', question: null, choices: null, title: 'delete' },
      })),
      calls: Array.from({ length: calls }, (_, n) => ({
        toolCallId: `c${n}`,
        toolName: 'ask_user',
        arguments: {},
        presentation: { kind: 'question', question: 'why?', choices: [], title: null },
      })),
    },
  });

  it('answers questions with the message and reads approvals as approve or deny', () => {
    expect(resumeInput(run(0, 2), 'because')).toEqual({
      approvals: {},
      calls: { c0: { status: 'returned', value: 'because' }, c1: { status: 'returned', value: 'because' } },
    });
    expect(resumeInput(run(1, 0), 'Yes!')).toEqual({ approvals: { a0: { action: 'approve' } }, calls: {} });
    expect(resumeInput(run(1, 0), 'no')).toEqual({ approvals: { a0: { action: 'deny' } }, calls: {} });
    expect(resumeInput(run(1, 0), 'perhaps')).toBeNull();
  });
});
