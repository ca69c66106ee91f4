// Rows that later issues' endpoints create, inserted directly while those endpoints do not exist.
import type { TestApp } from './app.js';
import { newId } from '../../src/lib/ids.js';

export async function insertModel(t: TestApp, key: string, options: { workspaceId?: string; enabled?: boolean; providerEnabled?: boolean } = {}) {
  const workspaceId = options.workspaceId ?? t.workspaceId;
  const provider = await t.app.deps.db.provider.create({
    data: { id: newId('provider'), workspaceId, kind: 'model', type: 'development', name: `provider for ${key}`, enabled: options.providerEnabled ?? true, createdById: 'test', updatedById: 'test' },
  });
  return t.app.deps.db.model.create({
    data: { workspaceId, key, providerId: provider.id, providerModel: 'echo', enabled: options.enabled ?? true, createdById: 'test', updatedById: 'test' },
  });
}

export async function insertWorkspaceResource(t: TestApp, kind: 'connection' | 'memory' | 'environmentTemplate', workspaceId = t.workspaceId): Promise<string> {
  const db = t.app.deps.db;
  const common = { workspaceId, name: `${kind} fixture`, createdById: 'test', updatedById: 'test', providerId: 'prv_fixture' };
  if (kind === 'connection') return (await db.connection.create({ data: { id: newId('connection'), ...common } })).id;
  if (kind === 'memory') return (await db.memory.create({ data: { id: newId('memory'), namespace: 'fixture', ...common } })).id;
  return (await db.environmentTemplate.create({ data: { id: newId('environmentTemplate'), ...common } })).id;
}
