// Relay global ids: a stored id names its node type by its prefix; a model's global id carries its
// workspace and key; anything else is not a node id.
import { describe, expect, it } from 'vitest';
import { ID_PREFIX, newId, type IdKind } from '../../src/lib/ids.js';
import { modelNodeId, NODE_TYPE_BY_PREFIX, parseModelNodeId, parseNodeId } from '../../src/lib/node-ids.js';

const NODE_KINDS: Record<string, IdKind> = {
  Run: 'run',
  RunItem: 'runItem',
  Thread: 'thread',
  Session: 'session',
  InboxEntry: 'inboxEntry',
  Agent: 'agent',
  AgentRevision: 'agentRevision',
  Skill: 'skill',
  SkillRevision: 'skillRevision',
  Provider: 'provider',
  Connection: 'connection',
  Memory: 'memory',
  EnvironmentTemplate: 'environmentTemplate',
  Environment: 'environment',
  Asset: 'asset',
  Finding: 'finding',
  FindingAnalysis: 'findingAnalysis',
};

describe('parseNodeId', () => {
  it('names the type of every node kind’s fresh id, and keeps the id as it is', () => {
    for (const [typename, kind] of Object.entries(NODE_KINDS)) {
      const id = newId(kind);
      expect(parseNodeId(id)).toEqual({ typename, id });
    }
    expect(Object.keys(NODE_TYPE_BY_PREFIX).sort()).toEqual(
      Object.values(NODE_KINDS)
        .map((kind) => ID_PREFIX[kind])
        .sort(),
    );
  });

  it('reads a model global id back into its workspace and key', () => {
    const workspaceId = newId('workspace');
    const id = modelNodeId(workspaceId, 'gpt-4.1-mini');
    expect(id).toBe(`mdl_${workspaceId}:gpt-4.1-mini`);
    expect(parseNodeId(id)).toEqual({ typename: 'Model', id });
    expect(parseModelNodeId(id)).toEqual({ workspaceId, key: 'gpt-4.1-mini' });
  });

  it('answers null for anything that is not a node id', () => {
    const workspaceId = newId('workspace');
    for (const id of [
      '',
      'run',
      'run_',
      'run_1',
      `${newId('run')}x`,
      newId('run').toLowerCase(),
      ` ${newId('run')}`,
      workspaceId, // a kind that is not a node type
      newId('apiKey'),
      newId('auditEvent'),
      'UnVuOnJ1bl8x', // the relay plugin's default encoding of Run:run_1
      `mdl_${workspaceId}`,
      `mdl_${workspaceId}:`,
      `mdl_${workspaceId}:Upper`,
      `mdl_${workspaceId}:-dash-first`,
      `mdl_${workspaceId}:${'a'.repeat(129)}`,
      `mdl_wsp_1:key`,
      `mdl_${newId('run')}:key`,
      'x'.repeat(10_000),
    ]) {
      expect(parseNodeId(id), id.slice(0, 60)).toBeNull();
    }
  });
});
