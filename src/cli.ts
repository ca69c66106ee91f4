// Operator CLI process: `npm run cli -- <command> [--flags] [--json]`. The commands live in
// operator-cli.ts (callable in-process, which is how most tests run them); this file only wires the
// process's arguments, streams and exit code to them.
// First: traces of the compiled build name the .ts files (lib/source-mapped-stacks.ts).
import './lib/source-mapped-stacks.js';
import { runCli } from './operator-cli.js';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
