// Where the benchmarks leave their figures: bench/results/runs.md (`npm run bench`) and
// bench/results/workload.md (`npm run bench:workload`), committed, each headed by what a reader needs to
// judge them — the commit, the date, the Node version, the machine and its load when the bench began —
// and quoted in the README between two markers of its own. A bench rewrites its file and its quote; a
// test (test/unit/bench-results.test.ts) fails when a README quote and its file disagree, so neither can
// be edited alone or go stale unseen.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/** A results file and the README markers its quote sits between. */
export interface ResultsFile {
  path: string;
  /** The command that writes it (named in its header and its markers). */
  command: string;
  start: string;
  end: string;
}

function resultsFile(name: string, command: string): ResultsFile {
  return {
    path: fileURLToPath(new URL(`../results/${name}`, import.meta.url)),
    command,
    start: `<!-- quoted from bench/results/${name} by ${command}: edit neither by hand -->`,
    end: `<!-- end of bench/results/${name} -->`,
  };
}

export const RUNS_RESULTS = resultsFile('runs.md', 'npm run bench');
export const WORKLOAD_RESULTS = resultsFile('workload.md', 'npm run bench:workload');
export const RESULTS_FILES = [RUNS_RESULTS, WORKLOAD_RESULTS];
export const README_FILE = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The text between the README's markers (without the newlines next to them), or null when they are missing. */
export function quotedResults(readme: string, file: ResultsFile = RUNS_RESULTS): string | null {
  const start = readme.indexOf(file.start);
  const end = readme.indexOf(file.end);
  if (start < 0 || end < start) return null;
  return readme.slice(start + file.start.length, end).trim();
}

/** The README with `results` quoted between its markers. */
export function withQuotedResults(readme: string, results: string, file: ResultsFile = RUNS_RESULTS): string {
  const start = readme.indexOf(file.start);
  const end = readme.indexOf(file.end);
  if (start < 0 || end < start) throw new Error(`README.md has no "${file.start}" … "${file.end}" block to quote the results in`);
  return `${readme.slice(0, start + file.start.length)}\n\n${results.trim()}\n\n${readme.slice(end)}`;
}

function git(...args: string[]): string {
  return execFileSync('git', args, { encoding: 'utf8', cwd: fileURLToPath(new URL('../..', import.meta.url)) }).trim();
}

/** The checked-out commit, and whether tracked files differ from it (the results files and README aside: the benches write them). */
function commit(): string {
  try {
    const hash = git('rev-parse', '--short', 'HEAD');
    const changed = git('status', '--porcelain', '--untracked-files=no')
      .split('\n')
      .filter((line) => line.trim() !== '' && !/ (README\.md|bench\/results\/[\w-]+\.md)$/.test(line));
    return changed.length > 0 ? `${hash} with uncommitted changes to ${changed.length} file(s)` : hash;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown (no /proc/cpuinfo)';
  }
}

/** Read when the bench starts: the load average then is the one that tells how busy the machine was. */
export function machineAtStart() {
  const [one, five, fifteen] = loadavg();
  return {
    commit: commit(),
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    cpu: cpuModel(),
    cores: availableParallelism(),
    load: `${one!.toFixed(2)} / ${five!.toFixed(2)} / ${fifteen!.toFixed(2)}`,
  };
}

export function resultsHeader(machine: ReturnType<typeof machineAtStart>, command = RUNS_RESULTS.command): string {
  return (
    `**${command}** — commit \`${machine.commit}\`, ${machine.date}, Node ${machine.node}, ${machine.cpu}, ` +
    `${machine.cores} cores (nproc), load average at start ${machine.load} (1 / 5 / 15 min).`
  );
}

export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
