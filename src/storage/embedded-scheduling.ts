// With EMBEDDED_PG_BATCH_SCHEDULING=true the embedded PostgreSQL runs under Linux's SCHED_BATCH
// policy, started through util-linux's `chrt --batch 0` (the policy passes to every process the
// postmaster forks: its backends). Opt-in: on the shared development machine its effect on throughput
// could not be told from the machine's noise (docs/benchmarks.md, "Run overhead: PostgreSQL under
// SCHED_BATCH"); it becomes the default only if a quiet measurement shows the gain.
//
// Why: each statement the service sends wakes a backend. Under the ordinary policy the woken backend
// usually preempts the node process on its core at once, so the service stops in the middle of its
// event loop — one write to the socket — until the backend has answered; with two cores, node and
// PostgreSQL take turns instead of running side by side, and node resumes with a cold cache. A
// SCHED_BATCH task is never a reason to preempt the running one (the kernel leaves its turn to the
// scheduler tick), while it keeps its full fair share of CPU time: node finishes its turn of the loop
// and the backend runs beside it or right after. Measured in docs/benchmarks.md ("Run overhead:
// PostgreSQL under SCHED_BATCH"). It changes when backends run, never what they do: durability and
// every statement's outcome are the same.
//
// Unprivileged: any process may lower its own policy to SCHED_BATCH. Where `chrt` is missing or
// refuses (not Linux, a sandbox that filters sched_setscheduler) PostgreSQL starts as before, and
// the log says so once.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** `chrt` on PATH, if any. */
function findChrt(path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'chrt');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/**
 * How to start a program under SCHED_BATCH: the launcher and the arguments before the program, or
 * null when it cannot be done here (then the program is started directly). `chrt` is tried once on
 * `true`, so that a refusal is found before PostgreSQL's start rather than as its failure.
 */
export function batchLauncher(env: NodeJS.ProcessEnv = process.env): { command: string; args: string[] } | null {
  if (process.platform !== 'linux') return null;
  const chrt = findChrt(env.PATH);
  if (!chrt) return null;
  const probe = spawnSync(chrt, ['--batch', '0', 'true'], { stdio: 'ignore', timeout: 5000 });
  return probe.status === 0 ? { command: chrt, args: ['--batch', '0'] } : null;
}

/** The scheduling policy of a process (Linux /proc/<pid>/stat, field 41): 0 normal, 3 batch. */
export function schedulingPolicy(statText: string): number {
  // Fields after the command name, which may hold spaces and parentheses: field 3 (state) is index 0.
  const fields = statText.slice(statText.lastIndexOf(')') + 2).split(' ');
  return Number(fields[41 - 3]);
}

export const SCHED_BATCH = 3;
