// The benchmark figures cannot go stale unseen: `npm run bench` writes bench/results/runs.md and quotes
// it in the README; this fails when the README's quote and the file disagree (one edited or written
// without the other), and when the file lacks what a reader needs to judge its figures.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUOTE_END, QUOTE_START, README_FILE, RESULTS_FILE, quotedResults, withQuotedResults } from '../../bench/blackbox/results-file.js';

describe('the benchmark results quoted in the README', () => {
  it('are exactly bench/results/runs.md (run `npm run bench` to write both)', () => {
    expect(existsSync(RESULTS_FILE), 'bench/results/runs.md is missing: run npm run bench').toBe(true);
    const quoted = quotedResults(readFileSync(README_FILE, 'utf8'));
    expect(quoted, `README.md lacks the ${QUOTE_START} … ${QUOTE_END} block`).not.toBeNull();
    expect(quoted, 'README.md quotes another bench/results/runs.md: run npm run bench, or copy the file into the block').toBe(
      readFileSync(RESULTS_FILE, 'utf8').trim(),
    );
  });

  it('name the commit, date, Node version, CPU, cores and load average, and the clients’ CPU', () => {
    const results = readFileSync(RESULTS_FILE, 'utf8');
    expect(results).toMatch(
      /commit `[0-9a-f]{7,}[^`]*`, \d{4}-\d{2}-\d{2}, Node v\d+\.\d+\.\d+, .+, \d+ cores \(nproc\), load average at start [\d.]+ \/ [\d.]+ \/ [\d.]+/,
    );
    expect(results).toMatch(/^\| bench clients' CPU s over the pass/m);
  });

  it('quoting replaces the block and keeps the text around it', () => {
    const readme = `intro\n\n${QUOTE_START}\n\nold table\n\n${QUOTE_END}\n\nafter\n`;
    const updated = withQuotedResults(readme, '| new |\n');
    expect(updated).toBe(`intro\n\n${QUOTE_START}\n\n| new |\n\n${QUOTE_END}\n\nafter\n`);
    expect(quotedResults(updated)).toBe('| new |');
    expect(() => withQuotedResults('no markers', 'x')).toThrow(/no .* block/);
  });
});
