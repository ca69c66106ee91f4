// The benchmark figures cannot go stale unseen: `npm run bench` writes bench/results/runs.md and
// `npm run bench:workload` bench/results/workload.md, and each quotes its file in the README; this fails
// when a README quote and its file disagree (one edited or written without the other), and when a file
// lacks what a reader needs to judge its figures.
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { README_FILE, RESULTS_FILES, RUNS_RESULTS, quotedResults, withQuotedResults } from '../../bench/blackbox/results-file.js';

const HEADER =
  /commit `[0-9a-f]{7,}[^`]*`, \d{4}-\d{2}-\d{2}, Node v\d+\.\d+\.\d+, .+, \d+ cores \(nproc\), load average at start [\d.]+ \/ [\d.]+ \/ [\d.]+/;

describe.each(RESULTS_FILES.map((file) => [relative(process.cwd(), file.path), file] as const))(
  '%s, quoted in the README',
  (name, file) => {
    it(`is exactly the README's quote (run \`${file.command}\` to write both)`, () => {
      expect(existsSync(file.path), `${name} is missing: run ${file.command}`).toBe(true);
      const quoted = quotedResults(readFileSync(README_FILE, 'utf8'), file);
      expect(quoted, `README.md lacks the ${file.start} … ${file.end} block`).not.toBeNull();
      expect(quoted, `README.md quotes another ${name}: run ${file.command}, or copy the file into the block`).toBe(
        readFileSync(file.path, 'utf8').trim(),
      );
    });

    it('names its command, the commit, date, Node version, CPU, cores and load average, and the clients’ CPU', () => {
      const results = readFileSync(file.path, 'utf8');
      expect(results.startsWith(`**${file.command}** — `)).toBe(true);
      expect(results).toMatch(HEADER);
      expect(results).toMatch(/^\| bench clients'? CPU/m);
    });
  },
);

describe('quoting results in the README', () => {
  it('replaces the block and keeps the text around it', () => {
    const readme = `intro\n\n${RUNS_RESULTS.start}\n\nold table\n\n${RUNS_RESULTS.end}\n\nafter\n`;
    const updated = withQuotedResults(readme, '| new |\n');
    expect(updated).toBe(`intro\n\n${RUNS_RESULTS.start}\n\n| new |\n\n${RUNS_RESULTS.end}\n\nafter\n`);
    expect(quotedResults(updated)).toBe('| new |');
    expect(() => withQuotedResults('no markers', 'x')).toThrow(/no .* block/);
  });
});
