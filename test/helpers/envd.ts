// The real envd daemon as a child process (src/envd/cli.ts), and pairing one with a test app: the
// daemon asks to pair, the test approves the printed user code through the REST API, and the
// daemon writes its credential file.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { TestApp } from './app.js';

const ROOT = join(import.meta.dirname, '..', '..');

export interface Daemon {
  process: ChildProcess;
  output: () => string;
  /** Resolves with the first match of `pattern` in the daemon's output (stdout and stderr). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  /** Ends the daemon (SIGTERM: it kills what it started) and waits for it to exit. */
  stop(): Promise<void>;
}

export function startEnvd(args: string[], env: Record<string, string> = {}): Daemon {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/envd/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ENVD_POLL_INTERVAL_MS: '100', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const waiters = new Set<() => void>();
  const onText = (chunk: Buffer) => {
    text += chunk;
    for (const wake of waiters) wake();
  };
  child.stdout!.on('data', onText);
  child.stderr!.on('data', onText);
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      resolve(code);
      for (const wake of waiters) wake();
    }),
  );
  return {
    process: child,
    output: () => text,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text);
          if (match) return done(() => resolve(match));
          if (child.exitCode !== null || child.signalCode !== null)
            done(() => reject(new Error(`envd exited before its output matched ${pattern}:\n${text}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`envd output never matched ${pattern}:\n${text}`))), timeoutMs);
        const done = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Pairs a new daemon with the app (approved by the app's API key); answers the device id. */
export async function pairEnvd(t: TestApp, name: string, configFile: string, token?: string): Promise<string> {
  const daemon = startEnvd(['pair', '--server', t.url, '--name', name, '--config', configFile]);
  const [, pairingId] = await daemon.waitFor(/pairing (pai_\w+) user code ([A-Z0-9-]+)/);
  const approved = await t.rest('POST', `/api/device-pairings/${pairingId}/approve`, { token });
  if (approved.status !== 200) throw new Error(`approving the pairing answered ${approved.status}: ${JSON.stringify(approved.body)}`);
  if ((await daemon.exited) !== 0) throw new Error(`envd pair failed:\n${daemon.output()}`);
  return approved.body.id as string;
}
