// Relay global ids: a stored id names its node type by its prefix; a model's global id carries its
// workspace and key; anything else is not a node id.
import { describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { ID_PREFIX, newId, type IdKind } from '../../src/lib/ids.js';
import { nodeTypesByPrefix, parseNodeId, registerNodeType } from '../../src/lib/node-ids.js';
import { modelNodeId, parseModelNodeId } from '../../src/features/models/models.js';
// The node types register themselves (asNode) as the schema's modules are imported.
import { getSchema } from '../../src/graphql/schema.js';

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

describe('the node types', () => {
  it('are every type of the schema that implements Node, each registered once with its prefix', () => {
    const schema = getSchema();
    const nodeTypes = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
      .map((type) => type.name)
      .sort();
    expect(Object.values(nodeTypesByPrefix()).sort()).toEqual(nodeTypes);
    expect(nodeTypesByPrefix()).toEqual({
      ...Object.fromEntries(Object.entries(NODE_KINDS).map(([typename, kind]) => [ID_PREFIX[kind], typename])),
      mdl: 'Model',
    });
  });

  it('refuses a second type for a prefix, or a second prefix for a type, at registration', () => {
    expect(() => registerNodeType({ prefix: ID_PREFIX.run, typename: 'Widget' })).toThrow(/share the prefix run/);
    expect(() => registerNodeType({ prefix: 'wdg', typename: 'Run' })).toThrow(/two prefixes/);
    expect(() => registerNodeType({ prefix: 'widget', typename: 'Widget' })).toThrow(/three letters/);
  });
});

describe('parseNodeId', () => {
  it('names the type of every node kind’s fresh id, and keeps the id as it is', () => {
    for (const [typename, kind] of Object.entries(NODE_KINDS)) {
      const id = newId(kind);
      expect(parseNodeId(id)).toEqual({ typename, id });
    }
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
