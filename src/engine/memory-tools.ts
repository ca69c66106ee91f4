// Memory mounts in a run: recall (the best records for the run's input go into the model's context)
// and server-side tools — search for every mount, add and replace for `write` mounts. Writes carry
// the run's provenance (run, attempt, tool call).
import { jsonSchema, tool, type ToolSet } from 'ai';
import type { Run } from '../generated/prisma/client.js';
import type { Deps } from '../services/deps.js';
import type { CallContext } from '../services/call-context.js';
import { searchRecords, writeRecord } from '../services/memories.js';

export interface Mount {
  memory_id: string;
  name: string;
  access: 'read' | 'write';
  recall: boolean;
}

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '')
    .slice(0, 40) || 'memory';

/** The run's mounts, from the agent view's `memory_mounts`, with names filled from the memories. */
export async function resolveMounts(
  deps: Deps,
  run: Run,
  configured: { memory_id: string; name?: string; access?: string; recall?: boolean }[],
): Promise<Mount[]> {
  if (!configured.length) return [];
  const memories = await deps.db.memory.findMany({
    where: { workspaceId: run.workspaceId, id: { in: configured.map((m) => m.memory_id) } },
    select: { id: true, name: true },
  });
  const names = new Map(memories.map((m) => [m.id, m.name]));
  return configured
    .filter((m) => names.has(m.memory_id))
    .map((m) => ({
      memory_id: m.memory_id,
      name: m.name ?? names.get(m.memory_id)!,
      access: m.access === 'write' ? 'write' : 'read',
      recall: m.recall ?? false,
    }));
}

export interface ServerTool {
  execute(args: Record<string, unknown>, toolCallId: string): Promise<unknown>;
}

export function memoryTools(call: CallContext, run: Run, mounts: Mount[]): { tools: ToolSet; handlers: Map<string, ServerTool> } {
  const tools: ToolSet = {};
  const handlers = new Map<string, ServerTool>();
  for (const mount of mounts) {
    const name = slug(mount.name);
    tools[`search_memory_${name}`] = tool({
      description: `Search the memory "${mount.name}" for records similar to a query.`,
      inputSchema: jsonSchema({
        type: 'object',
        properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20 } },
        required: ['query'],
      } as never),
    });
    handlers.set(`search_memory_${name}`, {
      execute: async (args) =>
        (await searchRecords(call, mount.memory_id, { query: args.query, limit: (args.limit as number | undefined) ?? 5 })).items.map(
          (r) => ({ id: r.id, text: r.text, score: r.score }),
        ),
    });
    const writer = (toolCallId: string) => ({ principalId: run.principalId, runId: run.id, attemptId: run.currentAttemptId, toolCallId });
    const readOnly = async () => {
      throw new Error(`the memory "${mount.name}" is mounted read-only`);
    };
    if (mount.access === 'write') {
      tools[`add_memory_${name}`] = tool({
        description: `Add a record to the memory "${mount.name}".`,
        inputSchema: jsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as never),
      });
      tools[`replace_memory_${name}`] = tool({
        description: `Replace the text of a record of the memory "${mount.name}".`,
        inputSchema: jsonSchema({
          type: 'object',
          properties: { record_id: { type: 'string' }, text: { type: 'string' } },
          required: ['record_id', 'text'],
        } as never),
      });
    }
    handlers.set(`add_memory_${name}`, {
      execute:
        mount.access === 'write'
          ? async (args, id) => {
              const r = await writeRecord(call, mount.memory_id, null, args.text, writer(id));
              return { id: r.id };
            }
          : readOnly,
    });
    handlers.set(`replace_memory_${name}`, {
      execute:
        mount.access === 'write'
          ? async (args, id) => {
              const r = await writeRecord(call, mount.memory_id, String(args.record_id ?? ''), args.text, writer(id));
              return { id: r.id };
            }
          : readOnly,
    });
  }
  return { tools, handlers };
}

/** Recall: the best records of each recall mount for the run's input. */
export async function recall(call: CallContext, mounts: Mount[], query: string) {
  const results: { mount: Mount; records: { id: string; text: string; score: number | null }[] }[] = [];
  if (!query.trim()) return results;
  for (const mount of mounts.filter((m) => m.recall)) {
    const found = await searchRecords(call, mount.memory_id, { query, limit: 5 }).catch(() => ({ items: [] }));
    results.push({ mount, records: found.items.map((r) => ({ id: r.id, text: r.text, score: r.score })) });
  }
  return results;
}
