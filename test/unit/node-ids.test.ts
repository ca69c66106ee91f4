// Relay global ids: a stored id names its node type by its prefix; a model's global id carries its
// workspace and key; anything else is not a node id.
import { describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { ID_PREFIX, newId, type IdKind } from '../../src/lib/ids.js';
import { nodeTypesByPrefix, parseNodeId, registerNodeType, registeredNodeTypes } from '../../src/lib/node-ids.js';
import { modelNodeId, parseModelNodeId } from '../../src/features/models/models.js';
// The node types register themselves (asNode) as the schema's modules are imported.
import { getSchema } from '../../src/graphql/schema.js';

describe('the id kinds', () => {
  it('each have their own three-letter prefix', () => {
    const prefixes = Object.values(ID_PREFIX);
    for (const prefix of prefixes) expect(prefix).toMatch(/^[a-z]{3}$/);
    expect(new Set(prefixes).size).toBe(prefixes.length);
  });
});

describe('the node types', () => {
  it('are every type of the schema that implements Node, each registered once with its prefix', () => {
    const schema = getSchema();
    const nodeTypes = Object.values(schema.getTypeMap())
      .filter((type) => isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node'))
      .map((type) => type.name)
      .sort();
    const registered = registeredNodeTypes();
    expect(registered.map((type) => type.typename).sort()).toEqual(nodeTypes);
    // Every node type's ids are stored ids of its kind, except the model's (workspace and key).
    expect(registered.filter((type) => type.kind === undefined).map((type) => [type.typename, type.prefix])).toEqual([['Model', 'mdl']]);
    expect(Object.keys(nodeTypesByPrefix())).toHaveLength(registered.length);
  });

  it('refuses a second type for a prefix, a second prefix for a type, or a prefix of its own that stored ids have, at registration', () => {
    const never = () => false;
    expect(() => registerNodeType({ kind: 'run', typename: 'Widget' })).toThrow(/share the prefix run/);
    expect(() => registerNodeType({ prefix: 'wdg', typename: 'Run', matches: never })).toThrow(/two prefixes/);
    expect(() => registerNodeType({ prefix: 'widget', typename: 'Widget', matches: never })).toThrow(/three letters/);
    expect(() => registerNodeType({ prefix: ID_PREFIX.workspace, typename: 'Widget', matches: never })).toThrow(/belongs to stored ids/);
  });
});

describe('parseNodeId', () => {
  it('names the type of every node kind’s fresh id, and keeps the id as it is', () => {
    const stored = registeredNodeTypes().filter((type) => type.kind !== undefined);
    expect(stored.length).toBeGreaterThan(0);
    for (const { typename, kind } of stored) {
      const id = newId(kind!);
      expect(parseNodeId(id)).toEqual({ typename, id });
    }
  });

  it('answers null for a fresh id of every kind that is not a node type', () => {
    const nodeKinds = new Set(registeredNodeTypes().map((type) => type.kind));
    const others = (Object.keys(ID_PREFIX) as IdKind[]).filter((kind) => !nodeKinds.has(kind));
    expect(others).toContain('workspace');
    for (const kind of others) expect(parseNodeId(newId(kind)), kind).toBeNull();
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
