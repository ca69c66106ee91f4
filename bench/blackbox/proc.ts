// Reads CPU time and memory of process trees from /proc, from outside the processes (Linux only).
// CPU: utime + stime of every live process, plus cutime + cstime (children already reaped: PostgreSQL
// backends that exited) where asked. Memory: RSS, and PSS from /proc/<pid>/smaps_rollup — PSS divides
// each shared page among the processes that map it, so the PSS of a tree is an honest sum where RSS
// counts PostgreSQL's shared buffers once per backend that touched them.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux architecture Node supports

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime, in ms. */
  cpuMs: number;
  /** cutime + cstime (reaped children), in ms. */
  childCpuMs: number;
}

export function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // exited
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so split after its last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  const ticks = (index: number) => (Number(fields[index]) * 1000) / TICKS_PER_SECOND;
  // fields[0] is state (field 3 of stat(5)); utime is field 14, so index 11.
  return { pid, comm, ppid: Number(fields[1]), cpuMs: ticks(11) + ticks(12), childCpuMs: ticks(13) + ticks(14) };
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** `root` and every live descendant. */
export function processTree(root: number): ProcStat[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== null);
  const children = new Map<number, ProcStat[]>();
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const tree: ProcStat[] = [];
  const rootStat = all.find((stat) => stat.pid === root);
  const walk = (stat: ProcStat) => {
    tree.push(stat);
    for (const child of children.get(stat.pid) ?? []) walk(child);
  };
  if (rootStat) walk(rootStat);
  return tree;
}

export interface Memory {
  rssMb: number;
  pssMb: number;
}

export function memoryOf(pids: number[]): Memory {
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += Number(/^Rss:\s+(\d+)/m.exec(text)?.[1] ?? 0);
      pss += Number(/^Pss:\s+(\d+)/m.exec(text)?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return { rssMb: rss / 1024, pssMb: pss / 1024 };
}

/**
 * The processes of one service: node (and, when started through tsx, its esbuild helper) and PostgreSQL (the postmaster's
 * tree). On a shared PostgreSQL server only the backends of `database` and the server's own
 * auxiliary processes count, and reaped children do not (they may belong to other databases).
 */
export class ServiceProcesses {
  /** The node processes: the service's, and any worker processes (`npm run worker`) added later. */
  private readonly nodePids: number[];

  constructor(
    nodePid: number,
    private readonly postmasterPid: number,
    private readonly sharedServerDatabase: string | null,
  ) {
    this.nodePids = [nodePid];
  }

  /** The service's own node process (not its workers): what bench/syscall-census.ts attaches strace to. */
  get nodePid(): number {
    return this.nodePids[0]!;
  }

  addNodeProcess(pid: number): void {
    this.nodePids.push(pid);
  }

  private nodeTree() {
    return this.nodePids.flatMap((pid) => processTree(pid)).filter((stat) => stat.comm !== 'postgres');
  }

  private postgresTree() {
    const tree = processTree(this.postmasterPid);
    if (!this.sharedServerDatabase) return tree;
    const name = this.sharedServerDatabase;
    return tree.filter((stat) => {
      const line = cmdline(stat.pid);
      // backends read "postgres: user database host(port) state"; auxiliaries have no host
      return stat.pid === this.postmasterPid || !/\d+\.\d+\.\d+\.\d+\(\d+\)/.test(line) || line.split(' ').includes(name);
    });
  }

  /** On a shared server: each counted PostgreSQL process's CPU when last read, and what they all used so far. */
  private readonly sharedSeen = new Map<number, number>();
  private sharedUsedMs = 0;

  /**
   * Total CPU ms used so far by node and by PostgreSQL. On a shared server the exited backends' CPU is
   * not counted in the postmaster's children's (they may belong to other databases), so a sum over the
   * live processes would drop, between two reads, everything a backend that exited meanwhile had used
   * since it opened — the pool closes idle connections after 10 s, so a pass could come out at a
   * fraction of its real PostgreSQL CPU, or below zero. Instead each read adds what every live process
   * used since it was last read (all of it for a new one), so the total never falls; a backend that
   * exits loses only what it used after the last read.
   */
  cpu(): { nodeMs: number; postgresMs: number } {
    const sum = (stats: ProcStat[], withChildren: boolean) =>
      stats.reduce((total, stat) => total + stat.cpuMs + (withChildren ? stat.childCpuMs : 0), 0);
    const nodeMs = sum(this.nodeTree(), false);
    if (!this.sharedServerDatabase) return { nodeMs, postgresMs: sum(this.postgresTree(), true) };
    const live = new Set<number>();
    for (const stat of this.postgresTree()) {
      live.add(stat.pid);
      this.sharedUsedMs += Math.max(0, stat.cpuMs - (this.sharedSeen.get(stat.pid) ?? 0));
      this.sharedSeen.set(stat.pid, stat.cpuMs);
    }
    for (const pid of this.sharedSeen.keys()) if (!live.has(pid)) this.sharedSeen.delete(pid);
    return { nodeMs, postgresMs: this.sharedUsedMs };
  }

  /**
   * Time the service's live processes spent runnable but waiting for a core (/proc/<pid>/schedstat, its
   * second field, over all their threads), in ms. Far above their CPU time, the machine is oversubscribed:
   * delays then measure the machine's other load as much as the service.
   */
  runQueueWaitMs(): number {
    let waited = 0;
    for (const stat of [...this.nodeTree(), ...this.postgresTree()]) {
      try {
        waited += Number(readFileSync(`/proc/${stat.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
      } catch {
        // exited meanwhile
      }
    }
    return waited;
  }

  memory(): { node: Memory; postgres: Memory } {
    return {
      node: memoryOf(this.nodeTree().map((stat) => stat.pid)),
      postgres: memoryOf(this.postgresTree().map((stat) => stat.pid)),
    };
  }
}
