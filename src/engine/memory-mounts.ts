// Memory mounts in a run: which memories the run sees, and recall (the best records for the run's
// input go into the model's context). The mounts' tools are in tools/memory-tools.ts.
import type { CallContext } from '../services/call-context.js';
import type { MemoryMountConfig } from './agent-config.js';
import { memoryNames, searchRecords } from '../features/memories/memories.js';

export interface Mount {
  memory_id: string;
  name: string;
  access: 'read' | 'write';
  recall: boolean;
}

/** The run's mounts, from the agent view's `memory_mounts`, with names filled from the memories (of the run's workspace). */
export async function resolveMounts(call: CallContext, configured: MemoryMountConfig[]): Promise<Mount[]> {
  if (!configured.length) return [];
  const names = await memoryNames(
    call,
    configured.map((m) => m.memory_id),
  );
  return configured
    .filter((m) => names.has(m.memory_id))
    .map((m) => ({
      memory_id: m.memory_id,
      name: m.name ?? names.get(m.memory_id)!,
      access: m.access === 'write' ? 'write' : 'read',
      recall: m.recall ?? false,
    }));
}

/** The records of one mount recalled for the run's input. */
export interface Recalled {
  mount: Mount;
  records: { id: string; text: string; score: number | null }[];
}

/** Recall: the best records of each recall mount for the run's input. */
export async function recall(call: CallContext, mounts: Mount[], query: string): Promise<Recalled[]> {
  const results: Recalled[] = [];
  if (!query.trim()) return results;
  for (const mount of mounts.filter((m) => m.recall)) {
    const found = await searchRecords(call, mount.memory_id, { query, limit: 5 }).catch(() => []);
    results.push({ mount, records: found.map((r) => ({ id: r.id, text: r.text, score: r.score })) });
  }
  return results;
}
