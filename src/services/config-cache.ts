// Process-local memory of configuration a run reads every time — an agent's revision, model,
// provider and connection, the workspace's budgets — valid for one "configuration generation". Any change of one of them
// writes an audit row; recordAudit bumps the generation at once in this process and NOTIFYs
// CONFIG_CHANNEL, whose listeners (every service and worker process) bump theirs after commit.
// An entry remembers the generation its read began in, so a change racing the read invalidates it.
import type { Prisma } from '../db.js';

export const CONFIG_CHANNEL = 'wsa_config_changed';
const CONFIG_KINDS = /^(agent|model|connection|budget|[a-z]+_provider)$/;

let generation = 0;

export function configGeneration(): number {
  return generation;
}

export function bumpConfigGeneration() {
  generation += 1;
}

/** Called for every audit row: configuration kinds invalidate the caches here and elsewhere. */
export function isConfigurationKind(resourceKind: string): boolean {
  return CONFIG_KINDS.test(resourceKind);
}

export async function announceIfConfiguration(tx: Prisma.TransactionClient, resourceKind: string) {
  if (!isConfigurationKind(resourceKind)) return;
  bumpConfigGeneration();
  await tx.$executeRaw`SELECT pg_notify(${CONFIG_CHANNEL}, ${resourceKind})`;
}

export class GenerationCache<V> {
  private readonly entries = new Map<string, { value: V; generation: number }>();

  constructor(private readonly maxEntries = 1_000) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.generation !== generation) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** `readGeneration`: configGeneration() taken before the read that produced `value`. */
  set(key: string, value: V, readGeneration: number) {
    if (readGeneration !== generation) return;
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, generation: readGeneration });
  }
}
