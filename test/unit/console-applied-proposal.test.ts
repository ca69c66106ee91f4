// Whether the composer already applied its proposal (console/src/sections/agents/appliedProposal.ts):
// the agents its create_agent calls created, read from run items, and the one a proposal names.
import { describe, expect, it } from 'vitest';
import { agentsCreated, appliedAs, type ItemLike } from '../../console/src/sections/agents/appliedProposal.ts';

const result = (toolName: string, value: unknown): ItemLike => ({
  kind: 'tool_result',
  content: { tool_call_id: 'c', tool_name: toolName, result: value },
});

describe('a proposal the composer applied', () => {
  it('reads the agents create_agent calls created, leaving out refused calls and other tools', () => {
    const items: ItemLike[] = [
      { kind: 'tool_call', content: { tool_name: 'create_agent', arguments: { name: 'A' } } },
      result('create_agent', { id: 'agt_1', name: 'Triager' }),
      { kind: 'tool_result', content: { tool_call_id: 'd', tool_name: 'create_agent', error: 'invalid_argument: config.model' } },
      result('list_agents', { id: 'agt_x', name: 'Triager' }),
      result('create_agent', { id: 'agt_2', name: 'Other' }),
      { kind: 'text_message', content: { text: 'done' } },
    ];
    expect(agentsCreated(items)).toEqual([
      { id: 'agt_1', name: 'Triager' },
      { id: 'agt_2', name: 'Other' },
    ]);
  });

  it('is applied as the newest agent created under its name, else not applied', () => {
    const created = [
      { id: 'agt_1', name: 'Triager' },
      { id: 'agt_2', name: 'Triager' },
    ];
    expect(appliedAs(created, 'Triager')).toEqual({ id: 'agt_2', name: 'Triager' });
    expect(appliedAs(created, 'Sorter')).toBeNull();
    expect(appliedAs([], 'Triager')).toBeNull();
  });
});
