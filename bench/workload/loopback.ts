// Starts the loopback process (loopback-server.ts: the model, the MCP server and the documents) as a
// child of the bench, so that its CPU is read apart from the bench clients' and the service's.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readStat } from '../blackbox/proc.js';

export interface Loopback {
  url: string;
  pid: number;
  cpuMs(): number;
  stats(): Promise<{
    requests: number;
    unplanned: number;
    emitting: number;
    /** When each plan's first model request arrived, ms since the bench's epoch. */
    firstRequests: Record<string, number>;
    /** `tools/list` requests the MCP server answered. */
    toolListings: number;
  }>;
  close(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./loopback-server.ts', import.meta.url));

export async function startLoopback(epoch: number): Promise<Loopback> {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
    env: { ...process.env, BENCH_EPOCH: String(epoch) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = /^\{.*\}$/m.exec(output);
      if (line) resolve(JSON.parse(line[0]).port);
    });
    child.once('exit', (code) => reject(new Error(`the loopback process exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    cpuMs: () => readStat(child.pid!)?.cpuMs ?? NaN,
    stats: async () => (await fetch(`${url}/stats`)).json(),
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
